// GraphMgr: the partitions one worker session registered, and how a step of
// one of them runs on this worker.
//
// Register(graph_def) imports a partition the master sent (every node placed
// on a device of this worker; cross-task edges already _Send/_Recv pairs),
// splits it per local device and builds one executor per device
// (BuildPartitionExecutors, as DirectSession does). Kernels of stateful ops
// are shared by every graph of the session per (device, node) through an
// OpSegment, so their state (random streams) persists across signatures;
// variables live in the devices' resource managers anyway.
//
// ExecuteAsync(handle, step, request, response, done) runs one step: the
// request's `send`s are put into the step's rendezvous, every executor
// runs, and once all finished OK each `recv_key` is taken from the
// rendezvous into response->recv (same order). exec_opts.deadline_nanos
// (relative, Env clock) cancels the step when it passes; record_timeline
// fills response->step_stats.
//
// Partial runs (request.is_partial, TensorFlow's partial_run): several
// calls with the same step id. The first starts the executors; every call
// puts its sends into the rendezvous and answers once its recv_keys are
// there (while the executors go on); the call with is_last_partial_run
// also waits for the executors to finish and answers with their status.
// An executor error aborts the step's rendezvous, failing the fetches
// still waiting with it. No timeline for partial runs.
//
// Errors: Register: InvalidArgument for a node placed off this worker or a
// malformed partition (naming the node), and executor-construction errors.
// Unknown handle: Aborted. A step: the first executor error (root cause),
// DeadlineExceeded for exec_opts' deadline, InvalidArgument for a bad
// `send` or a dead fetched value, ResourceExhausted for a `send` over its
// destination device's memory budget (feeds are decoded with
// AllocatorForDevice, like received values).
//
// Ownership: devices and Env are borrowed; graphs are shared with running
// steps, so Deregister while a step runs is safe.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_GRAPH_MGR_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_GRAPH_MGR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "proto/worker.pb.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/function_runtime.h"
#include "runtime/common/op_segment.h"
#include "runtime/common/partition_executors.h"
#include "runtime/distributed/worker_steps.h"
#include "runtime/env/env.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {

class GraphMgr {
 public:
  using DoneCallback = std::function<void(const absl::Status&)>;

  // `handle_prefix` makes graph handles unique across sessions and worker
  // incarnations.
  GraphMgr(Env* env, const DeviceMgr* device_mgr, std::string handle_prefix);
  ~GraphMgr();

  absl::Status Register(const GraphDef& graph_def, std::string* handle);
  absl::Status Deregister(const std::string& handle);

  // `request` and `response` must stay valid until `done`.
  void ExecuteAsync(const std::string& handle, std::shared_ptr<WorkerStep> step,
                    const RunGraphRequest& request, RunGraphResponse* response,
                    DoneCallback done);

  size_t NumGraphs() const;

 private:
  struct Item;
  // Runs every executor of `item` for the step; `done` gets the first
  // error (DeadlineExceeded for exec_opts' deadline). Fills
  // response->step_stats when a timeline is asked for and `response` is
  // not null.
  void RunExecutors(std::shared_ptr<Item> item,
                    std::shared_ptr<WorkerStep> step,
                    const RunGraphRequest& request, RunGraphResponse* response,
                    DoneCallback done);

  Env* const env_;
  const DeviceMgr* const device_mgr_;
  const std::string handle_prefix_;
  // The devices' function runtimes (call kernels); outlives the graphs.
  FunctionRuntimeSet function_runtimes_{OpRegistry::Global()};

  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::shared_ptr<Item>> graphs_ ABSL_GUARDED_BY(mu_);

  // Kernels of stateful ops, shared by every graph of the worker session.
  OpSegment op_segment_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_GRAPH_MGR_H_
