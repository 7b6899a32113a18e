#include "runtime/common/graph_execution_state.h"

#include <utility>

#include "runtime/common/placer.h"
#include "runtime/framework/status_macros.h"
#include "runtime/function/lower_functional_ops.h"
#include "runtime/graph/control_only_nodes.h"
#include "runtime/graph/conv_epilogue_fusion.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/subgraph.h"

namespace stepflow {
namespace {

// Imports `def` into a fresh graph (user graph: internal ops rejected),
// with its function calls inlined and functional control flow lowered.
// Consumes `def`. Shapes are inferred (and inconsistent ones refused)
// unless `def` is the session's own, already checked, graph.
absl::Status ImportUserGraph(GraphDef def, bool infer_shapes, Graph* g) {
  GraphConstructorOptions opts;
  opts.allow_internal_ops = false;
  opts.add_default_attributes = true;
  opts.infer_shapes = infer_shapes;
  if (!HasFunctionalOps(def, g->op_registry())) {
    return ConvertGraphDefToGraph(opts, std::move(def), g);
  }
  GraphDef lowered;
  SF_RETURN_IF_ERROR(LowerFunctionalOps(def, g->op_registry(), &lowered));
  def = GraphDef();
  return ConvertGraphDefToGraph(opts, std::move(lowered), g);
}

}  // namespace

absl::Status GraphExecutionState::FromGraph(
    const Options& options, const Graph& graph,
    const FunctionDefLibrary& library,
    std::unique_ptr<GraphExecutionState>* out) {
  std::string bytes;
  SF_RETURN_IF_ERROR(graph.ToSerializedGraphDef(library, &bytes));
  out->reset(new GraphExecutionState(options, std::move(bytes)));
  return absl::OkStatus();
}

absl::Status GraphExecutionState::GetOriginalGraphDef(GraphDef* out) const {
  if (!out->ParseFromString(graph_def_bytes_)) {
    return absl::InternalError("The session's graph could not be re-read");
  }
  return absl::OkStatus();
}

absl::Status GraphExecutionState::Create(
    Options options, GraphDef graph,
    std::unique_ptr<GraphExecutionState>* out) {
  const FunctionDefLibrary library = graph.library();
  Graph g;
  SF_RETURN_IF_ERROR(
      ImportUserGraph(std::move(graph), /*infer_shapes=*/true, &g));
  // Keep the user's GraphDef with defaults filled in (round-tripped through
  // the validated graph so every later import sees canonical NodeDefs).
  return FromGraph(options, g, library, out);
}

absl::Status GraphExecutionState::Extend(
    const GraphDef& extension,
    std::unique_ptr<GraphExecutionState>* out) const {
  GraphDef original;
  SF_RETURN_IF_ERROR(GetOriginalGraphDef(&original));
  const FunctionDefLibrary library = original.library();
  Graph g;
  SF_RETURN_IF_ERROR(
      ImportUserGraph(std::move(original), /*infer_shapes=*/true, &g));
  GraphConstructorOptions opts;
  opts.allow_internal_ops = false;
  opts.add_default_attributes = true;
  if (HasFunctionalOps(extension, g.op_registry())) {
    // The extension's calls may use functions of either library.
    GraphDef with_library = extension;
    *with_library.mutable_library() = library;
    with_library.mutable_library()->MergeFrom(extension.library());
    GraphDef lowered;
    SF_RETURN_IF_ERROR(
        LowerFunctionalOps(with_library, g.op_registry(), &lowered));
    *lowered.mutable_library() = extension.library();
    SF_RETURN_IF_ERROR(ImportGraphDef(opts, lowered, &g));
  } else {
    SF_RETURN_IF_ERROR(ImportGraphDef(opts, extension, &g));
  }
  FunctionDefLibrary merged_library = library;
  if (extension.has_library()) {
    merged_library.MergeFrom(extension.library());
  }
  std::unique_ptr<GraphExecutionState> next;
  SF_RETURN_IF_ERROR(FromGraph(options_, g, merged_library, &next));
  {
    absl::MutexLock l(&mu_);
    absl::MutexLock l2(&next->mu_);
    next->stateful_placements_ = stateful_placements_;
  }
  *out = std::move(next);
  return absl::OkStatus();
}

absl::Status GraphExecutionState::BuildGraph(
    const BuildGraphOptions& opts, std::unique_ptr<ClientGraph>* out) {
  auto g = std::make_unique<Graph>();
  {
    GraphDef original;
    SF_RETURN_IF_ERROR(GetOriginalGraphDef(&original));
    SF_RETURN_IF_ERROR(ImportUserGraph(std::move(original),
                                       /*infer_shapes=*/false, g.get()));
  }
  // The import's staging is freed; placement and the executors reuse
  // released pages rather than the ones it left resident.
  ReleaseFreeHeapAfterGraph(options_.heap_releaser, g->num_nodes());

  subgraph::RewriteGraphMetadata metadata;
  SF_RETURN_IF_ERROR(subgraph::RewriteGraphForExecution(
      g.get(), opts.feeds, opts.fetches, opts.targets, options_.client_device,
      opts.use_function_convention, &metadata));
  // Skip computations that only something's control edge waits for.
  SF_RETURN_IF_ERROR(ConvertControlOnlyNodesToNoOps(
                         g.get(), absl::flat_hash_set<std::string>(
                                      opts.targets.begin(), opts.targets.end()))
                         .status());

  // Pin stateful nodes where they already live.
  {
    absl::MutexLock l(&mu_);
    for (Node* n : g->op_nodes()) {
      auto it = stateful_placements_.find(n->name());
      if (it != stateful_placements_.end()) {
        n->set_assigned_device_name(it->second);
      }
    }
  }

  PlacerOptions popts;
  // The client CPU is the default device, except that with GPUs present
  // ops that have a GPU kernel go to a GPU (TensorFlow's DirectSession
  // places them there too).
  bool has_gpu = false;
  for (const DeviceAttributes& d : options_.devices) {
    if (d.device_type() == "GPU") has_gpu = true;
  }
  popts.default_device = has_gpu ? nullptr : &options_.client_device;
  popts.allow_soft_placement = options_.allow_soft_placement;
  popts.log_device_placement = options_.log_device_placement;
  popts.log_sink = options_.log_sink;
  SF_RETURN_IF_ERROR(PlaceGraph(popts, options_.devices, g.get()));

  {
    absl::MutexLock l(&mu_);
    for (Node* n : g->op_nodes()) {
      if (n->IsStateful() && !n->IsSend() && !n->IsRecv() && !n->IsArg() &&
          !n->IsRetval()) {
        stateful_placements_.emplace(n->name(), n->assigned_device_name());
      }
    }
  }

  if (options_.fuse_conv_epilogues) {
    SF_RETURN_IF_ERROR(FuseConvEpilogues(g.get()).status());
  }

  auto cg = std::make_unique<ClientGraph>();
  cg->graph = std::move(g);
  cg->feed_types = std::move(metadata.feed_types);
  cg->fetch_types = std::move(metadata.fetch_types);
  *out = std::move(cg);
  return absl::OkStatus();
}

}  // namespace stepflow
