// TF_GraphToFunction and TF_GraphToFunctionWithControlOutputs: a
// FunctionDef from a graph's operations, with TensorFlow's semantics.
//
// The body is the `opers` given, or (num_opers == -1) every operation of
// the graph except those named in `inputs`, which then must have exactly
// one output. Each input TF_Output becomes an input argument, each output
// TF_Output an output argument; argument names are the operation names
// normalised to [a-z][a-z0-9_]* (lower case, other characters '_', leading
// non-letters dropped, "unknown" if nothing is left) and made unique with
// "_0", "_1", ... suffixes, outputs named first so given `output_names` are
// kept verbatim. Body nodes keep their names unless an argument took them
// (then they get a suffix too). Body node inputs are rewritten to the
// function reference syntax ("node:out_arg:i", or the input argument's
// name), from the graph's edges; control inputs from outside the body are
// errors. The function is stateful if any body node is. With
// append_hash_to_fn_name the name gets "_" and a digest of the FunctionDef
// (letters and digits only; this runtime's digest, not TensorFlow's).
//
// Errors are TensorFlow's: InvalidArgument for a null operation, a
// reference-typed argument, a duplicated input, a duplicated output or
// control output name, a body node input that is neither an input nor
// produced in the body, a control edge or output from outside the body;
// OutOfRange for an output index past the operation's outputs. Input and
// output errors carry "Encountered while processing input|output i ..."
// context. The graph is only read (under its lock).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/function.pb.h"
#include "proto/op_def.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/types.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace c_api {
namespace {

// One-to-one names for the function: argument and node names in use, and
// the name each graph operation got.
class FunctionNames {
 public:
  // Output argument named after operation `name` (normalised, unique).
  std::string OutputName(const std::string& name) {
    return Unique(Normalize(name));
  }
  // Output argument with a caller-given name: used verbatim, must be new.
  absl::Status UseOutputName(const std::string& name) {
    if (!used_.emplace(name, 0).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Cannot have duplicate output names. Name '", name,
                       "' appears more than once in 'output_names' array."));
    }
    return absl::OkStatus();
  }
  // Input argument for operation `name` (normalised, unique), remembered
  // as that operation's name in the function.
  std::string InputName(const std::string& name) {
    std::string arg = Unique(Normalize(name));
    by_op_[name] = arg;
    return arg;
  }
  // Body node for operation `name`: its own name unless taken.
  std::string NodeName(const std::string& name) {
    std::string node = Unique(name);
    by_op_[name] = node;
    return node;
  }
  // The name operation `name` got, or "" if none.
  std::string Lookup(const std::string& name) const {
    auto it = by_op_.find(name);
    return it == by_op_.end() ? "" : it->second;
  }

 private:
  static std::string Normalize(std::string name) {
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') {
        c = static_cast<char>(c - 'A' + 'a');
      } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
        c = '_';
      }
    }
    size_t first = 0;
    while (first < name.size() && !(name[first] >= 'a' && name[first] <= 'z')) {
      ++first;
    }
    return first == name.size() ? "unknown" : name.substr(first);
  }
  std::string Unique(const std::string& name) {
    auto it = used_.emplace(name, 0);
    if (it.second) return name;
    while (true) {
      std::string candidate = absl::StrCat(name, "_", it.first->second++);
      if (used_.emplace(candidate, 0).second) return candidate;
    }
  }

  // Name -> next suffix to try.
  std::map<std::string, int> used_;
  std::map<std::string, std::string> by_op_;
};

std::string TensorName(const Node& node, int index) {
  return absl::StrCat(node.name(), ":", index);
}

