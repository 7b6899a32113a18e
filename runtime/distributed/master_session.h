// MasterSession: one client session on the master — its graph, the workers
// it runs on, and its steps.
//
// RunStep: prunes the graph for (feeds, fetches, targets) with the
// send/recv convention (feeds are _Recv and fetches _Send on the client
// device, CPU:0 of the first worker task), places it over every worker's
// devices, partitions it by task (cross-task edges become _Send/_Recv
// pairs) and registers each task's partition once (RegisterGraph; handles
// cached per order-insensitive signature). Each step then gets a fresh
// step id (env->random) and calls RunGraph on every task in parallel, the
// client's feeds routed as `send`s to the task holding their _Recv and the
// fetches as `recv_key`s; the first failure cancels the other calls;
// CleanupGraph(step) goes to every task afterwards, whatever happened.
//
// Errors: the root-cause error naming the task it came from; DeadlineExceeded
// when RunOptions.timeout_in_ms (else ConfigProto.operation_timeout_in_ms)
// passes (the RPC deadline and the workers' own step deadline); Cancelled
// "Session has been closed." once Close() was called (in-flight steps are
// cancelled); InvalidArgument for no graph, a feed of the wrong dtype, a
// stale graph version on Extend (FailedPrecondition); pruning and placement
// errors as docs/semantics.md says.
//
// Worker restarts: a step that fails with Aborted, Unavailable or
// DeadlineExceeded makes the session check its workers before its next
// step (GetStatus on every task). A worker that answers with a new
// incarnation (it restarted and lost its state) gets the session's worker
// session again, the placement is rebuilt for the new device incarnations
// and every signature is registered anew, so that next step runs. If a
// worker does not answer, that step fails with its error and the check is
// repeated before the following one. A restarted worker whose device list
// changed is FailedPrecondition (create a new session). Resources (e.g.
// variables) of a restarted worker are gone, as in TensorFlow.
//
// Expired leases: a worker that did not hear from this master for its
// session lease (the master paused or cut off, not restarted) drops the
// worker session. The session is not re-created there: every later step
// (and RegisterGraph for a new signature) fails with the worker's
// FailedPrecondition "Session '<handle>' is not found on task <T>: the
// lease ... expired ...; create a new session". No state is left behind:
// the failed step's partitions elsewhere are cleaned up as for any failed
// step, and Close still deletes the worker sessions that remain.
//
// Cleanup: CleanupGraph(step) goes to every task when a step ends; a
// successful step reports once the first attempts have answered, a failed
// one reports at once and cleans up behind (Close still waits for it). An
// attempt that failed with Unavailable or DeadlineExceeded (a partition, a
// dropped connection) is retried in the background with exponential backoff (up
// to kCleanupAttempts), so no step state is left on a worker that becomes
// reachable again. Close() cancels running steps, waits for them to finish
// their cleanup, then deletes the worker sessions (dropping their graphs;
// retried the same way) and calls `done` after the first attempts.
//
// Hung workers: with a WorkerMonitor (MasterIdentity::monitor), a running
// step watches its tasks and fails with Unavailable naming the task the
// monitor found unresponsive (its health checks missed), deadline or not.
// A RunGraph that got no answer (Unavailable or DeadlineExceeded from the
// transport) is the step's root cause over errors the other workers
// answered (a worker that answers DeadlineExceeded is alive; its step only
// waited for the hung one), and a worker's answered DeadlineExceeded does
// not cancel the other calls, which end by the same deadline. Tasks whose
// RunGraph went unanswered are not waited for by the step's cleanup or by
// Close (those calls go on, retried, in the background) until a RunGraph
// of theirs is answered again, so Close after such a failure is prompt.
//
// Partial runs (TensorFlow's partial_run): PartialRunSetup registers the
// signature of all the run's feeds, fetches and targets and starts its
// partitions on every task with one step id (RunGraph is_partial); each
// later RunStep with the handle routes its feeds and fetches to the tasks
// that hold them; the call that leaves nothing pending is the last
// (is_last_partial_run) and ends the step with CleanupGraph, as does any
// failure; Close() ends those between calls. Errors: InvalidArgument for
// an unknown handle or a feed/fetch not in the setup or already done;
// FailedPrecondition for a second call while one is in flight. Partial
// runs have no deadline.
//
// Ownership: held by shared_ptr (the master and every running step). The
// Env is borrowed; background cleanup retries use only the Env, which must
// outlive them.
// Thread-safety: thread-safe; handlers never block.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_SESSION_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_SESSION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/config.pb.h"
#include "proto/device_attributes.pb.h"
#include "proto/master.pb.h"
#include "proto/worker.pb.h"
#include "runtime/common/graph_execution_state.h"
#include "runtime/distributed/status_group.h"
#include "runtime/distributed/worker_monitor.h"
#include "runtime/env/env.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {

