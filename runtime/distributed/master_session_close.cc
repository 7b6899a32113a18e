// MasterSession: step cleanup and Close (see master_session.h).
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/call_util.h"
#include "runtime/distributed/master_session.h"
#include "runtime/distributed/master_session_internal.h"
#include "runtime/distributed/status_group.h"
#include "runtime/env/log_sink.h"

namespace stepflow {

using master_session_internal::OperationTimeoutNanos;

template <typename Req, typename Resp>
void MasterSession::CleanupCall(
    const std::string& task, const std::string& method, const Req& req,
    std::function<void(const absl::Status&)> first_done) {
  CallOptions opts;
  opts.timeout_nanos = OperationTimeoutNanos(config_);
  if (Unresponsive(task)) {
    // Its last RunGraph got no answer: do not hold the caller for another
    // timeout; the call goes on (retried) in the background.
    CallTaskRetrying<Req, Resp>(env_, task, method, req, opts, RetryPolicy(),
                                nullptr);
    first_done(absl::OkStatus());
    return;
  }
  CallTaskRetrying<Req, Resp>(env_, task, method, req, opts, RetryPolicy(),
                              std::move(first_done));
}

void MasterSession::CleanupStep(const Signature& signature, int64_t step_id,
                                std::function<void()> after) {
  auto cleanup = StatusGroup::Create(
      static_cast<int>(signature.parts.size()),
      [after = std::move(after)](const absl::Status&) mutable { after(); });
  for (const auto& part : signature.parts) {
    CleanupGraphRequest req;
    req.set_step_id(step_id);
    CleanupCall<CleanupGraphRequest, CleanupGraphResponse>(
        part.task, "WorkerService/CleanupGraph", req,
        [cleanup](const absl::Status& s) { cleanup->Report(s); });
  }
}

void MasterSession::StepEnded() {
  std::vector<std::function<void()>> idle;
  {
    absl::MutexLock l(&mu_);
    if (--running_steps_ == 0) idle.swap(on_idle_);
  }
  for (auto& fn : idle) fn();
}

void MasterSession::Close(DoneCallback done) {
  cancellation_.StartCancel();
  auto self = shared_from_this();
  auto delete_sessions = [self, done]() {
    const std::vector<WorkerInfo> workers = self->workers();
    // As TensorFlow's master: a worker session that cannot be deleted (its
    // task down, say) is a warning, and the close succeeds; the worker's
    // lease collects such a session.
    auto group = StatusGroup::Create(
        static_cast<int>(workers.size()), [self, done](const absl::Status& s) {
          if (!s.ok() && self->env_->log_sink != nullptr) {
            self->env_->log_sink->Write(
                LogStream::kWarning,
                absl::StrCat(
                    "CloseSession ", self->handle_,
                    ": worker sessions not all deleted: ", s.ToString(), "\n"));
          }
          done(absl::OkStatus());
        });
    for (const WorkerInfo& w : workers) {
      DeleteWorkerSessionRequest req;
      req.set_session_handle(self->handle_);
      self->CleanupCall<DeleteWorkerSessionRequest,
                        DeleteWorkerSessionResponse>(
          w.task, "WorkerService/DeleteWorkerSession", req,
          [group](const absl::Status& s) { group->Report(s); });
    }
  };
  bool now = false;
  std::vector<std::shared_ptr<PartialRun>> idle_runs;
  {
    absl::MutexLock l(&mu_);
    closed_ = true;
    signatures_.clear();
    // Partial runs between calls end here; one with a call in flight ends
    // when the cancellation fails that call.
    for (auto it = partial_runs_.begin(); it != partial_runs_.end();) {
      if (it->second->busy) {
        ++it;
        continue;
      }
      idle_runs.push_back(it->second);
      it = partial_runs_.erase(it);
    }
    if (running_steps_ == 0) {
      now = true;
    } else {
      on_idle_.push_back(delete_sessions);
    }
  }
  for (const auto& pr : idle_runs) {
    CleanupStep(*pr->signature, pr->step_id, [self] { self->StepEnded(); });
  }
  if (now) delete_sessions();
}

}  // namespace stepflow
