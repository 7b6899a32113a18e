// Worker: the handler of "WorkerService/*" for one task of a cluster.
//
// A worker owns its task's CPU devices ("/job:J/replica:0/task:T/device:
// CPU:i"), draws an incarnation from env->random when created (every device
// reports it), and keeps per worker session a GraphMgr (registered
// partitions) and, per step, a WorkerSteps entry (rendezvous +
// cancellation).
//
// Methods: GetStatus (devices), CreateWorkerSession / DeleteWorkerSession
// (deleting drops the session's graphs), RegisterGraph / DeregisterGraph,
// RunGraph (runs a registered partition for a step id), CleanupGraph (aborts
// and drops the step's state), RecvTensor (answers another worker's _Recv
// from this worker's step rendezvous once the value is sent; may come
// before the step starts here), CleanupAll (clears resource containers),
// Logging (RPC logging of the RecvTensor calls it answers: WorkerRpcLog),
// Tracing (Unimplemented, as on TensorFlow's workers).
//
// Leases (WorkerLeases): a worker session created by a master that named
// itself (CreateWorkerSession's master_task/master_incarnation) is dropped,
// with its graphs and the state of its steps, once that master has not been
// heard from (its heartbeat GetStatus, or any call for one of its sessions)
// for Options::session_lease_nanos, or as soon as a new incarnation of the
// same master task creates a session. A later call for a dropped session
// (its master was silent — paused, cut off — but may live on) is
// FailedPrecondition "Session '<h>' is not found on task <T>: the lease of
// <master> on worker <T> expired (...); ... create a new session", never a
// re-created session (a late CreateWorkerSession for it is refused the same
// way): the master's session cannot be used any more and the client must
// create a new one. The last 1024 dropped handles are remembered; older
// ones are Aborted (not found) like any unknown handle. Step state a
// RecvTensor created for a step whose RunGraph never came within the lease
// (its master died mid-step) is cleaned up too (WorkerSteps' orphans).
//
// Errors: a request naming another incarnation (a restarted worker) is
// Aborted; so is an unknown session or graph handle, a repeated request id
// (RunGraph, RecvTensor) and a RecvTensor whose key names an incarnation of
// a device this worker no longer has. Unknown methods are Unimplemented.
// Handlers never block: they complete through `done`.
//
// Ownership: the Env is borrowed. Serving is the caller's business
// (transport->Serve(task(), worker)). Destroying a worker cancels its steps;
// it must outlive every call it is handling.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/worker.pb.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/device_mgr.h"
#include "runtime/distributed/expired_session_log.h"
#include "runtime/distributed/graph_mgr.h"
#include "runtime/distributed/recent_request_ids.h"
#include "runtime/distributed/worker_leases.h"
#include "runtime/distributed/worker_rpc_log.h"
#include "runtime/distributed/worker_steps.h"
#include "runtime/env/env.h"
#include "runtime/env/transport.h"

namespace stepflow {

class Worker : public RpcHandler {
 public:
  struct Options {
    // Drop the sessions of a master not heard from this long (0: never).
    int64_t session_lease_nanos = 0;
    // The devices' memory budgets (the process budget is borrowed and must
    // outlive the worker): a tensor over budget fails its step with
    // ResourceExhausted and the worker serves on.
    CpuDeviceOptions memory;
  };

  // `task` is "/job:J/replica:R/task:T"; `num_cpus` >= 1.
  static absl::Status Create(Env* env, const std::string& task, int num_cpus,
                             const Options& options,
                             std::unique_ptr<Worker>* out);
  static absl::Status Create(Env* env, const std::string& task, int num_cpus,
                             std::unique_ptr<Worker>* out) {
    return Create(env, task, num_cpus, Options(), out);
  }
  ~Worker() override;

  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override;

  const std::string& task() const { return task_; }
  uint64_t incarnation() const { return incarnation_; }
  const DeviceMgr* device_mgr() const { return device_mgr_.get(); }

  // Cancels every step with `status` and drops its state (a process
  // going away: the simulator's crash, or shutdown).
  void AbortAllSteps(const absl::Status& status) { steps_.CleanupAll(status); }

