// LoopbackTransport: a Transport between tasks of one process (tests and
// single-process clusters).
//
// Every call is copied as on a wire: the request is serialised and parsed
// into a fresh message of the method's request type (runtime/distributed/
// methods.h), the handler fills a fresh response message, which is copied
// back into the caller's response the same way. Nothing is shared between
// caller and handler. The handler runs in a closure on the Scheduler, never
// inside Call(); `done` also always runs through the Scheduler.
//
// Errors: Unavailable naming the task when no handler serves it at delivery
// time (unknown or stopped); DeadlineExceeded when options.timeout_nanos
// passes first (a Scheduler timer); Cancelled when options.cancellation
// fires first; Unimplemented for a method not in the method table; a
// response that fails to parse is Internal. Otherwise the handler's status.
// A call completed by its deadline or cancellation ignores the handler's
// late answer (the caller's response is never written after `done`).
//
// Ownership: the Scheduler is borrowed and must outlive the transport and
// every call's completion. Handlers are borrowed until StopServing.
// Thread-safety: all methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_TESTING_LOOPBACK_TRANSPORT_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_TESTING_LOOPBACK_TRANSPORT_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "runtime/env/scheduler.h"
#include "runtime/env/transport.h"

namespace stepflow {

class LoopbackTransport : public Transport {
 public:
  explicit LoopbackTransport(Scheduler* scheduler) : scheduler_(scheduler) {}

  void Call(absl::string_view task, absl::string_view method,
            const google::protobuf::Message& request,
            google::protobuf::Message* response, const CallOptions& options,
            DoneCallback done) override;
  absl::Status Serve(absl::string_view task, RpcHandler* handler) override;
  void StopServing(absl::string_view task) override;

  // Calls issued so far (for tests).
  int64_t num_calls() const;

 private:
  RpcHandler* FindHandler(absl::string_view task) const;

  Scheduler* const scheduler_;
  mutable absl::Mutex mu_;
  std::map<std::string, RpcHandler*, std::less<>> handlers_
      ABSL_GUARDED_BY(mu_);
  int64_t num_calls_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_TESTING_LOOPBACK_TRANSPORT_H_
