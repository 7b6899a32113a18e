#include "runtime/function/function_def_validation.h"

#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/function_library.h"

namespace stepflow {
namespace {

absl::Status Invalid(const FunctionDef& fdef, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("Function '", fdef.signature().name(), "': ", message));
}

absl::Status CheckArg(const FunctionDef& fdef, const OpDef::ArgDef& arg,
                      const std::set<std::string>& attrs) {
  const int ways = (arg.type() != DT_INVALID ? 1 : 0) +
                   (arg.type_attr().empty() ? 0 : 1) +
                   (arg.type_list_attr().empty() ? 0 : 1);
  if (arg.name().empty()) return Invalid(fdef, "an argument has no name");
  if (ways != 1) {
    return Invalid(fdef, absl::StrCat("argument '", arg.name(),
                                      "' must set exactly one of type, "
                                      "type_attr and type_list_attr"));
  }
  for (const std::string* a :
       {&arg.type_attr(), &arg.number_attr(), &arg.type_list_attr()}) {
    if (!a->empty() && attrs.count(*a) == 0) {
      return Invalid(fdef,
                     absl::StrCat("argument '", arg.name(),
                                  "' refers to undeclared attr '", *a, "'"));
    }
  }
  return absl::OkStatus();
}

// Placeholders ("$T") anywhere in `value` must name declared attrs.
absl::Status CheckPlaceholders(const FunctionDef& fdef, const NodeDef& node,
                               const AttrValue& value,
                               const std::set<std::string>& attrs) {
  if (value.value_case() == AttrValue::kPlaceholder &&
      attrs.count(value.placeholder()) == 0) {
    return Invalid(
        fdef, absl::StrCat(FormatNodeName(node.name()),
                           " uses attr placeholder '$", value.placeholder(),
                           "', which the signature does not "
                           "declare"));
  }
  if (value.has_func()) {
    for (const auto& [name, inner] : value.func().attr()) {
      absl::Status s = CheckPlaceholders(fdef, node, inner, attrs);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FunctionRef> ParseFunctionRef(absl::string_view text) {
  FunctionRef ref;
  if (!text.empty() && text[0] == '^') {
    ref.control = true;
    text.remove_prefix(1);
  }
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  bool ok = !parts.empty() && !parts[0].empty() && parts.size() <= 3 &&
            !(ref.control && parts.size() > 1);
  if (ok) ref.name = parts[0];
  if (ok && parts.size() == 2) {
    // "arg:i" or "node:out".
    int index = 0;
    if (absl::SimpleAtoi(parts[1], &index)) {
      ok = index >= 0;
      ref.index = index;
    } else {
      ok = !parts[1].empty();
      ref.output_arg = parts[1];
    }
  }
  if (ok && parts.size() == 3) {
    ok = !parts[1].empty() && absl::SimpleAtoi(parts[2], &ref.index) &&
         ref.index >= 0;
    ref.output_arg = parts[1];
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("Malformed function reference '", text,
                     "': expected 'arg', 'arg:i', 'node:out' or "
                     "'node:out:i'"));
  }
  return ref;
}

absl::Status ValidateFunctionDef(const FunctionDef& fdef,
                                 const FunctionLibrary& library) {
  const OpDef& sig = fdef.signature();
  if (sig.name().empty()) {
    return absl::InvalidArgumentError("A library function has no name");
  }
  if (library.op_registry()->LookUpOrNull(sig.name()) != nullptr) {
    return Invalid(fdef, "a registered op has the same name");
  }
  std::set<std::string> attrs;
  for (const OpDef::AttrDef& a : sig.attr()) attrs.insert(a.name());
  std::set<std::string> inputs, outputs, nodes;
  for (const OpDef::ArgDef& arg : sig.input_arg()) {
    absl::Status s = CheckArg(fdef, arg, attrs);
    if (!s.ok()) return s;
    if (!inputs.insert(arg.name()).second) {
      return Invalid(
          fdef, absl::StrCat("duplicate input argument '", arg.name(), "'"));
    }
  }
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    absl::Status s = CheckArg(fdef, arg, attrs);
    if (!s.ok()) return s;
    if (!outputs.insert(arg.name()).second) {
      return Invalid(
          fdef, absl::StrCat("duplicate output argument '", arg.name(), "'"));
    }
  }
  for (const NodeDef& node : fdef.node_def()) {
    if (node.name().empty()) return Invalid(fdef, "a node has no name");
    if (inputs.count(node.name()) > 0 || !nodes.insert(node.name()).second) {
      return Invalid(fdef, absl::StrCat("duplicate node or argument name '",
                                        node.name(), "'"));
    }
    if (library.LookUpSignature(node.op()) == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "Function '", sig.name(), "': ", FormatNodeName(node.name()),
          " uses op '", node.op(),
          "', which is neither registered in this binary nor a library "
          "function"));
    }
    for (const auto& [name, value] : node.attr()) {
      absl::Status s = CheckPlaceholders(fdef, node, value, attrs);
      if (!s.ok()) return s;
    }
  }
  auto check_ref = [&](const std::string& where,
                       const std::string& text) -> absl::Status {
    absl::StatusOr<FunctionRef> ref = ParseFunctionRef(text);
    if (!ref.ok())
      return Invalid(fdef, absl::StrCat(where, ref.status().message()));
    const bool is_arg = inputs.count(ref->name) > 0;
    const bool is_node = nodes.count(ref->name) > 0;
    if (!is_arg && !is_node) {
      return Invalid(fdef, absl::StrCat(where, "'", text,
                                        "' names no argument or node of the "
                                        "function"));
    }
    if (!ref->control && is_node && ref->output_arg.empty()) {
      return Invalid(fdef, absl::StrCat(where, "'", text,
                                        "' must name an output argument of "
                                        "the node ('node:out' or "
                                        "'node:out:i')"));
    }
    if (is_arg && !ref->output_arg.empty()) {
      return Invalid(fdef, absl::StrCat(where, "'", text,
                                        "': argument references take no "
                                        "output name"));
    }
    return absl::OkStatus();
  };
  for (const NodeDef& node : fdef.node_def()) {
    const std::string where =
        absl::StrCat(FormatNodeName(node.name()), " input ");
    bool seen_control = false;
    for (const std::string& in : node.input()) {
      absl::Status s = check_ref(where, in);
      if (!s.ok()) return s;
      const bool control = !in.empty() && in[0] == '^';
      if (seen_control && !control) {
        return Invalid(fdef, absl::StrCat(where, "'", in,
                                          "' comes after a control input"));
      }
      seen_control |= control;
    }
  }
  for (const auto& [name, value] : fdef.ret()) {
    if (outputs.count(name) == 0) {
      return Invalid(
          fdef, absl::StrCat("ret '", name, "' is not an output argument"));
    }
    if (!value.empty() && value[0] == '^') {
      return Invalid(
          fdef, absl::StrCat("ret '", name, "' may not be a control input"));
    }
    absl::Status s = check_ref(absl::StrCat("ret '", name, "': "), value);
    if (!s.ok()) return s;
  }
  for (const std::string& out : outputs) {
    if (fdef.ret().count(out) == 0) {
      return Invalid(
          fdef, absl::StrCat("output argument '", out, "' has no ret entry"));
    }
  }
  std::set<std::string> control_outputs(sig.control_output().begin(),
                                        sig.control_output().end());
  for (const auto& [name, node] : fdef.control_ret()) {
    if (control_outputs.count(name) == 0) {
      return Invalid(fdef, absl::StrCat("control_ret '", name,
                                        "' is not a control output"));
    }
    if (nodes.count(node) == 0) {
      return Invalid(fdef, absl::StrCat("control_ret '", name,
                                        "' names unknown node '", node, "'"));
    }
  }
  for (const std::string& name : control_outputs) {
    if (fdef.control_ret().count(name) == 0) {
      return Invalid(fdef, absl::StrCat("control output '", name,
                                        "' has no control_ret entry"));
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