  // For leak checks: all 0 when no session exists and no step runs.
  size_t NumSessions() const;
  size_t NumRegisteredGraphs() const;
  size_t NumSteps() const { return steps_.NumSteps(); }
  // RunGraph executions whose executors have not finished. A process that
  // destroys the worker first aborts its steps (AbortAllSteps) and waits for
  // this to reach 0: running executors use the worker's devices.
  int64_t NumRunningGraphs() const {
    return running_graphs_->load(std::memory_order_acquire);
  }
  // Sessions dropped because their master's lease ran out or was replaced.
  int64_t NumExpiredSessions() const;

 private:
  Worker(Env* env, std::string task, uint64_t incarnation,
         std::unique_ptr<DeviceMgr> device_mgr, const Options& options);

  // Forgets `handles` and cleans up their steps; `expired`: a lease ran
  // out (counted in NumExpiredSessions, and remembered with `reason`),
  // else the master deleted them.
  void DropSessions(const std::vector<std::string>& handles, bool expired,
                    const std::string& reason = "");
  void RememberExpiredLocked(const std::string& handle,
                             const std::string& reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FailedPrecondition naming the task and why, for a session whose lease
  // expired; OK for any other handle.
  absl::Status ExpiredLocked(const std::string& handle) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Status CheckIncarnation(uint64_t incarnation) const;
  absl::Status FindSession(const std::string& handle,
                           std::shared_ptr<GraphMgr>* out) const;

  void GetStatus(const GetStatusRequest& req, GetStatusResponse* resp,
                 DoneCallback done);
  void CreateWorkerSession(const CreateWorkerSessionRequest& req,
                           CreateWorkerSessionResponse* resp,
                           DoneCallback done);
  void DeleteWorkerSession(const DeleteWorkerSessionRequest& req,
                           DeleteWorkerSessionResponse* resp,
                           DoneCallback done);
  void RegisterGraph(const RegisterGraphRequest& req,
                     RegisterGraphResponse* resp, DoneCallback done);
  void DeregisterGraph(const DeregisterGraphRequest& req,
                       DeregisterGraphResponse* resp, DoneCallback done);
  void RunGraph(const RunGraphRequest& req, RunGraphResponse* resp,
                DoneCallback done);
  void CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse* resp,
                    DoneCallback done);
  void RecvTensor(const RecvTensorRequest& req, RecvTensorResponse* resp,
                  DoneCallback done);
  void CleanupAll(const CleanupAllRequest& req, CleanupAllResponse* resp,
                  DoneCallback done);
  void Logging(const LoggingRequest& req, LoggingResponse* resp,
               DoneCallback done);
  void Tracing(const TracingRequest& req, TracingResponse* resp,
               DoneCallback done);

  Env* const env_;
  const std::string task_;
  const uint64_t incarnation_;
  const std::unique_ptr<DeviceMgr> device_mgr_;
  WorkerSteps steps_;
  // Shared with the executions' callbacks, which may outlive the worker.
  std::shared_ptr<std::atomic<int64_t>> running_graphs_ =
      std::make_shared<std::atomic<int64_t>>(0);
  RecentRequestIds request_ids_;
  WorkerRpcLog rpc_log_;

  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<GraphMgr>> sessions_
      ABSL_GUARDED_BY(mu_);
  // The session each running step belongs to (until CleanupGraph).
  std::map<int64_t, std::string> step_sessions_ ABSL_GUARDED_BY(mu_);
  int64_t expired_sessions_ ABSL_GUARDED_BY(mu_) = 0;
  // The last kRememberedExpiredSessions sessions whose lease expired, and
  // why (their handles are unique: no master uses one again).
  static constexpr size_t kRememberedExpiredSessions = 1024;
  ExpiredSessionLog expired_log_ ABSL_GUARDED_BY(mu_){
      kRememberedExpiredSessions};
  // Last: destroyed first, so no expiry runs into a half-destroyed worker.
  std::unique_ptr<WorkerLeases> leases_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_H_
