// Master: the handler of "MasterService/*" — what a client session asks a
// cluster.
//
// The master knows the cluster's worker tasks (given at construction) and
// reaches them only through env->transport. CreateSession asks every worker
// for its devices (GetStatus), builds a MasterSession over all of them,
// creates a worker session on each (with the incarnation GetStatus
// reported) and returns a handle drawn from env->random. ExtendSession,
// RunStep and CloseSession go to the session; ListDevices lists the
// session's devices (or, without a handle, asks every worker); Reset
// clears resource containers on every worker (CleanupAll).
//
// Callables (MakeCallable / RunCallable / ReleaseCallable, what
// TensorFlow's GrpcSession sends for Session::MakeCallable): each session
// keeps a CallableRegistry (runtime/common/callable_registry.h); a
// RunCallable runs as the session's RunStep with the callable's feeds
// (named in CallableOptions.feed order), fetches, targets and run options,
// and answers the fetched tensors in CallableOptions.fetch order. Errors
// are the registry's (unknown handle, wrong feed count: InvalidArgument;
// tensor_connection: Unimplemented) or the step's.
//
// Session garbage collection (Options::session_gc_nanos > 0, as
// TensorFlow's session_gc_seconds): a session no RPC has used for that
// long, with no call being served (a partial run waiting for its next call
// does not count), is closed by the master — so a session whose
// client vanished, or whose CreateSession answer was lost and retried,
// does not hold worker state for ever. Timers come from env->scheduler;
// the destructor cancels those not yet running, so with GC on, destroy the
// master where no timer of its can be running (after the scheduler has
// drained, or on the simulator's thread).
//
// Health and leases (Options::health_check_interval_nanos > 0): the master
// draws an incarnation (env->random) and, while it holds sessions, sends
// every worker a heartbeat GetStatus naming itself each interval
// (WorkerMonitor). Workers lease the master's worker sessions to it and
// drop them if the heartbeats stop (the master crashed or is cut off): see
// Worker. A running step fails with Unavailable naming a task that missed
// health_check_max_missed checks in a row. Off (0) by default here; the
// server binary turns it on.
//
// A CreateSession that took longer than the config's
// operation_timeout_in_ms (the client's deadline has passed: nobody would
// learn its handle) closes the session it made and answers
// DeadlineExceeded.
//
// Errors: an unknown session handle is Aborted ("Session ... is not found");
// a repeated RunStep or PartialRunSetup request id is Aborted; a worker
// that does not answer makes CreateSession fail with its error naming the
// task. Handlers never block.
//
// Ownership: the Env is borrowed; the master must outlive every call it is
// handling. Destroying it closes nothing on the workers.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/master.pb.h"
#include "runtime/common/callable_registry.h"
#include "runtime/distributed/master_session.h"
#include "runtime/distributed/recent_request_ids.h"
#include "runtime/env/env.h"
#include "runtime/env/transport.h"

namespace stepflow {

class Master : public RpcHandler {
 public:
  struct Options {
    // Close sessions idle this long (0: never).
    int64_t session_gc_nanos = 0;
    // This master's task, named in heartbeats (may be empty); its CPU:0 is
    // the client device when it is one of the workers.
    std::string task;
    // Heartbeat / health-check period (0: no checks, no leases).
    int64_t health_check_interval_nanos = 0;
    // Missed checks in a row that make a task unresponsive.
    int health_check_max_missed = 3;
  };

  // `worker_tasks`: "/job:J/replica:R/task:T" names. Every session's
  // client device (where unplaced nodes go, as TensorFlow's master puts
  // them on its own task) is the CPU:0 of options.task if that is one of
  // them, else of the first in sorted order.
  Master(Env* env, std::vector<std::string> worker_tasks,
         const Options& options);
  Master(Env* env, std::vector<std::string> worker_tasks)
      : Master(env, std::move(worker_tasks), Options()) {}
  ~Master() override;

  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override;

  size_t NumSessions() const;
  // Sessions closed by garbage collection so far.
  int64_t NumCollectedSessions() const;
  // The session behind `handle`, or null (for tests).
  std::shared_ptr<MasterSession> FindSessionForTest(
      const std::string& handle) const;

 private:
  struct SessionEntry {
    std::shared_ptr<MasterSession> session;
    std::shared_ptr<CallableRegistry> callables =
        std::make_shared<CallableRegistry>();
    int64_t last_use_nanos = 0;
    Scheduler::TimerId gc_timer = 0;
  };

  // Finds the session and marks it used now.
  absl::Status FindSession(
      const std::string& handle, std::shared_ptr<MasterSession>* out,
      std::shared_ptr<CallableRegistry>* callables = nullptr);
  // Arms the GC timer of `handle` to fire `delay` from now.
  void ArmGc(const std::string& handle, int64_t delay)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CollectIfIdle(const std::string& handle);
  // Heartbeats run while sessions exist.
  void UpdateMonitorLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // GetStatus on every worker (timeout_nanos 0: no deadline).
  void GetAllStatus(
      int64_t timeout_nanos,
      std::function<void(const absl::Status&, std::vector<WorkerInfo>)> done);

  void CreateSession(const CreateSessionRequest& req,
                     CreateSessionResponse* resp, DoneCallback done);
  void ExtendSession(const ExtendSessionRequest& req,
                     ExtendSessionResponse* resp, DoneCallback done);
  void RunStep(const RunStepRequest& req, RunStepResponse* resp,
               DoneCallback done);
  void PartialRunSetup(const PartialRunSetupRequest& req,
                       PartialRunSetupResponse* resp, DoneCallback done);
  void CloseSession(const CloseSessionRequest& req, CloseSessionResponse* resp,
                    DoneCallback done);
  void ListDevices(const ListDevicesRequest& req, ListDevicesResponse* resp,
                   DoneCallback done);
  void Reset(const ResetRequest& req, ResetResponse* resp, DoneCallback done);
  void MakeCallable(const MakeCallableRequest& req, MakeCallableResponse* resp,
                    DoneCallback done);
  void RunCallable(const RunCallableRequest& req, RunCallableResponse* resp,
                   DoneCallback done);
  void ReleaseCallable(const ReleaseCallableRequest& req,
                       ReleaseCallableResponse* resp, DoneCallback done);

  Env* const env_;
  // Sorted, but options.task first.
  const std::vector<std::string> worker_tasks_;
  const Options options_;
  MasterIdentity identity_;  // Set at construction.
  RecentRequestIds request_ids_;

  mutable absl::Mutex mu_;
  std::map<std::string, SessionEntry> sessions_ ABSL_GUARDED_BY(mu_);
  int64_t collected_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_H_
