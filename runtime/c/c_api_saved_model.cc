// TF_LoadSessionFromSavedModel: a session over a SavedModel's MetaGraph,
// registered with a TF_Graph that receives the same graph.
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/config.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/env/real/process_env.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/saved_model/loader.h"

namespace stepflow {
namespace c_api {
namespace {

absl::Status LoadIntoGraph(const TF_SessionOptions* session_options,
                           const TF_Buffer* run_options, const char* export_dir,
                           const char* const* tags, int tags_len,
                           TF_Graph* graph, TF_Buffer* meta_graph_def,
                           TF_Session** out) {
  if (session_options == nullptr || export_dir == nullptr || graph == nullptr ||
      tags_len < 0 || (tags_len > 0 && tags == nullptr)) {
    return absl::InvalidArgumentError(
        "TF_LoadSessionFromSavedModel: session_options, export_dir, graph "
        "and tags are required");
  }
  {
    absl::MutexLock l(&graph->mu);
    if (graph->graph.num_op_nodes() > 0) {
      return absl::InvalidArgumentError("Graph is non-empty.");
    }
  }
  RunOptions run_options_proto;
  if (run_options != nullptr && run_options->data != nullptr &&
      !run_options_proto.ParseFromArray(
          run_options->data, static_cast<int>(run_options->length))) {
    return absl::InvalidArgumentError("Unparseable RunOptions proto");
  }
  std::unordered_set<std::string> tag_set;
  for (int i = 0; i < tags_len; ++i) {
    if (tags[i] == nullptr) {
      return absl::InvalidArgumentError(
          "TF_LoadSessionFromSavedModel: a tag is NULL");
    }
    tag_set.insert(tags[i]);
  }
  SessionOptions options;
  options.target = session_options->target;
  options.config = session_options->config;
  options.env =
      session_options->env != nullptr ? session_options->env : ProcessEnv();
  options.rendezvous_factory = session_options->rendezvous_factory;
  SavedModelBundle bundle;
  absl::Status s =
      LoadSavedModel(options, run_options_proto, export_dir, tag_set, &bundle);
  if (!s.ok()) return s;
  std::string meta_graph_bytes;
  if (meta_graph_def != nullptr &&
      !bundle.meta_graph_def.SerializeToString(&meta_graph_bytes)) {
    return absl::InternalError("could not serialize the MetaGraphDef");
  }

  auto* session = new TF_Session;
  session->session = std::move(bundle.session);
  session->graph = graph;
  {
    absl::MutexLock l(&graph->mu);
    // The graph the session already holds, so the session's next run has
    // nothing to extend it with.
    if (graph->graph.num_op_nodes() > 0) {
      s = absl::InvalidArgumentError("Graph is non-empty.");
    } else {
      GraphConstructorOptions gopts;
      gopts.allow_function_calls = true;
      s = ImportGraphDef(gopts, bundle.meta_graph_def.graph_def(),
                         &graph->graph);
    }
    if (s.ok()) {
      session->id = graph->next_session_id++;
      TF_Graph::SessionEntry entry;
      entry.last_num_graph_nodes = graph->graph.num_node_ids();
      graph->sessions.emplace(session->id, entry);
    }
  }
  if (!s.ok()) {
    session->session->Close().IgnoreError();
    delete session;
    return s;
  }
  if (meta_graph_def != nullptr)
    SetBufferBytes(meta_graph_bytes, meta_graph_def);
  *out = session;
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

extern "C" {

TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len,
    TF_Graph* graph, TF_Buffer* meta_graph_def, TF_Status* status) {
  TF_Session* session = nullptr;
  stepflow::c_api::Set(
      status, stepflow::c_api::LoadIntoGraph(session_options, run_options,
                                             export_dir, tags, tags_len, graph,
                                             meta_graph_def, &session));
  return session;
}

}  // extern "C"
