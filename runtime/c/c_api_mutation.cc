// Graph mutations (the C++ ones of c_api_mutation.h and TensorFlow's C
// mutation calls: TF_SetAttr, TF_ClearAttr, TF_UpdateEdge,
// TF_RemoveAllControlInputs, TF_AddOperationControlInput,
// TF_SetRequestedDevice, TF_AddWhileInputHack), the mutation warnings they
// leave for sessions, and TF_ExtendSession.
#include "runtime/c/c_api_mutation.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/attr_value.pb.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace c_api {

void RecordMutation(TF_Graph* graph, const Node& node,
                    const std::string& what) {
  for (auto& [id, entry] : graph->sessions) {
    if (entry.last_num_graph_nodes <= node.id()) continue;
    entry.mutation_warning = absl::StrCat(
        "Operation '", node.name(), "' (", node.type_string(),
        ") was changed by ", what,
        " after a session received it. The session will not see this "
        "change; create a new session to use it.");
  }
}

}  // namespace c_api

void SetRequestedDevice(TF_Graph* graph, TF_Operation* op, const char* device) {
  if (graph == nullptr || op == nullptr) return;
  Node* node = c_api::ToNode(op);
  absl::MutexLock l(&graph->mu);
  if (!c_api::InGraph(*graph, node)) return;
  node->set_requested_device(device == nullptr ? "" : device);
  c_api::RecordMutation(graph, *node, "SetRequestedDevice");
}

void AddControlInput(TF_Graph* graph, TF_Operation* op, TF_Operation* input) {
  if (graph == nullptr || op == nullptr || input == nullptr) return;
  Node* dst = c_api::ToNode(op);
  absl::MutexLock l(&graph->mu);
  if (!c_api::InGraph(*graph, dst) ||
      !c_api::InGraph(*graph, c_api::ToNode(input))) {
    return;
  }
  graph->graph.AddControlEdge(c_api::ToNode(input), dst);
  c_api::RecordMutation(graph, *dst, "AddControlInput");
}

namespace {

// The node behind `op` if it belongs to `graph`; else null with `status`
// set. Requires graph->mu.
Node* MutableNode(TF_Graph* graph, TF_Operation* op, TF_Status* status)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph->mu) {
  Node* node = c_api::ToNode(op);
  if (!c_api::InGraph(*graph, node)) {
    c_api::Set(status, absl::InvalidArgumentError(
                           "operation is NULL or not in this graph"));
    return nullptr;
  }
  return node;
}

}  // namespace
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

void TF_AddOperationControlInput(TF_Graph* graph, TF_Operation* op,
                                 TF_Operation* input) {
  stepflow::AddControlInput(graph, op, input);
}

void TF_SetRequestedDevice(TF_Graph* graph, TF_Operation* op,
                           const char* device) {
  stepflow::SetRequestedDevice(graph, op, device);
}