// A task of the session's cluster as GetStatus described it.
struct WorkerInfo {
  std::string task;
  uint64_t incarnation = 0;
  std::vector<DeviceAttributes> devices;  // Sorted by name.
};

// Fills `info`'s devices (sorted) and incarnation from a GetStatus answer.
void SetWorkerDevices(const GetStatusResponse& status, WorkerInfo* info);

// The master a session belongs to: named in CreateWorkerSession so workers
// lease the session to it (incarnation 0: no lease), and its health monitor
// (null: none).
struct MasterIdentity {
  std::string task;
  uint64_t incarnation = 0;
  std::shared_ptr<WorkerMonitor> monitor;
};

class MasterSession : public std::enable_shared_from_this<MasterSession> {
 public:
  using DoneCallback = std::function<void(const absl::Status&)>;

  // `workers` sorted by task; the client device is CPU:0 of workers[0].
  MasterSession(Env* env, std::string handle, ConfigProto config,
                std::vector<WorkerInfo> workers,
                MasterIdentity master = MasterIdentity());
  ~MasterSession();

  // Builds the session's graph from `graph` (empty: none yet).
  absl::Status Initialize(const GraphDef& graph);

  const std::string& handle() const { return handle_; }
  // The workers as last seen (incarnations change after restarts).
  std::vector<WorkerInfo> workers() const;

  absl::Status Extend(const ExtendSessionRequest& req,
                      ExtendSessionResponse* resp);
  int64_t graph_version() const;

  // `req` and `resp` must stay valid until `done`. A request with a
  // partial_run_handle is a call of that partial run.
  void RunStep(const RunStepRequest& req, RunStepResponse* resp,
               DoneCallback done);

  // Starts a partial run of (feeds, fetches, targets) and answers with its
  // handle; RunStep calls with the handle then feed and fetch in parts.
  void PartialRunSetup(const PartialRunSetupRequest& req,
                       PartialRunSetupResponse* resp, DoneCallback done);

  // Cancels the running steps, then asks every worker to delete its
  // session; answers OK once they answered (a worker that could not be
  // reached is logged as a warning, as TensorFlow's master does).
  void Close(DoneCallback done);

  // Fills the master's identity into a CreateWorkerSession request.
  void NameMaster(CreateWorkerSessionRequest* req) const;

  // Steps running now (for tests).
  int NumRunningSteps() const;
  // A step or partial-run call is being served (a partial run waiting for
  // its next call is not).
  bool HasCallsInFlight() const;
  // Registered signatures (for tests of the cache).
  size_t NumSignatures() const;

 private:
  struct Signature;
  struct Step;
  struct PartialRun;
  // The cluster as the session sees it; replaced as a whole after a worker
  // restart, while signatures and steps keep the view they were built for.
  struct ClusterView {
    std::vector<WorkerInfo> workers;  // Sorted by task.
    DeviceAttributes client_device;   // CPU:0 of workers[0].
    const WorkerInfo* FindWorker(const std::string& task) const;
  };
  using SignatureCallback =
      std::function<void(const absl::Status&, std::shared_ptr<Signature>)>;

