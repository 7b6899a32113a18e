// Internal to MasterSession's implementation files (master_session.cc,
// master_session_refresh.cc, master_session_close.cc): the records a
// session keeps per signature, partial run and step. Not for other users.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_SESSION_INTERNAL_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_SESSION_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/distributed/master_session.h"

namespace stepflow {

// One registered (feeds, fetches, targets) signature.
struct MasterSession::Signature {
  struct Part {
    std::string task;
    std::string graph_handle;
    GraphDef graph_def;
    std::vector<std::string> feeds;    // Fed here (client _Recv tensor names).
    std::vector<std::string> fetches;  // Fetched here (client _Send names).
  };
  std::vector<Part> parts;  // Sorted by task.
  std::map<std::string, DataType> feed_types;
  // The workers and incarnations the partitions were built for.
  std::shared_ptr<const ClusterView> view;
};

// A partial run between its setup and its last call.
struct MasterSession::PartialRun {
  std::string handle;
  std::shared_ptr<Signature> signature;
  int64_t step_id = 0;
  std::set<std::string> pending_feeds;    // Canonical names.
  std::set<std::string> pending_fetches;  // Canonical names.
  bool busy = false;  // A call is in flight (guarded by the session's mu_).
};

// One running step, shared by its RPC callbacks.
struct MasterSession::Step {
  explicit Step(std::shared_ptr<MasterSession> owner)
      : session(std::move(owner)), cancellation(&session->cancellation_) {}
  // Keeps the session, whose cancellation manager is the parent of the
  // step's, alive until the step's manager is gone (members are destroyed
  // in reverse order; the lambdas holding a step may drop the session
  // first).
  const std::shared_ptr<MasterSession> session;
  // Partial runs: the run this step is a call of; `partial_setup` for the
  // setup call (which starts the executors and fetches nothing),
  // `partial_last` for the call that feeds or fetches the last pending
  // endpoints.
  std::shared_ptr<PartialRun> partial;
  bool partial_setup = false;
  bool partial_last = false;
  RunStepRequest setup_request;    // The setup call's empty request...
  RunStepResponse setup_response;  // ...and response.
  const RunStepRequest* request = nullptr;
  RunStepResponse* response = nullptr;
  DoneCallback done;
  std::shared_ptr<Signature> signature;
  int64_t step_id = 0;
  int64_t timeout_ms = 0;
  // When the step's deadline passes (env clock, ns); 0 without a timeout.
  int64_t deadline_nanos = 0;
  CancellationManager cancellation;
  std::vector<RunGraphResponse> results;  // Per part.
  // The WorkerMonitor watch while the step runs (0: none).
  uint64_t watch_id = 0;
  absl::Mutex mu;
  // Set when the monitor declared one of the step's tasks unresponsive.
  absl::Status health_error ABSL_GUARDED_BY(mu);
  // The first RunGraph that got no answer (Unavailable or DeadlineExceeded
  // from the transport): the root cause over any worker's answered error.
  absl::Status unanswered ABSL_GUARDED_BY(mu);
};

namespace master_session_internal {

inline absl::Status ClosedError() {
  return absl::CancelledError("Session has been closed.");
}

inline int64_t OperationTimeoutNanos(const ConfigProto& config) {
  return std::max<int64_t>(0, config.operation_timeout_in_ms()) * 1000000;
}

}  // namespace master_session_internal
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_MASTER_SESSION_INTERNAL_H_