// Checks one input or output TF_Output of the function.
absl::Status CheckEndpoint(const TF_Graph& g, const TF_Output& out,
                           const char* what, int i, const char* fn_name)
    ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  const std::string context =
      absl::StrCat("\n\tEncountered while processing ", what, " ", i,
                   std::string(what) == "input" ? " into" : " from",
                   " function '", fn_name, "'");
  const Node* node = ToNode(out.oper);
  if (node == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("Node is null", context));
  }
  if (!InGraph(g, node)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Node '", node->name(), "' is not in the function's graph", context));
  }
  if (out.index < 0 || out.index >= node->num_outputs()) {
    return absl::OutOfRangeError(
        absl::StrCat("Node '", node->name(), "' (type: '", node->type_string(),
                     "', num of outputs: ", node->num_outputs(),
                     ") does not have output ", out.index, context));
  }
  DataType dt = node->output_type(out.index);
  if (IsRefType(dt)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Output ", out.index, " of node '", node->name(),
                     "' has a reference type ", DataTypeString(dt), context));
  }
  return absl::OkStatus();
}

struct FunctionSpec {
  const char* fn_name;
  bool append_hash;
  std::vector<const Node*> body;
  std::vector<TF_Output> inputs;
  std::vector<TF_Output> outputs;
  std::vector<std::string> output_names;  // Empty: derived.
  std::vector<const Node*> control_outputs;
  std::vector<std::string> control_output_names;  // Empty: node names.
  const char* description;
};

// The body of the function: `opers`, or every operation not named in
// `inputs` (num_opers == -1).
absl::Status BodyNodes(const TF_Graph& g, int num_opers,
                       const TF_Operation* const* opers,
                       const std::vector<TF_Output>& inputs,
                       const char* fn_name, std::vector<const Node*>* body)
    ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  if (num_opers != -1) {
    if (num_opers < 0 || (num_opers > 0 && opers == nullptr)) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_opers must be -1 or a count of opers; got ",
                       num_opers, " while creating function '", fn_name, "'"));
    }
    for (int i = 0; i < num_opers; ++i) {
      const Node* node = ToNode(opers[i]);
      if (node == nullptr || !InGraph(g, node)) {
        return absl::InvalidArgumentError(
            absl::StrCat("opers[", i,
                         "] is not an operation of the function's graph "
                         "(creating function '",
                         fn_name, "')"));
      }
      body->push_back(node);
    }
    return absl::OkStatus();
  }
  std::set<const Node*> input_nodes;
  for (const TF_Output& in : inputs) input_nodes.insert(ToNode(in.oper));
  for (const Node* node : g.graph.op_nodes()) {
    if (input_nodes.count(node) == 0) {
      body->push_back(node);
    } else if (node->num_outputs() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "When `num_opers` is set to -1, nodes referenced in `inputs` must "
          "have a single output. Node ",
          node->name(), " has ", node->num_outputs(),
          " outputs. Encountered while creating function '", fn_name, "'"));
    }
  }
  return absl::OkStatus();
}

