// Extending a session with the operations added to its graph since its last
// run (TensorFlow's ExtendSessionGraphHelper).
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/graph/algorithm.h"

namespace stepflow {
namespace c_api {

absl::Status ExtendSessionGraph(TF_Session* session) {
  TF_Graph* const graph = session->graph;
  absl::MutexLock l(&graph->mu);
  auto it = graph->sessions.find(session->id);
  if (it == graph->sessions.end()) {
    return absl::InternalError("session is not registered with its graph");
  }
  TF_Graph::SessionEntry& entry = it->second;
  if (!entry.mutation_warning.empty()) {
    absl::FPrintF(stderr, "WARNING: %s\n", entry.mutation_warning);
    entry.mutation_warning.clear();
  }
  const Graph& g = graph->graph;
  const int num_nodes = g.num_node_ids();
  if (entry.last_num_graph_nodes >= num_nodes) return absl::OkStatus();

  absl::Status s = ValidateGraphHasNoCycle(g);
  if (!s.ok()) return s;
  GraphDef extension;
  *extension.mutable_versions() = g.versions();
  *extension.mutable_library() = g.library();
  for (int id = entry.last_num_graph_nodes; id < num_nodes; ++id) {
    const Node* n = g.FindNodeId(id);
    if (n != nullptr && n->IsOp()) NodeToDef(*n, extension.add_node());
  }
  // The graph lock stays held so that two runs of one session cannot both
  // send the same nodes; the session never calls back into the graph.
  s = session->session->Extend(extension);
  if (!s.ok()) return s;
  entry.last_num_graph_nodes = num_nodes;
  return absl::OkStatus();
}

}  // namespace c_api
}  // namespace stepflow
