#include "runtime/framework/node_def_util.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace {

// Largest list length (N in "N * T") the runtime accepts; bigger values in
// a malformed graph are rejected instead of allocating huge signatures.
constexpr int64_t kMaxListLength = 1 << 20;

std::string TypeName(int t) {
  if (DataType_IsValid(t)) return DataType_Name(static_cast<DataType>(t));
  return absl::StrCat("<unknown type ", t, ">");
}

std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  return absl::StrCat(
      "[",
      absl::StrJoin(shape.dim(), ",",
                    [](std::string* out, const TensorShapeProto::Dim& d) {
                      if (d.size() < 0) {
                        out->append("?");
                      } else {
                        absl::StrAppend(out, d.size());
                      }
                    }),
      "]");
}

std::string TensorSummary(const TensorProto& t) {
  return absl::StrCat("<tensor ", TypeName(t.dtype()), " ",
                      ShapeString(t.tensor_shape()), ">");
}

std::string Quote(const std::string& s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

}  // namespace

std::string AttrValueKind(const AttrValue& v) {
  switch (v.value_case()) {
    case AttrValue::kS:
      return "string";
    case AttrValue::kI:
      return "int";
    case AttrValue::kF:
      return "float";
    case AttrValue::kB:
      return "bool";
    case AttrValue::kType:
      return "type";
    case AttrValue::kShape:
      return "shape";
    case AttrValue::kTensor:
      return "tensor";
    case AttrValue::kFunc:
      return "func";
    case AttrValue::kPlaceholder:
      return "placeholder";
    case AttrValue::kList: {
      const AttrValue::ListValue& l = v.list();
      if (l.s_size() > 0) return "list(string)";
      if (l.i_size() > 0) return "list(int)";
      if (l.f_size() > 0) return "list(float)";
      if (l.b_size() > 0) return "list(bool)";
      if (l.type_size() > 0) return "list(type)";
      if (l.shape_size() > 0) return "list(shape)";
      if (l.tensor_size() > 0) return "list(tensor)";
      if (l.func_size() > 0) return "list(func)";
      return "list";
    }
    default:
      return "<unset>";
  }
}

namespace {

int NumListKinds(const AttrValue::ListValue& l) {
  return (l.s_size() > 0) + (l.i_size() > 0) + (l.f_size() > 0) +
         (l.b_size() > 0) + (l.type_size() > 0) + (l.shape_size() > 0) +
         (l.tensor_size() > 0) + (l.func_size() > 0);
}

int64_t ListLength(const AttrValue::ListValue& l) {
  return std::max({l.s_size(), l.i_size(), l.f_size(), l.b_size(),
                   l.type_size(), l.shape_size(), l.tensor_size(),
                   l.func_size()});
}

bool ValueHasKind(const AttrValue& v, absl::string_view kind) {
  if (absl::StartsWith(kind, "list(")) {
    if (v.value_case() != AttrValue::kList) return false;
    const AttrValue::ListValue& l = v.list();
    if (NumListKinds(l) == 0) return true;  // Empty list fits any list kind.
    return NumListKinds(l) == 1 && AttrValueKind(v) == kind;
  }
  return AttrValueKind(v) == kind;
}

bool IsValidValueType(int t) {
  return t != DT_INVALID && DataType_IsValid(t) &&
         !IsRefType(static_cast<DataType>(t));
}

absl::Status AttrError(const NodeDef& def, absl::string_view attr,
                       absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Attr '", attr, "' of ", FormatNodeName(def.name()), " ", why));
}

// The attr value, or NotFound naming the node.
absl::Status FindAttrOrError(const NodeDef& def, absl::string_view name,
                             const AttrValue** out) {
  const AttrValue* v = FindNodeAttr(def, name);
  if (v == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "No attr named '", name, "' in NodeDef: ", SummarizeNodeDef(def)));
  }
  *out = v;
  return absl::OkStatus();
}

