#include "runtime/ops/op_def_test_util.h"

#include <gtest/gtest.h>

#include "runtime/framework/op.h"

namespace stepflow {
namespace test {

const OpDef& Op(const std::string& name) {
  const OpDef* def = OpRegistry::Global()->LookUpOrNull(name);
  EXPECT_NE(def, nullptr) << name;
  static const OpDef* empty = new OpDef;
  return def == nullptr ? *empty : *def;
}

std::string Args(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ",";
    std::string t;
    if (!a.type_list_attr().empty()) {
      t = "[" + a.type_list_attr() + "]";
    } else {
      t = a.type_attr().empty() ? DataTypeString(a.type()) : a.type_attr();
    }
    if (a.is_ref()) t = "Ref(" + t + ")";
    if (!a.number_attr().empty()) t = a.number_attr() + "*" + t;
    out += a.name() + ":" + t;
  }
  return out;
}

namespace {

std::string AttrList(const OpDef& op, bool with_defaults) {
  std::string out;
  for (const auto& a : op.attr()) {
    if (!out.empty()) out += ",";
    out += a.name() + ":" + a.type();
    if (!with_defaults || !a.has_default_value()) continue;
    const AttrValue& v = a.default_value();
    out += "=";
    switch (v.value_case()) {
      case AttrValue::kS:
        out += "'" + v.s() + "'";
        break;
      case AttrValue::kI:
        out += std::to_string(v.i());
        break;
      case AttrValue::kB:
        out += v.b() ? "true" : "false";
        break;
      case AttrValue::kList:
        out += "[]";
        break;
      default:
        out += "?";
        break;
    }
  }
  return out;
}

}  // namespace

std::string Attrs(const OpDef& op) { return AttrList(op, false); }

std::string AttrsWithDefaults(const OpDef& op) { return AttrList(op, true); }

const OpDef::AttrDef* FindAttr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

const OpDef::AttrDef& Attr(const std::string& op, const std::string& attr) {
  const OpDef::AttrDef* a = FindAttr(Op(op), attr);
  if (a != nullptr) return *a;
  ADD_FAILURE() << op << " has no attr " << attr;
  static const OpDef::AttrDef* empty = new OpDef::AttrDef;
  return *empty;
}

bool Allows(const std::string& op, const std::string& attr, DataType t) {
  const OpDef::AttrDef& a = Attr(op, attr);
  if (!a.has_allowed_values()) return true;
  for (int x : a.allowed_values().list().type()) {
    if (x == t) return true;
  }
  return false;
}

std::string Allowed(const OpDef& op, const std::string& attr) {
  const OpDef::AttrDef* a = FindAttr(op, attr);
  if (a == nullptr) return "<no attr>";
  std::string out;
  for (int t : a->allowed_values().list().type()) {
    if (!out.empty()) out += ",";
    out += DataTypeString(static_cast<DataType>(t));
  }
  return out;
}

}  // namespace test
}  // namespace stepflow
