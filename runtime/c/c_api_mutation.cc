// Graph mutations and the mutation warnings they leave for sessions.
#include "runtime/c/c_api_mutation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/c/c_api_internal.h"

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
  node->set_requested_device(device == nullptr ? "" : device);
  c_api::RecordMutation(graph, *node, "SetRequestedDevice");
}

void AddControlInput(TF_Graph* graph, TF_Operation* op, TF_Operation* input) {
  if (graph == nullptr || op == nullptr || input == nullptr) return;
  Node* dst = c_api::ToNode(op);
  absl::MutexLock l(&graph->mu);
  graph->graph.AddControlEdge(c_api::ToNode(input), dst);
  c_api::RecordMutation(graph, *dst, "AddControlInput");
}

}  // namespace stepflow