// 64-bit FNV-1a: a stable digest (never salted) for the name suffix.
uint64_t Digest(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string HashSuffix(const FunctionDef& fdef) {
  const std::string bytes = SerializeDeterministic(fdef);
  uint64_t h = Digest(bytes);
  std::string raw(reinterpret_cast<const char*>(&h), sizeof(h));
  std::string encoded;
  absl::WebSafeBase64Escape(raw, &encoded);
  for (char& c : encoded) {
    if (c == '-') c = 'a';
    if (c == '_') c = 'A';
  }
  return encoded;
}

absl::Status BuildFunctionDef(const TF_Graph& g, const FunctionSpec& spec,
                              FunctionDef* fdef)
    ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  const std::string fn_name = spec.fn_name;
  OpDef* sig = fdef->mutable_signature();
  FunctionNames names;
  // Graph tensor "op:i" -> its reference inside the function.
  std::map<std::string, std::string> renamed;

  // Outputs first, so caller-given output names are kept as they are.
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const Node* node = ToNode(spec.outputs[i].oper);
    OpDef::ArgDef* arg = sig->add_output_arg();
    arg->set_type(node->output_type(spec.outputs[i].index));
    if (!spec.output_names.empty()) {
      absl::Status s = names.UseOutputName(spec.output_names[i]);
      if (!s.ok()) return s;
      arg->set_name(spec.output_names[i]);
    } else {
      arg->set_name(names.OutputName(node->name()));
    }
  }
  for (const TF_Output& in : spec.inputs) {
    const Node* node = ToNode(in.oper);
    OpDef::ArgDef* arg = sig->add_input_arg();
    arg->set_type(node->output_type(in.index));
    arg->set_name(names.InputName(node->name()));
    renamed[TensorName(*node, in.index)] = arg->name();
  }
  // Every output of every body node, by output argument.
  for (const Node* node : spec.body) {
    const std::string node_name = names.NodeName(node->name());
    NameRangeMap output_ranges;
    absl::Status s =
        NameRangesForNode(node->def(), node->op_def(), nullptr, &output_ranges);
    if (!s.ok()) return s;
    for (const auto& range : output_ranges) {
      for (int i = range.second.first; i < range.second.second; ++i) {
        renamed.emplace(TensorName(*node, i),
                        absl::StrCat(node_name, ":", range.first, ":",
                                     i - range.second.first));
      }
    }
  }

  for (const Node* node : spec.body) {
    NodeDef* def = fdef->add_node_def();
    *def = node->def();
    def->set_name(names.Lookup(node->name()));
    def->clear_input();
    std::vector<const Edge*> data(node->num_inputs(), nullptr);
    std::vector<const Edge*> control;
    for (const Edge* e : node->in_edges()) {
      if (e->src()->IsSource()) continue;
      if (e->IsControlEdge()) {
        control.push_back(e);
      } else if (e->dst_input() < node->num_inputs()) {
        data[e->dst_input()] = e;
      }
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (data[i] == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Graph to be converted to function appears to be malformed. Node ",
            node->name(), " is missing input edge ", i));
      }
      const std::string source =
          TensorName(*data[i]->src(), data[i]->src_output());
      auto it = renamed.find(source);
      if (it == renamed.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input ", i, ", '", source, "', of node '", node->name(),
            "' in function '", fn_name,
            "' is not available. You might need to include it in inputs or "
            "include its source node in the body"));
      }
      def->add_input(it->second);
    }
    std::sort(control.begin(), control.end(), [](const Edge* a, const Edge* b) {
      return a->src()->name() < b->src()->name();
    });
    for (const Edge* e : control) {
      const std::string source = names.Lookup(e->src()->name());
      if (source.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The source of control edge ", e->DebugString(),
            " is not in the body. Encountered while creating function '",
            fn_name, "'"));
      }
      def->add_input(absl::StrCat("^", source));
    }
    if (node->op_def().is_stateful()) sig->set_is_stateful(true);
  }

  for (int r = 0; r < sig->output_arg_size(); ++r) {
    const std::string tensor =
        TensorName(*ToNode(spec.outputs[r].oper), spec.outputs[r].index);
    auto it = renamed.find(tensor);
    if (it == renamed.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TF_Output ", tensor,
          " is neither in the function body nor among function inputs. "
          "Encountered while creating function '",
          fn_name, "'"));
    }
    (*fdef->mutable_ret())[sig->output_arg(r).name()] = it->second;
  }

  if (spec.description != nullptr) sig->set_description(spec.description);
  if (!spec.control_output_names.empty() &&
      spec.control_output_names.size() != spec.control_outputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected number of control outputs (", spec.control_outputs.size(),
        ") and the number of control output names (",
        spec.control_output_names.size(), ") to match but they do not."));
  }
  std::set<std::string> control_names;
  for (size_t i = 0; i < spec.control_outputs.size(); ++i) {
    const Node* node = spec.control_outputs[i];
    const std::string name = spec.control_output_names.empty()
                                 ? node->name()
                                 : spec.control_output_names[i];
    if (name.empty()) {
      return absl::InvalidArgumentError(
          "Control output name must be not empty");
    }
    if (!control_names.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Repeated control output name: ", name));
    }
    const std::string body_name = names.Lookup(node->name());
    if (body_name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Control output node ", node->name(),
                       " is not in the body of function '", fn_name, "'"));
    }
    (*fdef->mutable_control_ret())[name] = body_name;
  }
  for (const std::string& name : control_names) sig->add_control_output(name);

  sig->set_name(spec.append_hash ? absl::StrCat(fn_name, "_", HashSuffix(*fdef))
                                 : fn_name);
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

