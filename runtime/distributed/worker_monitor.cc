#include "runtime/distributed/worker_monitor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/call_util.h"

namespace stepflow {

struct WorkerMonitor::State {
  struct Watcher {
    std::vector<std::string> tasks;
    Callback cb;
  };
  struct Task {
    int missed = 0;
    bool in_flight = false;
  };

  Env* env = nullptr;
  Options options;

  // Held while watchers are told; the destructor takes it to clear `alive`.
  absl::Mutex run_mu;
  bool alive ABSL_GUARDED_BY(run_mu) = true;

  absl::Mutex mu;
  std::map<std::string, Task> tasks ABSL_GUARDED_BY(mu);
  bool active ABSL_GUARDED_BY(mu) = false;
  std::map<uint64_t, Watcher> watchers ABSL_GUARDED_BY(mu);
  uint64_t next_id ABSL_GUARDED_BY(mu) = 1;
  Scheduler::TimerId timer ABSL_GUARDED_BY(mu) = 0;

  void ArmLocked(const std::shared_ptr<State>& self)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (timer != 0 || (!active && watchers.empty())) return;
    std::weak_ptr<State> weak = self;
    timer = env->scheduler->ScheduleAfter(
        options.interval_nanos, [weak] { WorkerMonitor::Tick(weak); });
  }
};

WorkerMonitor::WorkerMonitor(Env* env, std::vector<std::string> tasks,
                             const Options& options)
    : state_(std::make_shared<State>()) {
  state_->env = env;
  state_->options = options;
  state_->options.interval_nanos = std::max<int64_t>(1, options.interval_nanos);
  state_->options.max_missed = std::max(1, options.max_missed);
  absl::MutexLock l(&state_->mu);
  for (const std::string& t : tasks) state_->tasks[t];
}

WorkerMonitor::~WorkerMonitor() {
  {
    absl::MutexLock r(&state_->run_mu);
    state_->alive = false;
  }
  absl::MutexLock l(&state_->mu);
  if (state_->timer != 0) state_->env->scheduler->CancelTimer(state_->timer);
  state_->timer = 0;
}

void WorkerMonitor::SetActive(bool active) {
  absl::MutexLock l(&state_->mu);
  state_->active = active;
  state_->ArmLocked(state_);
}

uint64_t WorkerMonitor::Watch(std::vector<std::string> tasks, Callback cb) {
  absl::MutexLock l(&state_->mu);
  const uint64_t id = state_->next_id++;
  state_->watchers[id] = State::Watcher{std::move(tasks), std::move(cb)};
  state_->ArmLocked(state_);
  return id;
}

void WorkerMonitor::Unwatch(uint64_t id) {
  absl::MutexLock l(&state_->mu);
  state_->watchers.erase(id);
}

void WorkerMonitor::Tick(const std::weak_ptr<State>& weak) {
  std::shared_ptr<State> s = weak.lock();
  if (s == nullptr) return;
  std::vector<std::string> due;
  {
    absl::MutexLock r(&s->run_mu);
    if (!s->alive) return;
    absl::MutexLock l(&s->mu);
    s->timer = 0;
    for (auto& [task, t] : s->tasks) {
      if (t.in_flight) continue;
      t.in_flight = true;
      due.push_back(task);
    }
    s->ArmLocked(s);
  }
  for (const std::string& task : due) {
    GetStatusRequest req;
    req.set_master_task(s->options.master_task);
    req.set_master_incarnation(s->options.master_incarnation);
    CallOptions opts;
    opts.timeout_nanos = s->options.interval_nanos;
    CallTask<GetStatusRequest, GetStatusResponse>(
        s->env, task, "WorkerService/GetStatus", req, opts,
        [weak, task](const absl::Status& st, GetStatusResponse*) {
          Checked(weak, task, st);
        });
  }
}

void WorkerMonitor::Checked(const std::weak_ptr<State>& weak,
                            const std::string& task,
                            const absl::Status& status) {
  std::shared_ptr<State> s = weak.lock();
  if (s == nullptr) return;
  absl::MutexLock r(&s->run_mu);
  if (!s->alive) return;
  std::vector<Callback> told;
  absl::Status error;
  {
    absl::MutexLock l(&s->mu);
    State::Task& t = s->tasks[task];
    t.in_flight = false;
    if (status.ok()) {
      t.missed = 0;
      return;
    }
    if (++t.missed < s->options.max_missed) return;
    error = absl::UnavailableError(absl::StrCat(
        "Task ", task, " did not answer ", t.missed,
        " health checks in a row (one every ",
        s->options.interval_nanos / 1000000,
        " ms): it is hung or unreachable (last: ", status.message(), ")"));
    for (auto it = s->watchers.begin(); it != s->watchers.end();) {
      const auto& ts = it->second.tasks;
      if (std::find(ts.begin(), ts.end(), task) != ts.end()) {
        told.push_back(std::move(it->second.cb));
        it = s->watchers.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Callback& cb : told) cb(task, error);
}

}  // namespace stepflow