  void GetOrCreateSignature(const std::vector<std::string>& feeds,
                            const std::vector<std::string>& fetches,
                            const std::vector<std::string>& targets,
                            SignatureCallback done);
  absl::Status BuildSignature(const std::vector<std::string>& feeds,
                              const std::vector<std::string>& fetches,
                              const std::vector<std::string>& targets,
                              std::shared_ptr<Signature>* out);
  void PartialRunStep(const RunStepRequest& req, RunStepResponse* resp,
                      DoneCallback done);
  // Counts a new step as running; Cancelled once closed, InvalidArgument
  // without a graph (`what` names the call).
  absl::Status BeginStep(const char* what);
  // Refreshes the workers if needed and finds or registers the signature,
  // then calls `then`; on failure finishes `step` with the error.
  void PrepareSignature(std::shared_ptr<Step> step,
                        const std::vector<std::string>& feeds,
                        const std::vector<std::string>& fetches,
                        const std::vector<std::string>& targets,
                        std::function<void(std::shared_ptr<Signature>)> then);
  // Runs `step` on every task of its signature (RunGraph), then
  // FinishStep with the first error or OK.
  void RunPartitions(std::shared_ptr<Step> step);
  // The request's feeds by canonical name; InvalidArgument for one whose
  // dtype is not the graph's.
  static absl::Status FeedValues(
      const RunStepRequest& req, const Signature& sig,
      std::map<std::string, const TensorProto*>* values);
  // The step's deadline for workers and RPCs (0: none).
  static int64_t StepTimeoutNanos(const Step& step);
  // The RunGraph request of signature part `part`: its share of the feeds
  // (`feed_values`) and of the fetches (`fetched`, canonical) as client
  // rendezvous keys.
  RunGraphRequest PartRequest(
      const Step& step, size_t part,
      const std::map<std::string, const TensorProto*>& feed_values,
      const std::set<std::string>& fetched) const;
  // Sends `rg` to the task of signature part `part`; its answer goes to
  // step->results[part] and its status to `group` (see "Hung workers").
  void CallRunGraph(std::shared_ptr<Step> step, size_t part, RunGraphRequest rg,
                    std::shared_ptr<StatusGroup> group);
  // CleanupGraph(step_id) to every task of `signature` (retried in the
  // background), then `after` once the first attempts answered.
  void CleanupStep(const Signature& signature, int64_t step_id,
                   std::function<void()> after);
  // Ends `step`: answers the client (Answer) and cleans up the workers
  // (CleanupStep), in the order described above.
  void FinishStep(std::shared_ptr<Step> step, absl::Status status);
  // A partial-run call ended with `status`: whether the run goes on (the
  // call succeeded and was not the last); if not, the run is forgotten.
  bool PartialRunGoesOn(const Step& step, const absl::Status& status);
  // Answers the client once: the fetched values on success, else the
  // error (in the response body when the request asks for that).
  void Answer(const std::shared_ptr<Step>& step, absl::Status status);
  // A failed step's error as the client sees it (Close's Cancelled is
  // ClosedError); errors that may mean a worker restarted mark the
  // workers for a check before the next step.
  absl::Status StepError(absl::Status status);
  // DeadlineExceeded when the step ran past its timeout and `status` is the
  // Cancelled or Aborted that followed (TensorFlow reports the timeout, not
  // its consequence); otherwise `status` unchanged.
  absl::Status DeadlineError(const Step& step, absl::Status status);
  // The fetched values, in the request's order, step stats and partition
  // graphs into `resp`; Internal when a fetch's value did not come back.
  static absl::Status FillResponse(const Step& step, RunStepResponse* resp);
  void StepEnded();
  // Whether the last RunGraph to `task` went unanswered (see above).
  bool Unresponsive(const std::string& task) const;
  void SetUnresponsive(const std::string& task, bool unresponsive);
  // Calls an idempotent clean-up `method` on `task` (retried in the
  // background); `first_done` gets the first attempt's status, or OK at
  // once for an unresponsive task.
  template <typename Req, typename Resp>
  void CleanupCall(const std::string& task, const std::string& method,
                   const Req& req,
                   std::function<void(const absl::Status&)> first_done);
  std::shared_ptr<const ClusterView> view() const;
  static std::shared_ptr<const ClusterView> MakeView(
      std::vector<WorkerInfo> workers);
  absl::Status NewExecutionState(const ClusterView& view, const GraphDef& graph,
                                 std::unique_ptr<GraphExecutionState>* out);

  // Worker restarts (see above). `done` runs once the workers are known to
  // be current (or with the error that prevented it).
  void RefreshWorkersIfNeeded(DoneCallback done);
  void RefreshedWorkers(std::shared_ptr<const ClusterView> old_view,
                        std::vector<WorkerInfo> now);
  void FinishRefresh(const absl::Status& status);

  Env* const env_;
  const std::string handle_;
  const ConfigProto config_;
  const MasterIdentity master_;

  CancellationManager cancellation_;  // Parent of every step's.
  // Numbers the nodes partitioning adds (_Send, _Recv, ...) across every
  // partition the session registers: a worker may keep the kernels of
  // stateful nodes by session and node name (TensorFlow's workers do), so
  // two registered partitions must never share such a name.
  std::atomic<int64_t> next_node_id_{0};

  mutable absl::Mutex mu_;
  std::shared_ptr<const ClusterView> view_ ABSL_GUARDED_BY(mu_);
  bool needs_refresh_ ABSL_GUARDED_BY(mu_) = false;
  bool refreshing_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<DoneCallback> refresh_waiters_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<GraphExecutionState> state_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int running_steps_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::function<void()>> on_idle_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<Signature>> signatures_
      ABSL_GUARDED_BY(mu_);
  // Partial runs between their setup and their last call, by handle.
  std::map<std::string, std::shared_ptr<PartialRun>> partial_runs_
      ABSL_GUARDED_BY(mu_);
  std::set<std::string> unresponsive_ ABSL_GUARDED_BY(mu_);  // Tasks.
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_SESSION_H_
