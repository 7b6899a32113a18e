#include "runtime/distributed/rpc/draining_handler.h"

#include <utility>

namespace stepflow {

void DrainingHandler::Handle(absl::string_view method,
                             const google::protobuf::Message& request,
                             google::protobuf::Message* response,
                             DoneCallback done) {
  std::string refusal;
  {
    absl::MutexLock l(&mu_);
    if (draining_ && always_allowed_.count(std::string(method)) == 0) {
      refusal = message_;
    } else {
      ++in_flight_;
    }
  }
  if (!refusal.empty()) {
    done(absl::UnavailableError(refusal));
    return;
  }
  inner_->Handle(method, request, response,
                 [this, done = std::move(done)](const absl::Status& s) {
                   done(s);
                   absl::MutexLock l(&mu_);
                   --in_flight_;
                 });
}

void DrainingHandler::StartDraining(const std::string& message) {
  absl::MutexLock l(&mu_);
  draining_ = true;
  message_ = message.empty() ? "the server is shutting down" : message;
}

bool DrainingHandler::AwaitIdle(absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  return mu_.AwaitWithTimeout(
      absl::Condition(
          +[](int* in_flight) { return *in_flight == 0; }, &in_flight_),
      timeout);
}

int DrainingHandler::InFlight() const {
  absl::MutexLock l(&mu_);
  return in_flight_;
}

}  // namespace stepflow
