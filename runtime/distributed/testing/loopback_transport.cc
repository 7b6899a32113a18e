#include "runtime/distributed/testing/loopback_transport.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/message.h"
#include "runtime/distributed/methods.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {
namespace {

// One call in flight. Shared by the delivery closure, the handler's done,
// the deadline timer and the cancellation callback; whoever completes it
// first wins.
struct PendingCall {
  Scheduler* scheduler = nullptr;
  std::string task;
  std::string method;
  google::protobuf::Message* caller_response = nullptr;
  Transport::DoneCallback done;
  std::unique_ptr<google::protobuf::Message> request;
  std::unique_ptr<google::protobuf::Message> response;

  absl::Mutex mu;
  bool completed ABSL_GUARDED_BY(mu) = false;
  Scheduler::TimerId timer ABSL_GUARDED_BY(mu) = 0;
  CancellationManager* cancellation = nullptr;
  CancellationToken token = 0;
  std::atomic<bool> registered{false};

  // Completes the call with `status`; `from_handler` copies the handler's
  // response into the caller's first. Only the first completion counts.
  void Complete(absl::Status status, bool from_handler) {
    Scheduler::TimerId timer_to_cancel = 0;
    {
      absl::MutexLock l(&mu);
      if (completed) return;
      completed = true;
      timer_to_cancel = timer;
      timer = 0;
      if (from_handler && status.ok()) {
        std::string wire;
        if (!response->SerializeToString(&wire) ||
            !caller_response->ParseFromString(wire)) {
          status = absl::InternalError(absl::StrCat(
              "Could not copy the response of ", method, " from ", task));
        }
      }
    }
    if (timer_to_cancel != 0) scheduler->CancelTimer(timer_to_cancel);
    if (registered) cancellation->DeregisterCallback(token);
    DoneCallback cb = std::move(done);
    scheduler->Schedule([cb = std::move(cb), status] { cb(status); });
  }
  using DoneCallback = Transport::DoneCallback;
};

}  // namespace

int64_t LoopbackTransport::num_calls() const {
  absl::MutexLock l(&mu_);
  return num_calls_;
}

RpcHandler* LoopbackTransport::FindHandler(absl::string_view task) const {
  absl::MutexLock l(&mu_);
  auto it = handlers_.find(task);
  return it == handlers_.end() ? nullptr : it->second;
}

void LoopbackTransport::Call(absl::string_view task, absl::string_view method,
                             const google::protobuf::Message& request,
                             google::protobuf::Message* response,
                             const CallOptions& options, DoneCallback done) {
  {
    absl::MutexLock l(&mu_);
    ++num_calls_;
  }
  auto call = std::make_shared<PendingCall>();
  call->scheduler = scheduler_;
  call->task = std::string(task);
  call->method = std::string(method);
  call->caller_response = response;
  call->done = std::move(done);

  absl::Status s =
      NewRequestAndResponse(method, &call->request, &call->response);
  if (s.ok()) {
    std::string wire;
    if (!request.SerializeToString(&wire) ||
        !call->request->ParseFromString(wire)) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "Request of ", method, " to ", task, " does not fit its type"));
    }
  }
  if (!s.ok()) {
    call->Complete(s, /*from_handler=*/false);
    return;
  }

  if (options.cancellation != nullptr) {
    call->cancellation = options.cancellation;
    call->token = options.cancellation->get_cancellation_token();
    std::weak_ptr<PendingCall> weak = call;
    call->registered =
        options.cancellation->RegisterCallback(call->token, [weak] {
          if (auto c = weak.lock()) {
            c->Complete(
                absl::CancelledError(absl::StrCat("RPC ", c->method, " to ",
                                                  c->task, " was cancelled")),
                false);
          }
        });
    if (!call->registered) {
      call->Complete(absl::CancelledError(absl::StrCat("RPC ", method, " to ",
                                                       task, " was cancelled")),
                     false);
      return;
    }
  }
  if (options.timeout_nanos > 0) {
    const int64_t timeout = options.timeout_nanos;
    Scheduler::TimerId id = scheduler_->ScheduleAfter(timeout, [call, timeout] {
      {
        absl::MutexLock l(&call->mu);
        call->timer = 0;  // Running: nothing to cancel any more.
      }
      call->Complete(absl::DeadlineExceededError(absl::StrCat(
                         "RPC ", call->method, " to ", call->task,
                         " exceeded its deadline of ", timeout, " ns")),
                     false);
    });
    absl::MutexLock l(&call->mu);
    if (!call->completed) call->timer = id;
  }

  scheduler_->Schedule([this, call] {
    {
      absl::MutexLock l(&call->mu);
      if (call->completed) return;  // Timed out or cancelled before delivery.
    }
    RpcHandler* handler = FindHandler(call->task);
    if (handler == nullptr) {
      call->Complete(
          absl::UnavailableError(absl::StrCat(
              "Task ", call->task, " is not serving (", call->method, ")")),
          false);
      return;
    }
    handler->Handle(call->method, *call->request, call->response.get(),
                    [call](const absl::Status& status) {
                      call->Complete(status, /*from_handler=*/true);
                    });
  });
}

absl::Status LoopbackTransport::Serve(absl::string_view task,
                                      RpcHandler* handler) {
  absl::MutexLock l(&mu_);
  if (!handlers_.emplace(std::string(task), handler).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("Task ", task, " is already served"));
  }
  return absl::OkStatus();
}

void LoopbackTransport::StopServing(absl::string_view task) {
  absl::MutexLock l(&mu_);
  auto it = handlers_.find(task);
  if (it != handlers_.end()) handlers_.erase(it);
}

}  // namespace stepflow
