#include "runtime/distributed/worker_steps.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace stepflow {

bool WorkerStep::StartPartialOnce() {
  absl::MutexLock l(&mu_);
  if (partial_started_) return false;
  partial_started_ = true;
  return true;
}

void WorkerStep::FinishPartial(const absl::Status& status) {
  std::vector<DoneCallback> waiters;
  {
    absl::MutexLock l(&mu_);
    partial_finished_ = true;
    partial_status_ = status;
    waiters.swap(partial_waiters_);
  }
  for (auto& w : waiters) w(status);
}

void WorkerStep::WhenPartialDone(DoneCallback done) {
  absl::Status status;
  {
    absl::MutexLock l(&mu_);
    if (!partial_finished_) {
      partial_waiters_.push_back(std::move(done));
      return;
    }
    status = partial_status_;
  }
  done(status);
}

absl::Status WorkerSteps::FindOrCreate(int64_t step_id,
                                       std::shared_ptr<WorkerStep>* out) {
  absl::MutexLock l(&mu_);
  if (cleaned_.count(step_id) > 0) {
    return absl::AbortedError(
        absl::StrCat("Step ", step_id, " was already cleaned up on ", task_));
  }
  auto& slot = steps_[step_id];
  if (slot == nullptr)
    slot = std::make_shared<WorkerStep>(env_, task_, step_id);
  *out = slot;
  return absl::OkStatus();
}

void WorkerSteps::RememberLocked(int64_t step_id) {
  if (!cleaned_.insert(step_id).second) return;
  cleaned_order_.push_back(step_id);
  if (cleaned_order_.size() > remembered_) {
    cleaned_.erase(cleaned_order_.front());
    cleaned_order_.pop_front();
  }
}

void WorkerSteps::Cleanup(int64_t step_id) {
  std::shared_ptr<WorkerStep> step;
  {
    absl::MutexLock l(&mu_);
    RememberLocked(step_id);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return;
    step = std::move(it->second);
    steps_.erase(it);
  }
  // Abort first, so waiting Recvs report the cleanup rather than Cancelled.
  step->rendezvous->StartAbort(absl::AbortedError(
      absl::StrCat("Step ", step_id, " was cleaned up on ", task_)));
  step->cancellation.StartCancel();
}

void WorkerSteps::CleanupAll(const absl::Status& status) {
  std::map<int64_t, std::shared_ptr<WorkerStep>> steps;
  {
    absl::MutexLock l(&mu_);
    steps.swap(steps_);
    for (const auto& [id, step] : steps) RememberLocked(id);
  }
  for (auto& [id, step] : steps) {
    step->rendezvous->StartAbort(status);
    step->cancellation.StartCancel();
  }
}

size_t WorkerSteps::NumSteps() const {
  absl::MutexLock l(&mu_);
  return steps_.size();
}

}  // namespace stepflow
