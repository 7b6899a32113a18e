// GraphExecutionState: a session's full graph, and the factory of the
// pruned, placed "client graphs" each (feeds, fetches, targets) signature
// runs. A client graph is the full graph rewritten for the signature and
// pruned (subgraph.h), with the computations only control edges wait for
// replaced by NoOps (control_only_nodes.h), then placed (placer.h).
//
// Function calls and functional control flow (If/Case/While) are lowered
// to ordinary nodes when a graph is imported (Create and Extend), before
// any pruning or placement (runtime/function/lower_functional_ops.h); the
// full graph holds the lowered nodes and keeps the function library.
//
// The full graph only grows (Extend returns a new state holding old + new
// nodes). Placement happens per client graph, but a stateful node
// (variables, queues...) keeps the device it was first placed on for the
// life of the session, across signatures and Extends, so its state is
// never split.
//
// Thread-safety: BuildGraph may be called concurrently; the rest is
// immutable after construction.
#ifndef STEPFLOW_RUNTIME_COMMON_GRAPH_EXECUTION_STATE_H_
#define STEPFLOW_RUNTIME_COMMON_GRAPH_EXECUTION_STATE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/device_attributes.pb.h"
#include "proto/graph.pb.h"
#include "runtime/env/heap_releaser.h"
#include "runtime/framework/types.h"
#include "runtime/graph/graph.h"

namespace stepflow {

struct BuildGraphOptions {
  std::vector<std::string> feeds;    // Canonical "node:index", unique.
  std::vector<std::string> fetches;  // Canonical "node:index", unique.
  std::vector<std::string> targets;  // Node names.
  // _Arg/_Retval (DirectSession::Run) vs. _Recv/_Send (partial runs and the
  // distributed master).
  bool use_function_convention = true;
};

// A pruned graph ready to partition: every op node has an assigned device.
struct ClientGraph {
  std::unique_ptr<Graph> graph;
  DataTypeVector feed_types;   // In BuildGraphOptions.feeds order.
  DataTypeVector fetch_types;  // In BuildGraphOptions.fetches order.
};

class GraphExecutionState {
 public:
  struct Options {
    std::vector<DeviceAttributes> devices;  // Sorted by name.
    DeviceAttributes client_device;
    bool allow_soft_placement = false;
    bool log_device_placement = false;
    std::function<void(const std::string&)> log_sink;
    // Told when a large graph's import has freed its staging (null: never).
    HeapReleaser* heap_releaser = nullptr;
    // Whether BuildGraph folds convolutions' element-wise followers into
    // them after placement (runtime/graph/conv_epilogue_fusion.h; the
    // "remapping" of ConfigProto.graph_options.rewrite_options).
    bool fuse_conv_epilogues = false;
  };

  // Validates, lowers and imports `graph` (every GraphDef import rule and
  // the lowering's errors). Pass an rvalue to have `graph` consumed rather
  // than copied.
  static absl::Status Create(Options options, GraphDef graph,
                             std::unique_ptr<GraphExecutionState>* out);

  // A new state with `extension`'s nodes added. The receiver is unchanged.
  absl::Status Extend(const GraphDef& extension,
                      std::unique_ptr<GraphExecutionState>* out) const;

  // Prunes for `opts`, rewrites feeds/fetches, places and, when the options
  // say so, fuses convolution epilogues. Errors are those of pruning
  // (docs/semantics.md "Pruning") and placement.
  absl::Status BuildGraph(const BuildGraphOptions& opts,
                          std::unique_ptr<ClientGraph>* out);

  // The full graph, with attr defaults filled in (parsed anew each call).
  absl::Status GetOriginalGraphDef(GraphDef* out) const;
  const Options& options() const { return options_; }

 private:
  GraphExecutionState(Options options, std::string graph_def_bytes)
      : options_(std::move(options)),
        graph_def_bytes_(std::move(graph_def_bytes)) {}
  // A state for `graph` with `library` (InvalidArgument if it cannot be
  // serialized: over protobuf's 2 GB limit).
  static absl::Status FromGraph(const Options& options, const Graph& graph,
                                const FunctionDefLibrary& library,
                                std::unique_ptr<GraphExecutionState>* out);

  const Options options_;
  // The full graph, serialized: held for the session's life, it costs its
  // wire size (tens of bytes per node) rather than a parsed GraphDef's
  // (hundreds), and is parsed only to build a new client graph or extend.
  const std::string graph_def_bytes_;

  // Device assigned to each stateful node, by node name (sorted).
  mutable absl::Mutex mu_;
  std::map<std::string, std::string> stateful_placements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_GRAPH_EXECUTION_STATE_H_
