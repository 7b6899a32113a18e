#include "runtime/distributed/worker_steps.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/distributed/recent_id_window.h"

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

struct WorkerSteps::State {
  struct Entry {
    std::shared_ptr<WorkerStep> step;
    // Unclaimed (no RunGraph yet) since orphan_since_nanos. Clocks may read
    // negative (a skewed task clock early on), so no sentinel time.
    bool orphan = false;
    int64_t orphan_since_nanos = 0;
  };

  explicit State(size_t remembered) : cleaned(remembered) {}

  Env* env = nullptr;
  std::string task;
  const DeviceMgr* device_mgr = nullptr;
  int64_t orphan_nanos = 0;

  absl::Mutex mu;
  std::map<int64_t, Entry> steps ABSL_GUARDED_BY(mu);
  RecentIdWindow cleaned ABSL_GUARDED_BY(mu);  // The last `remembered` ids.
  size_t orphans ABSL_GUARDED_BY(mu) = 0;
  Scheduler::TimerId timer ABSL_GUARDED_BY(mu) = 0;

  void RememberLocked(int64_t step_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    cleaned.Insert(step_id);
  }

  // Removes the step's entry (nullptr if unknown) and remembers its id.
  std::shared_ptr<WorkerStep> TakeLocked(int64_t step_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    RememberLocked(step_id);
    auto it = steps.find(step_id);
    if (it == steps.end()) return nullptr;
    std::shared_ptr<WorkerStep> step = std::move(it->second.step);
    if (it->second.orphan) --orphans;
    steps.erase(it);
    return step;
  }

  // Arms the sweep for the oldest orphan, if any.
  void ArmLocked(const std::shared_ptr<State>& self)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (timer != 0 || orphan_nanos <= 0 || orphans == 0) return;
    int64_t oldest = INT64_MAX;
    for (const auto& [id, e] : steps) {
      if (e.orphan) oldest = std::min(oldest, e.orphan_since_nanos);
    }
    const int64_t delay =
        std::max<int64_t>(1, oldest + orphan_nanos - env->clock->NowNanos());
    std::weak_ptr<State> weak = self;
    timer = env->scheduler->ScheduleAfter(
        delay, [weak] { WorkerSteps::OnSweep(weak); });
  }
};

namespace {

void AbortStep(WorkerStep* step, const absl::Status& status) {
  // Abort first, so waiting Recvs report the cleanup rather than Cancelled.
  step->rendezvous->StartAbort(status);
  step->cancellation.StartCancel();
}

}  // namespace

WorkerSteps::WorkerSteps(Env* env, std::string task,
                         const DeviceMgr* device_mgr, int64_t orphan_nanos,
                         size_t remembered)
    : state_(std::make_shared<State>(remembered)) {
  state_->env = env;
  state_->task = std::move(task);
  state_->device_mgr = device_mgr;
  state_->orphan_nanos = orphan_nanos;
}

WorkerSteps::~WorkerSteps() {
  absl::MutexLock l(&state_->mu);
  if (state_->timer != 0) state_->env->scheduler->CancelTimer(state_->timer);
}

void WorkerSteps::OnSweep(const std::weak_ptr<State>& weak) {
  std::shared_ptr<State> s = weak.lock();
  if (s == nullptr) return;
  std::vector<std::pair<int64_t, std::shared_ptr<WorkerStep>>> swept;
  {
    absl::MutexLock l(&s->mu);
    s->timer = 0;
    const int64_t now = s->env->clock->NowNanos();
    std::vector<int64_t> old;
    for (const auto& [id, e] : s->steps) {
      if (e.orphan && now - e.orphan_since_nanos >= s->orphan_nanos) {
        old.push_back(id);
      }
    }
    for (int64_t id : old) swept.emplace_back(id, s->TakeLocked(id));
    s->ArmLocked(s);
  }
  for (auto& [id, step] : swept) {
    AbortStep(step.get(),
              absl::AbortedError(absl::StrCat(
                  "Step ", id, " never started on ", s->task, " within ",
                  s->orphan_nanos / 1000000,
                  " ms of a RecvTensor for it (its master is gone)")));
  }
}

absl::Status WorkerSteps::FindOrCreate(int64_t step_id, bool claim,
                                       std::shared_ptr<WorkerStep>* out) {
  State* s = state_.get();
  absl::MutexLock l(&s->mu);
  if (s->cleaned.Contains(step_id)) {
    return absl::AbortedError(
        absl::StrCat("Step ", step_id, " was already cleaned up on ", s->task));
  }
  State::Entry& e = s->steps[step_id];
  if (e.step == nullptr) {
    e.step =
        std::make_shared<WorkerStep>(s->env, s->task, s->device_mgr, step_id);
    if (!claim) {
      e.orphan = true;
      e.orphan_since_nanos = s->env->clock->NowNanos();
      ++s->orphans;
      s->ArmLocked(state_);
    }
  } else if (claim && e.orphan) {
    e.orphan = false;
    --s->orphans;
  }
  *out = e.step;
  return absl::OkStatus();
}

void WorkerSteps::Cleanup(int64_t step_id) {
  std::shared_ptr<WorkerStep> step;
  {
    absl::MutexLock l(&state_->mu);
    step = state_->TakeLocked(step_id);
  }
  if (step == nullptr) return;
  AbortStep(step.get(),
            absl::AbortedError(absl::StrCat(
                "Step ", step_id, " was cleaned up on ", state_->task)));
}

void WorkerSteps::CleanupAll(const absl::Status& status) {
  std::map<int64_t, State::Entry> steps;
  {
    absl::MutexLock l(&state_->mu);
    steps.swap(state_->steps);
    state_->orphans = 0;
    for (const auto& [id, e] : steps) state_->RememberLocked(id);
  }
  for (auto& [id, e] : steps) AbortStep(e.step.get(), status);
}

size_t WorkerSteps::NumSteps() const {
  absl::MutexLock l(&state_->mu);
  return state_->steps.size();
}

}  // namespace stepflow