absl::Status GetTyped(const NodeDef& def, absl::string_view name,
                      absl::string_view kind, const AttrValue** out) {
  SF_RETURN_IF_ERROR(FindAttrOrError(def, name, out));
  if (!ValueHasKind(**out, kind)) {
    return AttrError(
        def, name,
        absl::StrCat("has value ", SummarizeAttrValue(**out), " of kind ",
                     AttrValueKind(**out), " but ", kind, " was expected"));
  }
  return absl::OkStatus();
}

// Attr from the node, else the op's default; null if neither.
const AttrValue* AttrOrDefault(const NodeDef& def, const OpDef& op_def,
                               absl::string_view name) {
  const AttrValue* v = FindNodeAttr(def, name);
  if (v != nullptr) return v;
  for (const auto& attr : op_def.attr()) {
    if (attr.name() == name && attr.has_default_value()) {
      return &attr.default_value();
    }
  }
  return nullptr;
}

absl::Status MissingAttr(const NodeDef& def, absl::string_view name) {
  return absl::NotFoundError(absl::StrCat(
      "No attr named '", name, "' in NodeDef: ", SummarizeNodeDef(def)));
}

// Number of tensors `arg` expands to for `def`.
absl::Status ArgLength(const NodeDef& def, const OpDef& op_def,
                       const OpDef::ArgDef& arg, int64_t* n) {
  if (!arg.number_attr().empty()) {
    const AttrValue* v = AttrOrDefault(def, op_def, arg.number_attr());
    if (v == nullptr) return MissingAttr(def, arg.number_attr());
    if (v->value_case() != AttrValue::kI) {
      return AttrError(def, arg.number_attr(), "must be an int");
    }
    if (v->i() < 0 || v->i() > kMaxListLength) {
      return AttrError(def, arg.number_attr(),
                       absl::StrCat("has invalid list length ", v->i()));
    }
    *n = v->i();
    return absl::OkStatus();
  }
  if (!arg.type_list_attr().empty()) {
    const AttrValue* v = AttrOrDefault(def, op_def, arg.type_list_attr());
    if (v == nullptr) return MissingAttr(def, arg.type_list_attr());
    if (!ValueHasKind(*v, "list(type)")) {
      return AttrError(def, arg.type_list_attr(), "must be a list(type)");
    }
    *n = v->list().type_size();
    return absl::OkStatus();
  }
  *n = 1;
  return absl::OkStatus();
}

absl::Status AddArgToSig(const NodeDef& def, const OpDef& op_def,
                         const OpDef::ArgDef& arg, DataTypeVector* sig) {
  const size_t start = sig->size();
  if (!arg.type_list_attr().empty()) {
    const AttrValue* v = AttrOrDefault(def, op_def, arg.type_list_attr());
    if (v == nullptr) return MissingAttr(def, arg.type_list_attr());
    if (!ValueHasKind(*v, "list(type)")) {
      return AttrError(def, arg.type_list_attr(), "must be a list(type)");
    }
    for (int t : v->list().type()) {
      if (!IsValidValueType(t)) {
        return AttrError(def, arg.type_list_attr(),
                         absl::StrCat("has invalid type ", TypeName(t)));
      }
      sig->push_back(static_cast<DataType>(t));
    }
  } else {
    DataType dt = arg.type();
    if (!arg.type_attr().empty()) {
      const AttrValue* v = AttrOrDefault(def, op_def, arg.type_attr());
      if (v == nullptr) return MissingAttr(def, arg.type_attr());
      if (v->value_case() != AttrValue::kType) {
        return AttrError(def, arg.type_attr(), "must be a type");
      }
      if (!IsValidValueType(v->type())) {
        return AttrError(
            def, arg.type_attr(),
            absl::StrCat("has invalid type ", TypeName(v->type())));
      }
      dt = v->type();
    }
    if (dt == DT_INVALID) {
      return absl::InvalidArgumentError(
          absl::StrCat("Arg '", arg.name(), "' of op ", op_def.name(),
                       " has no type; ", FormatNodeName(def.name())));
    }
    int64_t n = 1;
    if (!arg.number_attr().empty()) {
      SF_RETURN_IF_ERROR(ArgLength(def, op_def, arg, &n));
    }
    sig->insert(sig->end(), n, dt);
  }
  if (arg.is_ref()) {
    for (size_t i = start; i < sig->size(); ++i)
      (*sig)[i] = MakeRefType((*sig)[i]);
  }
  return absl::OkStatus();
}

