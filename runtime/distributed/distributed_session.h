// DistributedSession: a Session whose graph runs on a cluster, driven
// through the master's RPCs ("MasterService/*") over options.env->transport.
//
// The master task is given at construction (see MasterTaskFromTarget); which
// transport carries the calls is the Env's business, so a "grpc://" factory
// wraps this class with a gRPC transport and tests use a loopback one.
//
// Create/Extend send the graph (Extend carries the graph version the session
// last saw, so concurrent extenders notice); Run sends feeds/fetches/targets
// with a fresh request id (env->random) and RunOptions (the master turns the
// timeout into RPC deadlines); Close closes the master session, which
// cancels in-flight steps (they return Cancelled "Session has been
// closed.") and deletes the worker sessions. ListDevices lists every
// worker's devices; Reset clears containers on every worker. Callables are
// kept on the client and run through Run. PRunSetup/PRun are the master's
// partial runs (master_session.h): feeds and fetches of one step in parts.
//
// Client-side deadlines: every call to the master carries an RPC deadline
// when a timeout applies — RunStep the step's timeout (RunOptions.
// timeout_in_ms, else ConfigProto.operation_timeout_in_ms), every other
// call operation_timeout_in_ms — plus kMasterCallGraceMs, so the master's
// own DeadlineExceeded (which names the step's task) normally arrives
// first, and a master that never answers (crashed, partitioned) fails the
// call with DeadlineExceeded instead of hanging it. No timeout set: no
// deadline.
//
// Errors: as Session (session.h); RPC failures keep their code (Unavailable
// or DeadlineExceeded naming the unreachable task, ...).
//
// Synchronous methods wait with env->scheduler->WaitFor, so they must not be
// called from inside a scheduled closure.
// Thread-safety: thread-safe. The Env is borrowed.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_DISTRIBUTED_SESSION_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_DISTRIBUTED_SESSION_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/common/callable_registry.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"

namespace stepflow {

// The master task named by a target: the part after "<scheme>://" (or the
// whole target without a scheme). InvalidArgument when that is empty.
absl::Status MasterTaskFromTarget(const std::string& target, std::string* task);

class DistributedSession : public CallableSession {
 public:
  // Added to a timeout to make the client's deadline for a master call.
  static constexpr int64_t kMasterCallGraceMs = 1000;
  // The client's deadline (CallOptions.timeout_nanos) for a master call
  // whose operation may take `timeout_ms` (<= 0: none, giving 0).
  static int64_t MasterCallTimeoutNanos(int64_t timeout_ms);

  DistributedSession(const SessionOptions& options, std::string master_task);
  ~DistributedSession() override;

  absl::Status Create(const GraphDef& graph) override;
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
  absl::Status PRun(const std::string& handle, const FeedList& inputs,
                    const std::vector<std::string>& output_names,
                    std::vector<Tensor>* outputs) override;
  absl::Status ListDevices(std::vector<DeviceAttributes>* devices) override;
  absl::Status Close() override;
  absl::Status Reset(const std::vector<std::string>& containers) override;

  // The master's session handle ("" before a graph was created).
  std::string handle() const;

 private:
  // Calls `method` of the master and waits for the answer; `timeout_ms`
  // is the operation's timeout (see MasterCallTimeoutNanos).
  absl::Status CallMaster(const std::string& method,
                          const google::protobuf::Message& request,
                          google::protobuf::Message* response,
                          int64_t timeout_ms);
  // CallMaster with the session's operation_timeout_in_ms.
  absl::Status CallMaster(const std::string& method,
                          const google::protobuf::Message& request,
                          google::protobuf::Message* response) {
    return CallMaster(method, request, response,
                      options_.config.operation_timeout_in_ms());
  }
  // Run and PRun: one RunStep call (`partial_run_handle` empty for Run).
  absl::Status RunStep(const RunOptions& run_options, const FeedList& inputs,
                       const std::vector<std::string>& output_names,
                       const std::vector<std::string>& target_names,
                       const std::string& partial_run_handle,
                       std::vector<Tensor>* outputs, RunMetadata* run_metadata);
  absl::Status CheckNotClosed() const override;
  absl::Status CreateLocked(const GraphDef& graph)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const SessionOptions options_;
  const std::string master_task_;
  std::atomic<bool> closed_{false};

  mutable absl::Mutex mu_;
  std::string handle_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_DISTRIBUTED_SESSION_H_