TF_Function* TF_GraphToFunctionWithControlOutputs(
    const TF_Graph* fn_body, const char* fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    int ncontrol_outputs, const TF_Operation* const* control_outputs,
    const char* const* control_output_names, const TF_FunctionOptions* opts,
    const char* description, TF_Status* status) {
  (void)opts;  // TensorFlow defines no options either.
  namespace c_api = stepflow::c_api;
  if (fn_body == nullptr || fn_name == nullptr || ninputs < 0 || noutputs < 0 ||
      ncontrol_outputs < 0 || (ninputs > 0 && inputs == nullptr) ||
      (noutputs > 0 && outputs == nullptr) ||
      (ncontrol_outputs > 0 && control_outputs == nullptr)) {
    Set(status, absl::InvalidArgumentError(
                    "TF_GraphToFunction: graph, name and argument arrays are "
                    "required"));
    return nullptr;
  }
  TF_Graph* g = const_cast<TF_Graph*>(fn_body);
  absl::ReaderMutexLock l(&g->mu);
  c_api::FunctionSpec spec;
  spec.fn_name = fn_name;
  spec.append_hash = append_hash_to_fn_name != 0;
  spec.description = description;
  absl::Status s;
  std::map<std::pair<const stepflow::Node*, int>, bool> seen_inputs;
  for (int i = 0; i < ninputs && s.ok(); ++i) {
    s = c_api::CheckEndpoint(*g, inputs[i], "input", i, fn_name);
    if (s.ok() && !seen_inputs
                       .emplace(std::make_pair(c_api::ToNode(inputs[i].oper),
                                               inputs[i].index),
                                true)
                       .second) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "TF_Output ", c_api::ToNode(inputs[i].oper)->name(), ":",
          inputs[i].index, " appears more than once in the input list"));
    }
    spec.inputs.push_back(inputs[i]);
  }
  for (int i = 0; i < noutputs && s.ok(); ++i) {
    s = c_api::CheckEndpoint(*g, outputs[i], "output", i, fn_name);
    spec.outputs.push_back(outputs[i]);
    if (output_names != nullptr) spec.output_names.push_back(output_names[i]);
  }
  for (int i = 0; i < ncontrol_outputs && s.ok(); ++i) {
    const stepflow::Node* node = c_api::ToNode(control_outputs[i]);
    if (node == nullptr || !c_api::InGraph(*g, node)) {
      s = absl::InvalidArgumentError(
          absl::StrCat("control output ", i, " of function '", fn_name,
                       "' is not an operation of the function's graph"));
      break;
    }
    spec.control_outputs.push_back(node);
    if (control_output_names != nullptr) {
      spec.control_output_names.push_back(
          control_output_names[i] == nullptr ? "" : control_output_names[i]);
    }
  }
  if (s.ok()) {
    s = c_api::BodyNodes(*g, num_opers, opers, spec.inputs, fn_name,
                         &spec.body);
  }
  auto* func = new TF_Function;
  if (s.ok()) s = c_api::BuildFunctionDef(*g, spec, &func->fdef);
  if (!s.ok()) {
    delete func;
    Set(status, std::move(s));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return func;
}

TF_Function* TF_GraphToFunction(const TF_Graph* fn_body, const char* fn_name,
                                unsigned char append_hash_to_fn_name,
                                int num_opers, const TF_Operation* const* opers,
                                int ninputs, const TF_Output* inputs,
                                int noutputs, const TF_Output* outputs,
                                const char* const* output_names,
                                const TF_FunctionOptions* opts,
                                const char* description, TF_Status* status) {
  return TF_GraphToFunctionWithControlOutputs(
      fn_body, fn_name, append_hash_to_fn_name, num_opers, opers, ninputs,
      inputs, noutputs, outputs, output_names, 0, nullptr, nullptr, opts,
      description, status);
}

}  // extern "C"
