#include "runtime/function/inline_function.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/function/lowering_nodes.h"

namespace stepflow {
namespace {

std::string TypesString(const DataTypeVector& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    absl::StrAppend(&s, i == 0 ? "" : ", ", DataTypeString(types[i]));
  }
  return absl::StrCat(s, "]");
}

absl::Status CheckTypes(const NodeDef& call, const FunctionBody& body,
                        const char* attr, const DataTypeVector& expected) {
  const AttrValue* value = FindNodeAttr(call, attr);
  if (value == nullptr) return absl::OkStatus();
  DataTypeVector declared;
  for (int t : value->list().type())
    declared.push_back(static_cast<DataType>(t));
  if (declared == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      FormatNodeName(call.name()), ": attr '", attr, "' is ",
      TypesString(declared), " but function '", body.function_name, "' has ",
      attr[1] == 'i' ? "arguments " : "results ", TypesString(expected)));
}

// "x", "x:i" or "^x" with x renamed to prefix + x.
std::string Prefixed(const std::string& prefix, const std::string& input) {
  if (!input.empty() && input[0] == '^') {
    return absl::StrCat("^", prefix, input.substr(1));
  }
  return absl::StrCat(prefix, input);
}

}  // namespace

absl::Status InlineFunctionCall(const NodeDef& call, const FunctionBody& body,
                                std::vector<NodeDef>* out) {
  std::vector<std::string> data, controls;
  for (const std::string& in : call.input()) {
    (!in.empty() && in[0] == '^' ? controls : data).push_back(in);
  }
  if (data.size() != body.arg_nodes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FormatNodeName(call.name()), ": function '",
                     body.function_name, "' takes ", body.arg_nodes.size(),
                     " arguments but the call passes ", data.size()));
  }
  absl::Status s = CheckTypes(call, body, "Tin", body.arg_types);
  if (s.ok()) s = CheckTypes(call, body, "Tout", body.ret_types);
  if (!s.ok()) return s;

  const std::string prefix = absl::StrCat(call.name(), "/");
  std::set<std::string> names;
  for (const NodeDef& n : body.nodes) names.insert(n.name());
  std::string control_name;
  if (!data.empty() || !controls.empty()) {
    control_name = "input_control_node";
    for (int i = 1; names.count(control_name) > 0; ++i) {
      control_name = absl::StrCat("input_control_node_", i);
    }
    control_name = absl::StrCat(prefix, control_name);
  }

  int arg = 0;
  for (const NodeDef& in : body.nodes) {
    NodeDef n;
    n.set_name(absl::StrCat(prefix, in.name()));
    n.set_device(in.device().empty() ? call.device() : in.device());
    if (arg < static_cast<int>(body.arg_nodes.size()) &&
        in.name() == body.arg_nodes[arg]) {
      n.set_op("Identity");
      n.add_input(data[arg]);
      for (const std::string& c : controls) n.add_input(c);
      AddNodeAttr("T", body.arg_types[arg], &n);
      ++arg;
      out->push_back(std::move(n));
      continue;
    }
    n.set_op(in.op());
    *n.mutable_attr() = in.attr();
    *n.mutable_experimental_debug_info() = in.experimental_debug_info();
    for (const std::string& input : in.input()) {
      n.add_input(Prefixed(prefix, input));
    }
    if (in.input_size() == 0 && !control_name.empty()) {
      n.add_input(absl::StrCat("^", control_name));
    }
    auto cls = n.mutable_attr()->find("_class");
    if (cls != n.mutable_attr()->end()) {
      for (std::string& entry : *cls->second.mutable_list()->mutable_s()) {
        absl::string_view target = entry;
        if (absl::ConsumePrefix(&target, "loc:@") &&
            names.count(std::string(target)) > 0) {
          entry = absl::StrCat("loc:@", prefix, target);
        }
      }
    }
    out->push_back(std::move(n));
  }

  if (!control_name.empty()) {
    NodeDef c;
    c.set_name(control_name);
    c.set_op("NoOp");
    c.set_device(call.device());
    // The call's controls, then every argument: an argument the body never
    // reads is still computed, as a call waits for all of its inputs.
    for (const std::string& in : controls) c.add_input(in);
    for (const std::string& a : body.arg_nodes) {
      c.add_input(absl::StrCat("^", prefix, a));
    }
    out->push_back(std::move(c));
  }

  std::vector<std::string> outputs, waits;
  for (const std::string& t : body.ret_tensors) {
    outputs.push_back(Prefixed(prefix, t));
  }
  AttrValue types;
  for (DataType t : body.ret_types) types.mutable_list()->add_type(t);
  for (const std::string& node : body.control_ret_nodes) {
    waits.push_back(absl::StrCat(prefix, node));
  }
  if (!control_name.empty()) waits.push_back(control_name);
  out->push_back(
      LoweredResult(call.name(), call.device(), outputs, types, waits));
  return absl::OkStatus();
}

}  // namespace stepflow
