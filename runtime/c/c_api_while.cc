// While loops: TF_NewWhile, TF_FinishWhile, TF_AbortWhile.
//
// TF_NewWhile gives the caller two fresh graphs, the condition and the
// body, each with one Placeholder per loop variable. TF_FinishWhile builds
// the loop in the parent graph as one GraphDef, imported atomically (the
// NextIteration -> Merge back edges are the only cycles the importer
// accepts), under a fresh scope "<name>/" (or "<name>_<n>/"), with
// TensorFlow's node names and order (the i-th loop variable's nodes are
// Enter, Merge, ... for i = 0 and Enter_i, Merge_i, ... after):
//
//   Enter_i -> Merge_i -> [cond/...] -> LoopCond -> Switch_i
//   Switch_i:0 -> Exit_i            (the loop's outputs)
//   Switch_i:1 -> [body/...] -> NextIteration_i -> Merge_i
//
// The condition and body operations are copied with their placeholders
// replaced by Merge_i (condition) or Switch_i:1 (body); copied operations
// without inputs get a control input from the first Merge or Switch so
// they run inside the loop's frame. A NULL `name` is InvalidArgument, as in
// TensorFlow (an empty one means "while"). Both subgraphs are freed by
// TF_FinishWhile (success or not) and by TF_AbortWhile.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace c_api {
namespace {

constexpr int kParallelIterations = 10;

NodeDef* AddNode(GraphDef* gdef, const std::string& name, const std::string& op,
                 DataType type) {
  NodeDef* n = gdef->add_node();
  n->set_name(name);
  n->set_op(op);
  AddNodeAttr("T", type, n);
  return n;
}

std::string Endpoint(const std::string& node, int index) {
  return absl::StrCat(node, ":", index);
}

// Copies the operations of `sub` (a condition or body graph) into `gdef`
// under `scope`, with placeholder k read as replacement[k]. `outputs` are
// mapped alike into `mapped`. Nodes without inputs get "^<pivot>".
absl::Status CopySubgraph(TF_Graph* sub, const std::string& scope,
                          const std::vector<std::string>& replacement,
                          const std::string& pivot,
                          const std::vector<TF_Output>& outputs, GraphDef* gdef,
                          std::vector<std::string>* mapped) {
  absl::MutexLock l(&sub->mu);
  // Placeholder k is the k-th node added (TF_NewWhile made them first).
  std::map<std::string, int> placeholder;
  for (const Node* n : sub->graph.op_nodes()) {
    if (static_cast<int>(placeholder.size()) <
            static_cast<int>(replacement.size()) &&
        n->id() - 2 == static_cast<int>(placeholder.size())) {
      placeholder[n->name()] = static_cast<int>(placeholder.size());
    }
  }
  auto map_input = [&](const std::string& name, int index) {
    auto it = placeholder.find(name);
    if (it != placeholder.end()) {
      return index < 0 ? "^" + replacement[it->second].substr(
                                   0, replacement[it->second].rfind(':'))
                       : replacement[it->second];
    }
    return index < 0 ? "^" + scope + name : Endpoint(scope + name, index);
  };
  for (const Node* n : sub->graph.op_nodes()) {
    if (placeholder.count(n->name()) > 0) continue;
    NodeDef def;
    NodeToDef(*n, &def);
    def.set_name(scope + n->name());
    for (std::string& input : *def.mutable_input()) {
      const bool control = !input.empty() && input[0] == '^';
      std::string name = control ? input.substr(1) : input;
      int index = control ? -1 : 0;
      const size_t colon = name.rfind(':');
      if (!control && colon != std::string::npos &&
          absl::SimpleAtoi(name.substr(colon + 1), &index)) {
        name = name.substr(0, colon);
      }
      input = map_input(name, index);
    }
    if (def.input_size() == 0) def.add_input("^" + pivot);
    *gdef->add_node() = std::move(def);
  }
  for (const TF_Output& out : outputs) {
    const Node* node = ToNode(out.oper);
    if (!InGraph(*sub, node) || out.index < 0 ||
        out.index >= node->num_outputs()) {
      return absl::InvalidArgumentError(
          "while loop output is NULL or not an output of its graph");
    }
    mapped->push_back(map_input(node->name(), out.index));
  }
  return absl::OkStatus();
}

void FreeWhile(const TF_WhileParams* params) {
  if (params == nullptr) return;
  TF_DeleteGraph(params->cond_graph);
  TF_DeleteGraph(params->body_graph);
  delete[] params->cond_inputs;
  delete[] params->body_inputs;
  delete[] params->body_outputs;
}

absl::Status FinishWhile(const TF_WhileParams& params, TF_Output* outputs) {
  TF_Graph* cond = params.cond_graph;
  TF_Graph* body = params.body_graph;
  if (cond == nullptr || body == nullptr || cond->while_parent == nullptr) {
    return absl::InvalidArgumentError(
        "TF_FinishWhile: parameters do not come from TF_NewWhile");
  }
  if (params.cond_output.oper == nullptr) {
    return absl::InvalidArgumentError(
        "TF_WhileParams `cond_output` field isn't set");
  }
  if (outputs == nullptr) {
    return absl::InvalidArgumentError("TF_FinishWhile: outputs is NULL");
  }
  if (params.name == nullptr) {
    return absl::InvalidArgumentError("TF_WhileParams `name` field is null");
  }
  TF_Graph* parent = cond->while_parent;
  const std::vector<TF_Output>& inputs = cond->while_inputs;
  const int n = static_cast<int>(inputs.size());

  absl::MutexLock l(&parent->mu);
  const std::string frame = UniqueScope(
      parent->graph,
      params.name[0] == '\0' ? std::string("while") : std::string(params.name));
  const std::string scope = frame + "/";
  GraphDef gdef;
  *gdef.mutable_versions() = parent->graph.versions();
  // TensorFlow's layout and names: every Enter, every Merge, the
  // condition, LoopCond, every Switch, the body (reading Switch:1), every
  // NextIteration, every Exit; the i-th of each is "<Op>" for i = 0 and
  // "<Op>_i" after. The condition's and the body's input-less nodes hang
  // off the first Merge and the first Switch.
  auto name = [&scope](const char* op, int i) {
    return i == 0 ? absl::StrCat(scope, op) : absl::StrCat(scope, op, "_", i);
  };
  std::vector<DataType> types;
  std::vector<std::string> merges, switch_trues;
  for (int i = 0; i < n; ++i) {
    const Node* src = ToNode(inputs[i].oper);
    if (!InGraph(*parent, src)) {
      return absl::InvalidArgumentError("while loop input is not in the graph");
    }
    const DataType t = src->output_type(inputs[i].index);
    types.push_back(t);
    NodeDef* enter = AddNode(&gdef, name("Enter", i), "Enter", t);
    enter->add_input(Endpoint(src->name(), inputs[i].index));
    AddNodeAttr("frame_name", frame, enter);
    AddNodeAttr("is_constant", false, enter);
    AddNodeAttr("parallel_iterations", kParallelIterations, enter);
  }
  for (int i = 0; i < n; ++i) {
    NodeDef* merge = AddNode(&gdef, name("Merge", i), "Merge", types[i]);
    merge->add_input(Endpoint(name("Enter", i), 0));
    merge->add_input(Endpoint(name("NextIteration", i), 0));
    AddNodeAttr("N", 2, merge);
    merges.push_back(Endpoint(merge->name(), 0));
    switch_trues.push_back(Endpoint(name("Switch", i), 1));
  }
  std::vector<std::string> cond_out;
  absl::Status s = CopySubgraph(cond, scope + "cond/", merges, name("Merge", 0),
                                {params.cond_output}, &gdef, &cond_out);
  if (!s.ok()) return s;
  NodeDef* loop_cond = gdef.add_node();
  loop_cond->set_name(scope + "LoopCond");
  loop_cond->set_op("LoopCond");
  loop_cond->add_input(cond_out[0]);
  for (int i = 0; i < n; ++i) {
    NodeDef* sw = AddNode(&gdef, name("Switch", i), "Switch", types[i]);
    sw->add_input(merges[i]);
    sw->add_input(Endpoint(loop_cond->name(), 0));
  }
  std::vector<TF_Output> body_outs(params.body_outputs,
                                   params.body_outputs + n);
  std::vector<std::string> body_mapped;
  s = CopySubgraph(body, scope + "body/", switch_trues, name("Switch", 0),
                   body_outs, &gdef, &body_mapped);
  if (!s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    AddNode(&gdef, name("NextIteration", i), "NextIteration", types[i])
        ->add_input(body_mapped[i]);
  }
  for (int i = 0; i < n; ++i) {
    AddNode(&gdef, name("Exit", i), "Exit", types[i])
        ->add_input(Endpoint(name("Switch", i), 0));
  }
  GraphConstructorOptions opts;
  opts.allow_function_calls = true;
  s = ImportGraphDef(opts, gdef, &parent->graph);
  if (!s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    outputs[i] = TF_Output{
        ToOperation(parent->graph.FindNodeByName(name("Exit", i))), 0};
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

TF_WhileParams TF_NewWhile(TF_Graph* g, TF_Output* inputs, int ninputs,
                           TF_Status* status) {
  const TF_WhileParams empty{0,       nullptr, nullptr, TF_Output{nullptr, -1},
                             nullptr, nullptr, nullptr, nullptr};
  if (g == nullptr || ninputs <= 0 || inputs == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_NewWhile() must be passed a graph and at least one "
                    "input"));
    return empty;
  }
  std::vector<TF_DataType> types;
  {
    absl::MutexLock l(&g->mu);
    for (int i = 0; i < ninputs; ++i) {
      const stepflow::Node* n = stepflow::c_api::ToNode(inputs[i].oper);
      if (!stepflow::c_api::InGraph(*g, n) || inputs[i].index < 0 ||
          inputs[i].index >= n->num_outputs()) {
        Set(status,
            absl::InvalidArgumentError(absl::StrCat(
                "TF_NewWhile: input ", i, " is not an output of the graph")));
        return empty;
      }
      types.push_back(
          static_cast<TF_DataType>(n->output_type(inputs[i].index)));
    }
  }
  TF_Graph* cond = TF_NewGraph();
  TF_Graph* body = TF_NewGraph();
  auto* cond_inputs = new TF_Output[ninputs];
  auto* body_inputs = new TF_Output[ninputs];
  auto* body_outputs = new TF_Output[ninputs];
  for (TF_Graph* sub : {cond, body}) {
    sub->while_parent = g;
    sub->while_inputs.assign(inputs, inputs + ninputs);
    for (int i = 0; i < ninputs; ++i) {
      TF_OperationDescription* d =
          TF_NewOperation(sub, "Placeholder", absl::StrCat("input", i).c_str());
      TF_SetAttrType(d, "dtype", types[i]);
      TF_Operation* p = TF_FinishOperation(d, status);
      (sub == cond ? cond_inputs : body_inputs)[i] = TF_Output{p, 0};
    }
  }
  for (int i = 0; i < ninputs; ++i) body_outputs[i] = body_inputs[i];
  Set(status, absl::OkStatus());
  // As TensorFlow's: the caller names the loop (TF_FinishWhile refuses a
  // NULL name).
  return TF_WhileParams{
      ninputs, cond,        cond_inputs,  TF_Output{nullptr, -1},
      body,    body_inputs, body_outputs, nullptr};
}

void TF_FinishWhile(const TF_WhileParams* params, TF_Status* status,
                    TF_Output* outputs) {
  if (params == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_FinishWhile: params is NULL"));
    return;
  }
  Set(status, stepflow::c_api::FinishWhile(*params, outputs));
  stepflow::c_api::FreeWhile(params);
}

void TF_AbortWhile(const TF_WhileParams* params) {
  stepflow::c_api::FreeWhile(params);
}

}  // extern "C"