std::string SummarizeOpDef(const OpDef& op_def) {
  auto arg_str = [](std::string* out, const OpDef::ArgDef& a) {
    absl::StrAppend(out, a.name(), ":");
    if (a.is_ref()) out->append("Ref(");
    if (!a.number_attr().empty()) absl::StrAppend(out, a.number_attr(), "*");
    if (a.type() != DT_INVALID) {
      out->append(DataTypeString(a.type()));
    } else if (!a.type_attr().empty()) {
      out->append(a.type_attr());
    } else {
      out->append(a.type_list_attr());
    }
    if (a.is_ref()) out->append(")");
  };
  std::string out = absl::StrCat(
      "Op<name=", op_def.name(),
      "; signature=", absl::StrJoin(op_def.input_arg(), ", ", arg_str), " -> ",
      absl::StrJoin(op_def.output_arg(), ", ", arg_str));
  for (const auto& attr : op_def.attr()) {
    absl::StrAppend(&out, "; attr=", attr.name(), ":", attr.type());
    if (attr.has_default_value()) {
      absl::StrAppend(&out,
                      ",default=", SummarizeAttrValue(attr.default_value()));
    }
    if (attr.has_minimum()) absl::StrAppend(&out, ",min=", attr.minimum());
    if (attr.has_allowed_values()) {
      absl::StrAppend(&out,
                      ",allowed=", SummarizeAttrValue(attr.allowed_values()));
    }
  }
  out.append(">");
  return out;
}

