// DrainingHandler: an RpcHandler in front of another that can stop taking
// new calls and wait for those in flight — the grace period of a server's
// shutdown.
//
//   DrainingHandler draining(&master);   // serve `draining`, not `master`
//   ...
//   draining.StartDraining("task 0 is shutting down");
//   bool idle = draining.AwaitIdle(absl::Seconds(5));
//
// Before StartDraining every call goes to the inner handler. After it, a
// new call is answered Unavailable with the given message at once (the
// client retries elsewhere or later) unless its method is always allowed
// (closing a session, say), while calls already in the inner handler run
// on until their `done`.
//
// Ownership: the inner handler is borrowed and must outlive every call
// this handler forwards. Thread-safety: thread-safe; AwaitIdle blocks the
// calling thread (production side of the seam only).
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_DRAINING_HANDLER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_DRAINING_HANDLER_H_

#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/env/transport.h"

namespace stepflow {

class DrainingHandler : public RpcHandler {
 public:
  // `always_allowed`: methods ("MasterService/CloseSession") that still
  // reach the inner handler while draining.
  explicit DrainingHandler(RpcHandler* inner,
                           std::set<std::string> always_allowed = {})
      : inner_(inner), always_allowed_(std::move(always_allowed)) {}

  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override;

  // From now on new calls get Unavailable(`message`).
  void StartDraining(const std::string& message);
  // Waits until no call is in the inner handler or `timeout` passes;
  // returns whether none is.
  bool AwaitIdle(absl::Duration timeout);
  // Calls in the inner handler now.
  int InFlight() const;

 private:
  RpcHandler* const inner_;
  const std::set<std::string> always_allowed_;
  mutable absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  std::string message_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_DRAINING_HANDLER_H_