void TF_SetAttr(TF_Graph* graph, TF_Operation* op, const char* attr_name,
                TF_Buffer* attr_value_proto, TF_Status* status) {
  stepflow::AttrValue value;
  if (graph == nullptr || attr_name == nullptr || attr_value_proto == nullptr ||
      (attr_value_proto->data == nullptr && attr_value_proto->length > 0) ||
      !value.ParseFromArray(attr_value_proto->data,
                            static_cast<int>(attr_value_proto->length))) {
    Set(status, absl::InvalidArgumentError(
                    "TF_SetAttr: unparseable AttrValue (or NULL argument)"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  stepflow::Node* node = stepflow::MutableNode(graph, op, status);
  if (node == nullptr) return;
  node->AddAttr(attr_name, value);
  stepflow::c_api::RecordMutation(graph, *node, "SetAttr");
  Set(status, absl::OkStatus());
}

void TF_ClearAttr(TF_Graph* graph, TF_Operation* op, const char* attr_name,
                  TF_Status* status) {
  if (graph == nullptr || attr_name == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_ClearAttr: bad arguments"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  stepflow::Node* node = stepflow::MutableNode(graph, op, status);
  if (node == nullptr) return;
  node->ClearAttr(attr_name);
  stepflow::c_api::RecordMutation(graph, *node, "ClearAttr");
  Set(status, absl::OkStatus());
}

void TF_UpdateEdge(TF_Graph* graph, TF_Output new_src, TF_Input dst,
                   TF_Status* status) {
  if (graph == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_UpdateEdge: graph is NULL"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  stepflow::Node* src = stepflow::MutableNode(graph, new_src.oper, status);
  stepflow::Node* dst_node =
      src == nullptr ? nullptr : stepflow::MutableNode(graph, dst.oper, status);
  if (dst_node == nullptr) return;
  if (new_src.index < 0 || new_src.index >= src->num_outputs() ||
      dst.index < 0 || dst.index >= dst_node->num_inputs()) {
    Set(status, absl::OutOfRangeError("TF_UpdateEdge: index out of range"));
    return;
  }
  const stepflow::DataType from = src->output_type(new_src.index);
  const stepflow::DataType to = dst_node->input_type(dst.index);
  if (stepflow::BaseType(from) != stepflow::BaseType(to)) {
    Set(status,
        absl::InvalidArgumentError(absl::StrCat(
            "Input ", dst.index, " of node ", dst_node->name(), " was passed ",
            stepflow::DataTypeString(from), " from ", src->name(), ":",
            new_src.index, " incompatible with expected ",
            stepflow::DataTypeString(to), ".")));
    return;
  }
  absl::Status s =
      graph->graph.UpdateEdge(src, new_src.index, dst_node, dst.index);
  if (s.ok()) stepflow::c_api::RecordMutation(graph, *dst_node, "UpdateEdge");
  Set(status, std::move(s));
}

void TF_RemoveAllControlInputs(TF_Graph* graph, TF_Operation* op) {
  if (graph == nullptr) return;
  absl::MutexLock l(&graph->mu);
  stepflow::Node* node = stepflow::MutableNode(graph, op, nullptr);
  if (node == nullptr) return;
  std::vector<const stepflow::Edge*> control;
  for (const stepflow::Edge* e : node->in_edges()) {
    if (e->IsControlEdge() && e->src()->IsOp()) control.push_back(e);
  }
  for (const stepflow::Edge* e : control) graph->graph.RemoveControlEdge(e);
  if (!control.empty()) {
    stepflow::c_api::RecordMutation(graph, *node, "RemoveAllControlInputs");
  }
}

void TF_AddWhileInputHack(TF_Graph* graph, TF_Output new_src, TF_Operation* dst,
                          TF_Status* status) {
  if (graph == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_AddWhileInputHack: NULL graph"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  stepflow::Node* src = stepflow::MutableNode(graph, new_src.oper, status);
  stepflow::Node* loop =
      src == nullptr ? nullptr : stepflow::MutableNode(graph, dst, status);
  if (loop == nullptr) return;
  if (loop->type_string() != "While" &&
      loop->type_string() != "StatelessWhile") {
    Set(status, absl::InternalError(absl::StrCat(
                    "dst argument to AddWhileInputHack should be a While op, "
                    "got: ",
                    loop->DebugString())));
    return;
  }
  if (new_src.index < 0 || new_src.index >= src->num_outputs()) {
    Set(status, absl::OutOfRangeError(absl::StrCat(
                    "Node '", src->name(), "' (type: '", src->type_string(),
                    "', num of outputs: ", src->num_outputs(),
                    ") does not have output ", new_src.index)));
    return;
  }
  // The new edge fills the first data input no edge feeds yet: the caller
  // has already grown the loop's "T" (TF_SetAttr retypes the node).
  int slot = 0;
  for (const stepflow::Edge* e : loop->in_edges()) {
    if (!e->IsControlEdge()) ++slot;
  }
  if (slot >= loop->num_inputs()) {
    Set(status, absl::OutOfRangeError(absl::StrCat(
                    "Node '", loop->name(), "' (type: '", loop->type_string(),
                    "', num of inputs: ", loop->num_inputs(),
                    ") does not have input ", slot)));
    return;
  }
  graph->graph.AddEdge(src, new_src.index, loop, slot);
  stepflow::c_api::RecordMutation(graph, *loop, "AddWhileInputHack");
  Set(status, absl::OkStatus());
}

void TF_ExtendSession(TF_Session* session, TF_Status* status) {
  if (session == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_ExtendSession: NULL session"));
    return;
  }
  Set(status, stepflow::c_api::ExtendSessionGraph(session));
}

void TF_RegisterLogListener(void (*listener)(const char*)) {
  // The runtime's log lines go to stderr; there is no listener hook.
  (void)listener;
}

}  // extern "C"