// Kind, allowed-values and minimum checks of one attr value.
absl::Status ValidateAttrValue(const NodeDef& def, const OpDef::AttrDef& attr,
                               const AttrValue& v) {
  if (!ValueHasKind(v, attr.type())) {
    return AttrError(
        def, attr.name(),
        absl::StrCat("has value ", SummarizeAttrValue(v), " of kind ",
                     AttrValueKind(v), " but op ", "expects ", attr.type()));
  }
  if (attr.type() == "type" && !IsValidValueType(v.type())) {
    return AttrError(def, attr.name(),
                     absl::StrCat("has invalid type ", TypeName(v.type())));
  }
  if (attr.type() == "list(type)") {
    for (int t : v.list().type()) {
      if (!IsValidValueType(t)) {
        return AttrError(def, attr.name(),
                         absl::StrCat("has invalid type ", TypeName(t)));
      }
    }
  }
  if (attr.has_minimum()) {
    if (attr.type() == "int" && v.i() < attr.minimum()) {
      return AttrError(def, attr.name(),
                       absl::StrCat("has value ", v.i(), " less than minimum ",
                                    attr.minimum()));
    }
    if (absl::StartsWith(attr.type(), "list(") &&
        ListLength(v.list()) < attr.minimum()) {
      return AttrError(def, attr.name(),
                       absl::StrCat("has length ", ListLength(v.list()),
                                    " shorter than minimum ", attr.minimum()));
    }
  }
  if (attr.has_allowed_values()) {
    const AttrValue::ListValue& allowed = attr.allowed_values().list();
    auto type_ok = [&](int t) {
      return std::find(allowed.type().begin(), allowed.type().end(), t) !=
             allowed.type().end();
    };
    auto str_ok = [&](const std::string& s) {
      return std::find(allowed.s().begin(), allowed.s().end(), s) !=
             allowed.s().end();
    };
    auto not_allowed = [&](const std::string& what) {
      return AttrError(def, attr.name(),
                       absl::StrCat("has value ", what,
                                    " that is not in the list of allowed "
                                    "values: ",
                                    SummarizeAttrValue(attr.allowed_values())));
    };
    if (attr.type() == "type" && !type_ok(v.type())) {
      return not_allowed(TypeName(v.type()));
    }
    if (attr.type() == "list(type)") {
      for (int t : v.list().type()) {
        if (!type_ok(t)) return not_allowed(TypeName(t));
      }
    }
    if (attr.type() == "string" && !str_ok(v.s()))
      return not_allowed(Quote(v.s()));
    if (attr.type() == "list(string)") {
      for (const std::string& s : v.list().s()) {
        if (!str_ok(s)) return not_allowed(Quote(s));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateNodeName(absl::string_view name) {
  bool ok = !name.empty();
  for (size_t i = 0; ok && i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (absl::ascii_isalnum(c) || c == '.') continue;
    if (i > 0 && (c == '_' || c == '/' || c == '-')) continue;
    ok = false;
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Node name '", absl::CEscape(name),
        "' is invalid: it must match [A-Za-z0-9.][A-Za-z0-9_./-]*"));
  }
  return absl::OkStatus();
}

std::string FormatNodeName(absl::string_view name) {
  return absl::StrCat("{{node ", name, "}}");
}

absl::Status AttachDef(const absl::Status& status,
                       absl::string_view node_name) {
  if (status.ok()) return status;
  const std::string tag = FormatNodeName(node_name);
  const absl::string_view message = status.message();
  if (absl::StrContains(message, tag)) return status;
  const absl::string_view attached =
      absl::StrContains(message, "{{node ") ? node_name : tag;
  return absl::Status(status.code(),
                      absl::StrCat(message, "\n\t [[", attached, "]]"));
}

std::string SummarizeAttrValue(const AttrValue& v) {
  switch (v.value_case()) {
    case AttrValue::kS:
      return Quote(v.s());
    case AttrValue::kI:
      return absl::StrCat(v.i());
    case AttrValue::kF:
      return absl::StrCat(v.f());
    case AttrValue::kB:
      return v.b() ? "true" : "false";
    case AttrValue::kType:
      return TypeName(v.type());
    case AttrValue::kShape:
      return ShapeString(v.shape());
    case AttrValue::kTensor:
      return TensorSummary(v.tensor());
    case AttrValue::kFunc:
      return v.func().name();
    case AttrValue::kPlaceholder:
      return absl::StrCat("$", v.placeholder());
    case AttrValue::kList: {
      const AttrValue::ListValue& l = v.list();
      std::vector<std::string> items;
      for (const auto& s : l.s()) items.push_back(Quote(s));
      for (int64_t i : l.i()) items.push_back(absl::StrCat(i));
      for (float f : l.f()) items.push_back(absl::StrCat(f));
      for (bool b : l.b()) items.push_back(b ? "true" : "false");
      for (int t : l.type()) items.push_back(TypeName(t));
      for (const auto& s : l.shape()) items.push_back(ShapeString(s));
      for (const auto& t : l.tensor()) items.push_back(TensorSummary(t));
      for (const auto& f : l.func()) items.push_back(f.name());
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    }
    default:
      return "<Unknown AttrValue type>";
  }
}

std::string SummarizeNodeDef(const NodeDef& def) {
  // Attrs sorted by name (the proto map has no defined order).
  std::map<std::string, const AttrValue*> attrs;
  for (const auto& [name, value] : def.attr()) attrs[name] = &value;
  std::string out =
      absl::StrCat(FormatNodeName(def.name()), " = ", def.op(), "[");
  bool first = true;
  for (const auto& [name, value] : attrs) {
    if (!first) out.append(", ");
    first = false;
    absl::StrAppend(&out, name, "=", SummarizeAttrValue(*value));
  }
  absl::StrAppend(&out, "](", absl::StrJoin(def.input(), ", "), ")");
  if (!def.device().empty()) absl::StrAppend(&out, " @ ", def.device());
  return out;
}

bool HasNodeAttr(const NodeDef& def, absl::string_view name) {
  return FindNodeAttr(def, name) != nullptr;
}

const AttrValue* FindNodeAttr(const NodeDef& def, absl::string_view name) {
  auto it = def.attr().find(std::string(name));
  return it == def.attr().end() ? nullptr : &it->second;
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::string* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "string", &a));
  *v = a->s();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         int64_t* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "int", &a));
  *v = a->i();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         int32_t* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "int", &a));
  if (a->i() < std::numeric_limits<int32_t>::min() ||
      a->i() > std::numeric_limits<int32_t>::max()) {
    return AttrError(def, name,
                     absl::StrCat("value ", a->i(), " is out of int32 range"));
  }
  *v = static_cast<int32_t>(a->i());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, float* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "float", &a));
  *v = a->f();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, bool* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "bool", &a));
  *v = a->b();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         DataType* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "type", &a));
  if (!DataType_IsValid(a->type())) {
    return AttrError(def, name,
                     absl::StrCat("has invalid type ", TypeName(a->type())));
  }
  *v = a->type();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         TensorShape* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "shape", &a));
  absl::Status s = TensorShape::FromProto(a->shape(), v);
  if (!s.ok()) return AttrError(def, name, s.message());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         PartialTensorShape* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "shape", &a));
  absl::Status s = PartialTensorShape::FromProto(a->shape(), v);
  if (!s.ok()) return AttrError(def, name, s.message());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         TensorProto* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "tensor", &a));
  *v = a->tensor();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<std::string>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(string)", &a));
  v->assign(a->list().s().begin(), a->list().s().end());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<int64_t>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(int)", &a));
  v->assign(a->list().i().begin(), a->list().i().end());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<int32_t>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(int)", &a));
  v->clear();
  for (int64_t i : a->list().i()) {
    if (i < std::numeric_limits<int32_t>::min() ||
        i > std::numeric_limits<int32_t>::max()) {
      return AttrError(def, name,
                       absl::StrCat("value ", i, " is out of int32 range"));
    }
    v->push_back(static_cast<int32_t>(i));
  }
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<float>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(float)", &a));
  v->assign(a->list().f().begin(), a->list().f().end());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<DataType>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(type)", &a));
  v->clear();
  for (int t : a->list().type()) {
    if (!DataType_IsValid(t)) {
      return AttrError(def, name,
                       absl::StrCat("has invalid type ", TypeName(t)));
    }
    v->push_back(static_cast<DataType>(t));
  }
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<TensorShape>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(shape)", &a));
  v->clear();
  for (const auto& p : a->list().shape()) {
    TensorShape shape;
    absl::Status s = TensorShape::FromProto(p, &shape);
    if (!s.ok()) return AttrError(def, name, s.message());
    v->push_back(shape);
  }
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<PartialTensorShape>* v) {
  const AttrValue* a;
  SF_RETURN_IF_ERROR(GetTyped(def, name, "list(shape)", &a));
  v->clear();
  for (const auto& p : a->list().shape()) {
    PartialTensorShape shape;
    absl::Status s = PartialTensorShape::FromProto(p, &shape);
    if (!s.ok()) return AttrError(def, name, s.message());
    v->push_back(shape);
  }
  return absl::OkStatus();
}

