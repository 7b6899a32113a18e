// DirectSession: the in-process Session (target ""). Runs each step's
// partition graphs on local devices with one executor per device.
//
// Per (feeds, fetches, targets) set — order-insensitive — the session prunes,
// places and partitions the graph once and caches the executors; repeated
// Runs reuse them (a Run also caches how its own spelling and order of the
// names maps onto them). The last partition of a Run starts on the calling
// thread (Executor::Run), the others on the Env's scheduler, so a small
// one-device step runs without a thread hand-off; PRun steps start on the
// scheduler. Each step gets a fresh step id, rendezvous, cancellation
// manager (child of the session's, so Close cancels it) and per-step
// resource container. Time-outs (RunOptions.timeout_in_ms, else
// ConfigProto.operation_timeout_in_ms) cancel the step and return
// DeadlineExceeded only after every executor has stopped.
//
// Thread-safety: all public methods are thread-safe; Runs proceed
// concurrently. Env is borrowed (SessionOptions).
#ifndef STEPFLOW_RUNTIME_COMMON_DIRECT_SESSION_H_
#define STEPFLOW_RUNTIME_COMMON_DIRECT_SESSION_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/common/callable_registry.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/common/function_runtime.h"
#include "runtime/common/graph_execution_state.h"
#include "runtime/common/op_segment.h"
#include "runtime/common/session.h"
#include "runtime/common/step_stats_collector.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {

struct ExecutorsAndKeys;
struct PartialRunState;
struct RunPlan;
struct StepState;

class DirectSession : public CallableSession {
 public:
  DirectSession(const SessionOptions& options,
                std::unique_ptr<DeviceMgr> device_mgr);
  ~DirectSession() override;

  absl::Status Create(const GraphDef& graph) override;
  absl::Status Create(GraphDef&& graph) override;
  absl::Status Extend(const GraphDef& graph) override;
  absl::Status Run(const RunOptions& run_options, const FeedList& inputs,
                   const std::vector<std::string>& output_names,
                   const std::vector<std::string>& target_names,
                   std::vector<Tensor>* outputs,
                   RunMetadata* run_metadata) override;
  using Session::Run;
  absl::Status PRunSetup(const std::vector<std::string>& input_names,
                         const std::vector<std::string>& output_names,
                         const std::vector<std::string>& target_names,
                         std::string* handle) override;
  // Calls on one handle may overlap (as in TensorFlow), each with feeds and
  // fetches not yet fed or fetched.
  absl::Status PRun(const std::string& handle, const FeedList& inputs,
                    const std::vector<std::string>& output_names,
                    std::vector<Tensor>* outputs) override;
  absl::Status ListDevices(std::vector<DeviceAttributes>* devices) override;
  absl::Status Close() override;
  absl::Status Reset(const std::vector<std::string>& containers) override;

  // How many times a (feeds, fetches, targets) set was pruned, placed and
  // partitioned (for tests of the executor cache).
  int64_t num_executor_builds() const { return num_executor_builds_.load(); }
  // Partial runs still holding state (for leak checks).
  size_t num_partial_runs() const;
  // Steps and partial runs still registered for cancellation on Close (for
  // leak checks: 0 when nothing runs).
  size_t num_cancellation_registrations() const {
    return session_cancellation_.NumRegisteredCallbacks();
  }

  const DeviceMgr* device_mgr() const { return device_mgr_.get(); }

 private:
  // How a step is cancelled: by Close (through the session's cancellation
  // manager) and by its deadline timer (0: none).
  struct StepCancellation {
    CancellationToken token = 0;
    Scheduler::TimerId timer = 0;
    int64_t timeout_ms = 0;
  };

