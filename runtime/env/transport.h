// Transport: the only way tasks of a distributed session talk to each
// other — unary request/response calls carrying protobuf messages
// (proto/master.proto, proto/worker.proto), addressed by task name
// ("/job:worker/replica:0/task:1"), completed through callbacks.
//
// Production uses gRPC (runtime/distributed/rpc); the simulator uses a
// transport that serialises every message with the same proto code and
// delivers it through its event loop, dropping, delaying, duplicating or
// partitioning as its fault plan says. The master/worker code is written
// against this interface only and links no networking.
//
// Semantics every implementation provides:
//   * `done` runs exactly once, never inline inside Call() (it goes through
//     the caller's Scheduler), and only after `*response` is final.
//   * Errors: Unavailable when the task is unknown, unreachable or not
//     serving (crashed); DeadlineExceeded when CallOptions.timeout_nanos
//     passes first; Cancelled when CallOptions.cancellation fires; any other
//     code is the status the handler returned.
//   * No ordering between calls is promised (a simulated network reorders).
//     A message may be delivered more than once only where a fault plan says
//     so; handlers reject repeated request ids themselves.
//
// Ownership: `request` is only read during Call() (implementations copy or
// serialise it); `response` and `handler` are borrowed until `done` runs /
// StopServing() returns.
// Thread-safety: all methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_ENV_TRANSPORT_H_
#define STEPFLOW_RUNTIME_ENV_TRANSPORT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace google {
namespace protobuf {
class Message;
}  // namespace protobuf
}  // namespace google

namespace stepflow {

class CancellationManager;

struct CallOptions {
  // Relative deadline in the Env clock's nanoseconds; 0 = none.
  int64_t timeout_nanos = 0;
  // Optional; cancelling it completes the call with Cancelled.
  CancellationManager* cancellation = nullptr;
};

// Serves the calls addressed to one task.
class RpcHandler {
 public:
  using DoneCallback = std::function<void(const absl::Status&)>;
  virtual ~RpcHandler() = default;

  // `method` is "<Service>/<Method>" ("WorkerService/RunGraph"). Parses
  // nothing itself: `request` is already the right message type for the
  // method and `response` an empty one to fill before calling `done`.
  // Unimplemented for an unknown method.
  virtual void Handle(absl::string_view method,
                      const google::protobuf::Message& request,
                      google::protobuf::Message* response,
                      DoneCallback done) = 0;
};

class Transport {
 public:
  using DoneCallback = std::function<void(const absl::Status&)>;
  virtual ~Transport() = default;

  // Calls `method` of `task` (see the semantics above).
  virtual void Call(absl::string_view task, absl::string_view method,
                    const google::protobuf::Message& request,
                    google::protobuf::Message* response,
                    const CallOptions& options, DoneCallback done) = 0;

  // Routes calls for `task` to `handler` until StopServing(task).
  // AlreadyExists if the task is already served here.
  virtual absl::Status Serve(absl::string_view task, RpcHandler* handler) = 0;

  // Stops routing calls to the task's handler; calls already being handled
  // still complete. Returns once no new call can reach the handler.
  virtual void StopServing(absl::string_view task) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_TRANSPORT_H_