void AddNodeAttr(absl::string_view name, const AttrValue& v, NodeDef* def) {
  (*def->mutable_attr())[std::string(name)] = v;
}

namespace {

// Sets attr `name` of `def` to the value `fill` writes into an empty
// AttrValue. A new attr is filled in place in the map (no temporary copied
// in); an existing one is replaced only after `fill` ran, so a value that
// refers into `def` itself is read before it changes.
template <typename Fill>
void SetAttr(absl::string_view name, NodeDef* def, Fill fill) {
  auto [it, inserted] = def->mutable_attr()->try_emplace(std::string(name));
  if (inserted) {
    fill(&it->second);
    return;
  }
  AttrValue value;
  fill(&value);
  it->second = std::move(value);
}

}  // namespace

void AddNodeAttr(absl::string_view name, const std::string& v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_s(v); });
}

void AddNodeAttr(absl::string_view name, const char* v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_s(v); });
}

void AddNodeAttr(absl::string_view name, int64_t v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_i(v); });
}

void AddNodeAttr(absl::string_view name, int v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_i(v); });
}

void AddNodeAttr(absl::string_view name, float v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_f(v); });
}

void AddNodeAttr(absl::string_view name, bool v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_b(v); });
}

void AddNodeAttr(absl::string_view name, DataType v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { a->set_type(v); });
}

