// Operation queries: names, types, inputs and outputs, consumers, control
// edges, arg list lengths, TF_OperationToNodeDef and iteration over a
// graph's operations.
//
// A TF_Operation* is a Node* of its graph, and nodes are never removed, so
// queries read the node directly, without the graph's lock: they must not
// race with a change to the same operation's edges (control inputs added
// through TF_AddOperationControlInput, or new consumers being finished) in
// another thread.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {
namespace c_api {

bool InGraph(const TF_Graph& graph, const Node* op) {
  return op != nullptr && op->IsOp() && op->id() < graph.graph.num_node_ids() &&
         graph.graph.FindNodeId(op->id()) == op;
}

void NodeToDef(const Node& node, NodeDef* def) {
  *def = node.def();
  std::vector<std::string> data(node.num_inputs());
  for (int i = 0; i < node.num_inputs() && i < def->input_size(); ++i) {
    data[i] = def->input(i);  // Fallback for a slot without an edge.
  }
  std::vector<std::string> control;
  for (const Edge* e : node.in_edges()) {
    if (e->IsControlEdge()) {
      if (e->src()->IsOp()) control.push_back("^" + e->src()->name());
    } else if (e->dst_input() >= 0 && e->dst_input() < node.num_inputs()) {
      data[e->dst_input()] =
          e->src_output() == 0
              ? e->src()->name()
              : absl::StrCat(e->src()->name(), ":", e->src_output());
    }
  }
  std::sort(control.begin(), control.end());
  def->clear_input();
  for (std::string& in : data) def->add_input(std::move(in));
  for (std::string& in : control) def->add_input(std::move(in));
}

namespace {

// Length of arg `arg_name` among `node`'s inputs or outputs.
int ListLength(TF_Operation* oper, const char* arg_name, bool outputs,
               TF_Status* status) {
  if (oper == nullptr || arg_name == nullptr) {
    Set(status, absl::InvalidArgumentError("NULL operation or arg name"));
    return -1;
  }
  const Node* node = ToNode(oper);
  NameRangeMap in, out;
  absl::Status s = NameRangesForNode(node->def(), node->op_def(), &in, &out);
  if (!s.ok()) {
    Set(status, std::move(s));
    return -1;
  }
  const NameRangeMap& ranges = outputs ? out : in;
  auto it = ranges.find(arg_name);
  if (it == ranges.end()) {
    Set(status, absl::InvalidArgumentError(absl::StrCat(
                    outputs ? "Output" : "Input", " arg '", arg_name,
                    "' not found in operation '", node->name(), "' (op ",
                    node->type_string(), ")")));
    return -1;
  }
  Set(status, absl::OkStatus());
  return it->second.second - it->second.first;
}

// Control-edge neighbours of `oper` that are operations.
std::vector<TF_Operation*> ControlNeighbours(TF_Operation* oper, bool inputs) {
  std::vector<TF_Operation*> result;
  if (oper == nullptr) return result;
  const Node* node = ToNode(oper);
  for (const Edge* e : inputs ? node->in_edges() : node->out_edges()) {
    if (!e->IsControlEdge()) continue;
    Node* other = inputs ? e->src() : e->dst();
    if (other->IsOp()) result.push_back(ToOperation(other));
  }
  return result;
}

int CopyOut(const std::vector<TF_Operation*>& ops, TF_Operation** out,
            int max) {
  int n = 0;
  if (out == nullptr) return 0;
  for (TF_Operation* op : ops) {
    if (n >= max) break;
    out[n++] = op;
  }
  return n;
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;
using stepflow::c_api::ToNode;
using stepflow::c_api::ToOperation;

extern "C" {

const char* TF_OperationName(TF_Operation* oper) {
  return oper == nullptr ? "" : ToNode(oper)->name().c_str();
}

const char* TF_OperationOpType(TF_Operation* oper) {
  return oper == nullptr ? "" : ToNode(oper)->type_string().c_str();
}

const char* TF_OperationDevice(TF_Operation* oper) {
  return oper == nullptr ? "" : ToNode(oper)->requested_device().c_str();
}

int TF_OperationNumOutputs(TF_Operation* oper) {
  return oper == nullptr ? 0 : ToNode(oper)->num_outputs();
}

int TF_OperationNumInputs(TF_Operation* oper) {
  return oper == nullptr ? 0 : ToNode(oper)->num_inputs();
}

TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  const stepflow::Node* n = ToNode(oper_out.oper);
  if (n == nullptr || oper_out.index < 0 ||
      oper_out.index >= n->num_outputs()) {
    return static_cast<TF_DataType>(0);
  }
  return static_cast<TF_DataType>(n->output_type(oper_out.index));
}

TF_DataType TF_OperationInputType(TF_Input oper_in) {
  const stepflow::Node* n = ToNode(oper_in.oper);
  if (n == nullptr || oper_in.index < 0 || oper_in.index >= n->num_inputs()) {
    return static_cast<TF_DataType>(0);
  }
  return static_cast<TF_DataType>(n->input_type(oper_in.index));
}

int TF_OperationOutputListLength(TF_Operation* oper, const char* arg_name,
                                 TF_Status* status) {
  return stepflow::c_api::ListLength(oper, arg_name, true, status);
}

int TF_OperationInputListLength(TF_Operation* oper, const char* arg_name,
                                TF_Status* status) {
  return stepflow::c_api::ListLength(oper, arg_name, false, status);
}

TF_Output TF_OperationInput(TF_Input oper_in) {
  TF_Output result{nullptr, -1};
  const stepflow::Node* n = ToNode(oper_in.oper);
  if (n == nullptr || oper_in.index < 0 || oper_in.index >= n->num_inputs()) {
    return result;
  }
  const stepflow::Edge* e = nullptr;
  if (!n->input_edge(oper_in.index, &e).ok() || e == nullptr) return result;
  result.oper = ToOperation(e->src());
  result.index = e->src_output();
  return result;
}

void TF_OperationAllInputs(TF_Operation* oper, TF_Output* inputs,
                           int max_inputs) {
  if (oper == nullptr || inputs == nullptr) return;
  const int n = std::min(max_inputs, TF_OperationNumInputs(oper));
  for (int i = 0; i < n; ++i) inputs[i] = TF_OperationInput(TF_Input{oper, i});
}

int TF_OperationOutputNumConsumers(TF_Output oper_out) {
  return TF_OperationOutputConsumers(oper_out, nullptr, 0);
}

int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input* consumers,
                                int max_consumers) {
  if (oper_out.oper == nullptr) return 0;
  int count = 0;
  for (const stepflow::Edge* e : ToNode(oper_out.oper)->out_edges()) {
    if (e->IsControlEdge() || e->src_output() != oper_out.index) continue;
    if (consumers != nullptr && count < max_consumers) {
      consumers[count] = TF_Input{ToOperation(e->dst()), e->dst_input()};
    }
    ++count;
  }
  return count;
}

int TF_OperationNumControlInputs(TF_Operation* oper) {
  return static_cast<int>(
      stepflow::c_api::ControlNeighbours(oper, true).size());
}

int TF_OperationGetControlInputs(TF_Operation* oper,
                                 TF_Operation** control_inputs,
                                 int max_control_inputs) {
  return stepflow::c_api::CopyOut(
      stepflow::c_api::ControlNeighbours(oper, true), control_inputs,
      max_control_inputs);
}

int TF_OperationNumControlOutputs(TF_Operation* oper) {
  return static_cast<int>(
      stepflow::c_api::ControlNeighbours(oper, false).size());
}

int TF_OperationGetControlOutputs(TF_Operation* oper,
                                  TF_Operation** control_outputs,
                                  int max_control_outputs) {
  return stepflow::c_api::CopyOut(
      stepflow::c_api::ControlNeighbours(oper, false), control_outputs,
      max_control_outputs);
}

void TF_OperationToNodeDef(TF_Operation* oper, TF_Buffer* output_node_def,
                           TF_Status* status) {
  if (oper == nullptr || output_node_def == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_OperationToNodeDef: operation and buffer are "
                    "required"));
    return;
  }
  stepflow::NodeDef def;
  stepflow::c_api::NodeToDef(*ToNode(oper), &def);
  stepflow::c_api::SetBufferBytes(def.SerializeAsString(), output_node_def);
  Set(status, absl::OkStatus());
}

TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos) {
  if (graph == nullptr || pos == nullptr) return nullptr;
  absl::MutexLock l(&graph->mu);
  const size_t ids = static_cast<size_t>(graph->graph.num_node_ids());
  while (*pos < ids) {
    stepflow::Node* n = graph->graph.FindNodeId(static_cast<int>(*pos));
    ++*pos;
    if (n != nullptr && n->IsOp()) return ToOperation(n);
  }
  return nullptr;
}

}  // extern "C"
