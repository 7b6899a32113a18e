// BuildPartitionExecutors: turns a placed graph into one executor per
// device, the way both DirectSession (a signature's client graph) and
// GraphMgr (a partition the master registered with a worker) do it.
//
// The graph is split by assigned device with Partition (adding the local
// _Send/_Recv pairs and loop control scaffolding), every partition is
// imported (internal ops allowed, devices from the NodeDefs) and gets an
// executor whose stateful kernels come from the session's OpSegment.
// Incarnations of the Send/Recv keys are the devices' own.
//
// Errors: InvalidArgument/NotFound from Partition or the import (naming the
// node), NotFound for a device the DeviceMgr does not have, and the
// executors' construction errors (naming the node).
// Ownership: everything in the options is borrowed and must outlive the
// executors. Thread-safety: a pure function of its arguments; the OpSegment
// it shares kernels through is thread-safe.
#ifndef STEPFLOW_RUNTIME_COMMON_PARTITION_EXECUTORS_H_
#define STEPFLOW_RUNTIME_COMMON_PARTITION_EXECUTORS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/common/device.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/executor.h"
#include "runtime/common/function_runtime.h"
#include "runtime/common/op_segment.h"
#include "runtime/env/env.h"
#include "runtime/graph/graph.h"

namespace stepflow {

// The executor of one device's partition.
struct PartitionExecutor {
  Device* device = nullptr;  // Borrowed from the DeviceMgr.
  std::unique_ptr<Executor> executor;
  // The partition's graph, owned by `executor` and immutable for its
  // lifetime (RunMetadata's partition_graphs are written from it on
  // demand, with Graph::ToGraphDef).
  const Graph* graph = nullptr;
};

struct PartitionExecutorsOptions {
  Env* env = nullptr;
  // Has every device a node of the graph is assigned to (full names).
  const DeviceMgr* device_mgr = nullptr;
  // Where stateful kernels are shared; null makes every kernel private.
  OpSegment* op_segment = nullptr;
  // The session's function runtimes: each executor's kernels get their
  // device's runtime, which learns the partition's function library. Null
  // leaves call kernels without one (they fail with Internal).
  FunctionRuntimeSet* function_runtimes = nullptr;
};

// Fills `executors` (sorted by device name) for `graph`, whose op nodes all
// carry an assigned device (a full device name). Consumes the graph. A graph
// whose nodes all sit on one device is its own partition (no Send/Recv to
// add) and goes to the executor as it is, unless pruning left most of its
// node ids unused. Otherwise its NodeDefs move into the partitions
// (Partition's take_node_defs) and the rest of it is freed before each
// partition is imported, so a large graph is never held twice.
absl::Status BuildPartitionExecutors(const PartitionExecutorsOptions& options,
                                     std::unique_ptr<Graph> graph,
                                     std::vector<PartitionExecutor>* executors);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_PARTITION_EXECUTORS_H_