void AddNodeAttr(absl::string_view name, const TensorShape& v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { v.AsProto(a->mutable_shape()); });
}

void AddNodeAttr(absl::string_view name, const TensorProto& v, NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) { *a->mutable_tensor() = v; });
}

void AddNodeAttr(absl::string_view name, const std::vector<std::string>& v,
                 NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) {
    AttrValue::ListValue* list = a->mutable_list();
    for (const auto& s : v) list->add_s(s);
  });
}

void AddNodeAttr(absl::string_view name, const std::vector<int64_t>& v,
                 NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) {
    AttrValue::ListValue* list = a->mutable_list();
    for (int64_t i : v) list->add_i(i);
  });
}

void AddNodeAttr(absl::string_view name, const std::vector<DataType>& v,
                 NodeDef* def) {
  SetAttr(name, def, [&](AttrValue* a) {
    AttrValue::ListValue* list = a->mutable_list();
    for (DataType t : v) list->add_type(t);
  });
}

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* def) {
  for (const auto& attr : op_def.attr()) {
    if (attr.has_default_value() && !HasNodeAttr(*def, attr.name())) {
      AddNodeAttr(attr.name(), attr.default_value(), def);
    }
  }
}

bool HasAllAttrDefaults(const OpDef& op_def, const NodeDef& def) {
  for (const auto& attr : op_def.attr()) {
    if (attr.has_default_value() && !HasNodeAttr(def, attr.name())) {
      return false;
    }
  }
  return true;
}

int NumDataInputs(const NodeDef& def) {
  int n = 0;
  for (const auto& in : def.input()) {
    if (in.empty() || in[0] != '^') ++n;
  }
  return n;
}

