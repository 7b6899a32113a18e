#include "runtime/function/instantiate.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/function_def_validation.h"

namespace stepflow {
namespace {

class Instantiator {
 public:
  Instantiator(const FunctionLibrary& library, const FunctionDef& fdef,
               FunctionBody* body)
      : library_(library), fdef_(fdef), body_(body) {}

  absl::Status Run(const CallAttrs& call_attrs) {
    const OpDef& sig = fdef_.signature();
    body_->function_name = sig.name();
    // The call's attrs, completed with the signature's defaults.
    attrs_ = call_attrs;
    for (const OpDef::AttrDef& a : sig.attr()) {
      if (attrs_.count(a.name()) == 0 && a.has_default_value()) {
        attrs_[a.name()] = a.default_value();
      }
    }
    // Argument and result types via a NodeDef carrying the call's attrs.
    NodeDef call;
    call.set_name(sig.name());
    call.set_op(sig.name());
    *call.mutable_attr() = attrs_;
    absl::Status s =
        InOutTypesForNode(call, sig, &body_->arg_types, &body_->ret_types);
    if (!s.ok()) return Error(s.message());
    NameRangeMap in_ranges, out_ranges;
    s = NameRangesForNode(call, sig, &in_ranges, &out_ranges);
    if (!s.ok()) return Error(s.message());

    for (const OpDef::ArgDef& arg : sig.input_arg()) {
      const auto& range = in_ranges.at(arg.name());
      const bool list =
          !arg.number_attr().empty() || !arg.type_list_attr().empty();
      std::vector<std::string>& tensors = refs_[arg.name()];
      for (int i = range.first; i < range.second; ++i) {
        NodeDef node;
        node.set_name(list ? absl::StrCat(arg.name(), "_", i - range.first)
                           : arg.name());
        node.set_op("_Arg");
        AddNodeAttr("T", body_->arg_types[i], &node);
        AddNodeAttr("index", static_cast<int64_t>(i), &node);
        tensors.push_back(node.name());
        body_->arg_nodes.push_back(node.name());
        body_->nodes.push_back(std::move(node));
      }
    }
    // Output ranges of every node, so references can be flattened.
    for (const NodeDef& in : fdef_.node_def()) {
      NodeDef node = in;
      for (auto& [name, value] : *node.mutable_attr()) {
        s = Substitute(node, &value);
        if (!s.ok()) return s;
      }
      const OpDef* op_def = library_.LookUpSignature(node.op());
      if (op_def == nullptr) {
        return absl::NotFoundError(absl::StrCat(
            "Function '", sig.name(), "': ", FormatNodeName(node.name()),
            " uses unknown op '", node.op(), "'"));
      }
      if (library_.op_registry()->LookUpOrNull(node.op()) != nullptr) {
        AddDefaultsToNodeDef(*op_def, &node);
      }
      NameRangeMap unused, outputs;
      s = NameRangesForNode(node, *op_def, &unused, &outputs);
      if (!s.ok()) return NodeError(node, s.message());
      for (const auto& [out, range] : outputs) {
        std::vector<std::string>& tensors =
            refs_[absl::StrCat(node.name(), ":", out)];
        for (int i = range.first; i < range.second; ++i) {
          tensors.push_back(absl::StrCat(node.name(), ":", i));
        }
      }
      body_->nodes.push_back(std::move(node));
    }
    for (size_t k = body_->arg_nodes.size(); k < body_->nodes.size(); ++k) {
      s = ResolveInputs(&body_->nodes[k]);
      if (!s.ok()) return s;
    }
    for (const OpDef::ArgDef& arg : sig.output_arg()) {
      const auto& range = out_ranges.at(arg.name());
      std::vector<std::string> tensors;
      s = Resolve(fdef_.ret().at(arg.name()), &tensors);
      if (!s.ok())
        return Error(absl::StrCat("ret '", arg.name(), "': ", s.message()));
      if (static_cast<int>(tensors.size()) != range.second - range.first) {
        return Error(absl::StrCat("ret '", arg.name(), "' gives ",
                                  tensors.size(),
                                  " tensors but the output "
                                  "argument has ",
                                  range.second - range.first));
      }
      for (std::string& t : tensors) body_->ret_tensors.push_back(t);
    }
    for (const std::string& c : sig.control_output()) {
      body_->control_ret_nodes.push_back(fdef_.control_ret().at(c));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrCat("Function '", fdef_.signature().name(), "': ", message));
  }
  absl::Status NodeError(const NodeDef& node, absl::string_view message) const {
    return Error(absl::StrCat(FormatNodeName(node.name()), ": ", message));
  }

  absl::Status Substitute(const NodeDef& node, AttrValue* value) const {
    if (value->value_case() == AttrValue::kPlaceholder) {
      auto it = attrs_.find(value->placeholder());
      if (it == attrs_.end()) {
        return NodeError(
            node, absl::StrCat("attr placeholder '$", value->placeholder(),
                               "' has no value in the call"));
      }
      *value = it->second;
      return absl::OkStatus();
    }
    if (value->has_func()) {
      for (auto& [name, inner] : *value->mutable_func()->mutable_attr()) {
        absl::Status s = Substitute(node, &inner);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  // The flat GraphDef tensors a FunctionDef reference covers.
  absl::Status Resolve(const std::string& text,
                       std::vector<std::string>* tensors) const {
    absl::StatusOr<FunctionRef> ref = ParseFunctionRef(text);
    if (!ref.ok()) return ref.status();
    const std::string key = ref->output_arg.empty()
                                ? ref->name
                                : absl::StrCat(ref->name, ":", ref->output_arg);
    auto it = refs_.find(key);
    if (it == refs_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", text, "' names no argument or node output"));
    }
    if (ref->index < 0) {
      *tensors = it->second;
      return absl::OkStatus();
    }
    if (ref->index >= static_cast<int>(it->second.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", text, "' is out of range: '", key, "' has ",
                       it->second.size(), " elements"));
    }
    tensors->assign(1, it->second[ref->index]);
    return absl::OkStatus();
  }

  absl::Status ResolveInputs(NodeDef* node) const {
    std::vector<std::string> inputs;
    for (const std::string& in : node->input()) {
      if (!in.empty() && in[0] == '^') {
        inputs.push_back(in);
        continue;
      }
      std::vector<std::string> tensors;
      absl::Status s = Resolve(in, &tensors);
      if (!s.ok()) return NodeError(*node, s.message());
      for (std::string& t : tensors) inputs.push_back(std::move(t));
    }
    node->clear_input();
    for (std::string& in : inputs) node->add_input(std::move(in));
    return absl::OkStatus();
  }

  const FunctionLibrary& library_;
  const FunctionDef& fdef_;
  FunctionBody* const body_;
  CallAttrs attrs_;
  // "arg" or "node:out" -> flat GraphDef tensors.
  std::map<std::string, std::vector<std::string>> refs_;
};

}  // namespace

absl::Status InstantiateFunction(const FunctionLibrary& library,
                                 const std::string& name,
                                 const CallAttrs& attrs, FunctionBody* body) {
  const FunctionDef* fdef = library.Find(name);
  if (fdef == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "Function '", name, "' is not defined in the graph's library"));
  }
  *body = FunctionBody();
  return Instantiator(library, *fdef, body).Run(attrs);
}

}  // namespace stepflow