  absl::Status CheckNotClosed() const override;
  // InvalidArgument unless a graph was created.
  absl::Status CheckHasGraph() const;
  absl::Status ExtendLocked(GraphDef graph)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph_mu_);
  // Finds or builds the executors for a signature. `feeds`, `fetches` are
  // canonical ("node:index").
  absl::Status GetOrCreateExecutors(const std::vector<std::string>& feeds,
                                    const std::vector<std::string>& fetches,
                                    const std::vector<std::string>& targets,
                                    bool partial_run,
                                    std::shared_ptr<ExecutorsAndKeys>* out);
  absl::Status BuildExecutors(const BuildGraphOptions& opts,
                              std::shared_ptr<ExecutorsAndKeys>* out);
  // Resolves Run's names, as the caller spelled and ordered them, to the
  // signature's executors and to argument / return value indices. Cached
  // by those exact names, so a repeated Run neither canonicalises nor
  // sorts; errors are those of GetOrCreateExecutors (nothing is cached).
  absl::Status GetOrCreateRunPlan(const FeedList& inputs,
                                  const std::vector<std::string>& output_names,
                                  const std::vector<std::string>& target_names,
                                  std::shared_ptr<const RunPlan>* plan);
  int64_t NewStepId();
  // The step's rendezvous (one reference): options_.rendezvous_factory's, or
  // an IntraProcessRendezvous.
  Rendezvous* NewStepRendezvous(int64_t step_id);
  // A fresh step for `ek`'s executors, with its own rendezvous.
  std::shared_ptr<StepState> NewStep(int64_t step_id,
                                     const ExecutorsAndKeys& ek);
  int64_t StepTimeoutMs(const RunOptions& run_options) const;

  // Run's pieces, in the order Run calls them.
  // The caller's feeds as the call frame's arguments (in the executors'
  // order); InvalidArgument for a feed of the wrong dtype.
  static absl::Status SetRunArgs(const RunPlan& plan, const FeedList& inputs,
                                 FunctionCallFrame* call_frame);
  // Cancels `step` on Close and when `timeout_ms` (> 0) passes.
  // ClosedError when the session closed already.
  absl::Status RegisterStepCancellation(const std::shared_ptr<StepState>& step,
                                        int64_t timeout_ms,
                                        StepCancellation* cancellation);
  void DeregisterStepCancellation(const StepCancellation& cancellation);
  // Runs one step of every executor of `ek` and waits for all of them.
  void RunExecutorsAndWait(const ExecutorsAndKeys& ek, int64_t step_id,
                           const std::shared_ptr<StepState>& step,
                           FunctionCallFrame* call_frame,
                           StepStatsCollector* stats);
  // The step's outcome as Run reports it: DeadlineExceeded when its
  // deadline cancelled it, ClosedError when Close did, else its status.
  absl::Status RunStatus(StepState& step, int64_t step_id,
                         int64_t timeout_ms) const;

  // PRun's pieces, in the order PRun calls them.
  // The partial run of `handle`; InvalidArgument for an unknown one.
  absl::Status FindPartialRun(const std::string& handle,
                              std::shared_ptr<PartialRunState>* run) const;
  // Ends a partial run: on error aborts its step; waits for the executors
  // and drops the state. Returns `status`.
  absl::Status EndPartialRun(PartialRunState* run, const absl::Status& status);
  // Sends the feeds (canonical names `feed_names`) to the run's step; a
  // failed Send ends the run.
  absl::Status SendPartialRunFeeds(PartialRunState* run, const FeedList& inputs,
                                   const std::vector<std::string>& feed_names);
  // Receives every fetch of `fetch_names` from the run's step; a failed
  // fetch ends the run with the step's error (else the fetch's).
  absl::Status RecvPartialRunFetches(
      PartialRunState* run, const std::vector<std::string>& fetch_names,
      std::vector<Tensor>* outputs);

  const SessionOptions options_;
  Env* const env_;
  const std::unique_ptr<DeviceMgr> device_mgr_;
  // The devices' function runtimes (call kernels); declared before the
  // executors so it outlives them.
  FunctionRuntimeSet function_runtimes_{OpRegistry::Global()};

  // Cancels every running step on Close().
  CancellationManager session_cancellation_;
  std::atomic<bool> closed_{false};

  mutable absl::Mutex graph_mu_;
  std::shared_ptr<GraphExecutionState> execution_state_
      ABSL_GUARDED_BY(graph_mu_);

  mutable absl::Mutex executors_mu_;
  // Keyed by the sorted signature; std::map for deterministic iteration.
  std::map<std::string, std::shared_ptr<ExecutorsAndKeys>> executors_
      ABSL_GUARDED_BY(executors_mu_);
  // Keyed by RunPlanKey (the caller's names); lookups only.
  absl::flat_hash_map<std::string, std::shared_ptr<const RunPlan>> run_plans_
      ABSL_GUARDED_BY(executors_mu_);
  std::atomic<int64_t> num_executor_builds_{0};

  mutable absl::Mutex partial_runs_mu_;
  std::map<std::string, std::shared_ptr<PartialRunState>> partial_runs_
      ABSL_GUARDED_BY(partial_runs_mu_);

  std::atomic<int64_t> next_step_id_;

  // TensorFlow's OpSegment: one kernel per stateful node per device for the
  // whole session, shared by every signature's executors.
  OpSegment op_segment_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_DIRECT_SESSION_H_