absl::Status ValidateNodeDef(const NodeDef& def, const OpDef& op_def) {
  if (def.op() != op_def.name()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NodeDef op '", def.op(), "' does not match ", SummarizeOpDef(op_def),
        "; NodeDef: ", SummarizeNodeDef(def)));
  }
  bool seen_control = false;
  for (const auto& in : def.input()) {
    if (in.empty() || in == "^") {
      return absl::InvalidArgumentError(
          absl::StrCat("Empty input name in NodeDef: ", SummarizeNodeDef(def)));
    }
    if (in[0] == '^') {
      seen_control = true;
    } else if (seen_control) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Non-control input '", in,
          "' after control input in NodeDef: ", SummarizeNodeDef(def)));
    }
  }
  std::set<std::string, std::less<>> op_attrs;
  for (const auto& attr : op_def.attr()) {
    op_attrs.insert(attr.name());
    const AttrValue* v = FindNodeAttr(def, attr.name());
    if (v == nullptr) {
      if (attr.has_default_value()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "NodeDef missing attr '", attr.name(), "' from ",
          SummarizeOpDef(op_def), "; NodeDef: ", SummarizeNodeDef(def)));
    }
    SF_RETURN_IF_ERROR(ValidateAttrValue(def, attr, *v));
  }
  // Sorted so the first reported unknown attr is deterministic.
  std::set<std::string> node_attrs;
  for (const auto& [name, value] : def.attr()) node_attrs.insert(name);
  for (const std::string& name : node_attrs) {
    if (absl::StartsWith(name, "_")) continue;
    if (op_attrs.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "NodeDef mentions attr '", name, "' not in ", SummarizeOpDef(op_def),
          "; NodeDef: ", SummarizeNodeDef(def)));
    }
  }
  int64_t expected = 0;
  for (const auto& arg : op_def.input_arg()) {
    int64_t n = 0;
    SF_RETURN_IF_ERROR(ArgLength(def, op_def, arg, &n));
    expected += n;
  }
  const int actual = NumDataInputs(def);
  if (expected != actual) {
    DataTypeVector inputs;
    std::string expected_types;
    for (const auto& arg : op_def.input_arg()) {
      if (!AddArgToSig(def, op_def, arg, &inputs).ok()) break;
    }
    if (static_cast<int64_t>(inputs.size()) == expected) {
      expected_types = absl::StrCat(" '", DataTypeVectorString(inputs), "'");
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "NodeDef expected ", expected, " inputs", expected_types, " but ",
        actual, " inputs specified; ", SummarizeOpDef(op_def),
        "; NodeDef: ", SummarizeNodeDef(def)));
  }
  return absl::OkStatus();
}

absl::Status InOutTypesForNode(const NodeDef& def, const OpDef& op_def,
                               DataTypeVector* inputs,
                               DataTypeVector* outputs) {
  inputs->clear();
  for (const auto& arg : op_def.input_arg()) {
    SF_RETURN_IF_ERROR(AddArgToSig(def, op_def, arg, inputs));
  }
  return OutputTypesForNode(def, op_def, outputs);
}

absl::Status OutputTypesForNode(const NodeDef& def, const OpDef& op_def,
                                DataTypeVector* outputs) {
  outputs->clear();
  for (const auto& arg : op_def.output_arg()) {
    SF_RETURN_IF_ERROR(AddArgToSig(def, op_def, arg, outputs));
  }
  return absl::OkStatus();
}

absl::Status NameRangesForNode(const NodeDef& def, const OpDef& op_def,
                               NameRangeMap* inputs, NameRangeMap* outputs) {
  auto fill = [&](const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
                  NameRangeMap* map) -> absl::Status {
    if (map == nullptr) return absl::OkStatus();
    map->clear();
    int64_t start = 0;
    for (const auto& arg : args) {
      int64_t n = 0;
      SF_RETURN_IF_ERROR(ArgLength(def, op_def, arg, &n));
      (*map)[arg.name()] = {static_cast<int>(start),
                            static_cast<int>(start + n)};
      start += n;
    }
    return absl::OkStatus();
  };
  SF_RETURN_IF_ERROR(fill(op_def.input_arg(), inputs));
  return fill(op_def.output_arg(), outputs);
}

absl::Status ArgRangesForNode(const NodeDef& def, const OpDef& op_def,
                              ArgRanges* inputs, ArgRanges* outputs) {
  auto fill = [&](const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
                  ArgRanges* ranges) -> absl::Status {
    ranges->clear();
    int64_t start = 0;
    for (const auto& arg : args) {
      int64_t n = 0;
      SF_RETURN_IF_ERROR(ArgLength(def, op_def, arg, &n));
      ranges->emplace_back(static_cast<int>(start),
                           static_cast<int>(start + n));
      start += n;
    }
    return absl::OkStatus();
  };
  SF_RETURN_IF_ERROR(fill(op_def.input_arg(), inputs));
  return fill(op_def.output_arg(), outputs);
}

}  // namespace stepflow
