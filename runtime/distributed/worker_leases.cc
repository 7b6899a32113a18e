#include "runtime/distributed/worker_leases.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stepflow {

struct WorkerLeases::State {
  Env* env = nullptr;
  std::string task;
  int64_t lease_nanos = 0;
  DropCallback drop;

  // Held while an expiry drops sessions; the destructor takes it to clear
  // `alive`, so no drop runs once it has returned.
  absl::Mutex run_mu;
  bool alive ABSL_GUARDED_BY(run_mu) = true;

  absl::Mutex mu;
  std::map<MasterKey, Master> masters ABSL_GUARDED_BY(mu);
  std::map<std::string, MasterKey> sessions ABSL_GUARDED_BY(mu);
  Scheduler::TimerId timer ABSL_GUARDED_BY(mu) = 0;

  // Arms the expiry timer for the earliest lease end, if any lease exists.
  void ArmLocked(const std::shared_ptr<State>& self)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (timer != 0 || lease_nanos <= 0 || masters.empty()) return;
    int64_t earliest = masters.begin()->second.last_heard_nanos;
    for (const auto& [key, m] : masters) {
      earliest = std::min(earliest, m.last_heard_nanos);
    }
    const int64_t delay =
        std::max<int64_t>(1, earliest + lease_nanos - env->clock->NowNanos());
    std::weak_ptr<State> weak = self;
    timer = env->scheduler->ScheduleAfter(
        delay, [weak] { WorkerLeases::OnTimer(weak); });
  }

  // Removes the sessions of `key` and the master; returns the sessions.
  std::vector<std::string> TakeLocked(const MasterKey& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::vector<std::string> out;
    for (auto it = sessions.begin(); it != sessions.end();) {
      if (it->second == key) {
        out.push_back(it->first);
        it = sessions.erase(it);
      } else {
        ++it;
      }
    }
    masters.erase(key);
    return out;
  }
};

namespace {
std::string MasterName(const std::pair<std::string, uint64_t>& key) {
  return absl::StrFormat("%s (incarnation %016x)",
                         key.first.empty() ? "master" : key.first, key.second);
}
}  // namespace

WorkerLeases::WorkerLeases(Env* env, std::string task, int64_t lease_nanos,
                           DropCallback drop)
    : state_(std::make_shared<State>()) {
  state_->env = env;
  state_->task = std::move(task);
  state_->lease_nanos = lease_nanos;
  state_->drop = std::move(drop);
}

WorkerLeases::~WorkerLeases() {
  {
    absl::MutexLock r(&state_->run_mu);
    state_->alive = false;
  }
  absl::MutexLock l(&state_->mu);
  if (state_->timer != 0) state_->env->scheduler->CancelTimer(state_->timer);
  state_->timer = 0;
}

void WorkerLeases::OnTimer(const std::weak_ptr<State>& weak) {
  std::shared_ptr<State> s = weak.lock();
  if (s == nullptr) return;
  absl::MutexLock r(&s->run_mu);
  if (!s->alive) return;
  std::vector<std::pair<std::string, std::vector<std::string>>> expired;
  {
    absl::MutexLock l(&s->mu);
    s->timer = 0;
    const int64_t now = s->env->clock->NowNanos();
    std::vector<MasterKey> keys;
    for (const auto& [key, m] : s->masters) {
      if (m.last_heard_nanos + s->lease_nanos <= now) keys.push_back(key);
    }
    for (const MasterKey& key : keys) {
      expired.emplace_back(
          absl::StrCat("the lease of ", MasterName(key), " on worker ", s->task,
                       " expired (not heard from for ",
                       s->lease_nanos / 1000000, " ms)"),
          s->TakeLocked(key));
    }
    s->ArmLocked(s);
  }
  for (const auto& [reason, sessions] : expired) s->drop(sessions, reason);
}

void WorkerLeases::AddSession(const std::string& handle,
                              const std::string& master_task,
                              uint64_t master_incarnation) {
  if (master_incarnation == 0) return;
  const MasterKey key(master_task, master_incarnation);
  std::vector<std::pair<std::string, std::vector<std::string>>> superseded;
  {
    absl::MutexLock l(&state_->mu);
    if (!master_task.empty()) {
      std::vector<MasterKey> old;
      for (const auto& [k, m] : state_->masters) {
        if (k.first == master_task && k.second != master_incarnation) {
          old.push_back(k);
        }
      }
      for (const MasterKey& k : old) {
        superseded.emplace_back(
            absl::StrCat(MasterName(k), " was replaced by incarnation ",
                         absl::StrFormat("%016x", master_incarnation)),
            state_->TakeLocked(k));
      }
    }
    state_->masters[key].last_heard_nanos = state_->env->clock->NowNanos();
    state_->sessions[handle] = key;
    state_->ArmLocked(state_);
  }
  for (const auto& [reason, sessions] : superseded) {
    state_->drop(sessions, reason);
  }
}

void WorkerLeases::RemoveSession(const std::string& handle) {
  absl::MutexLock l(&state_->mu);
  auto it = state_->sessions.find(handle);
  if (it == state_->sessions.end()) return;
  const MasterKey key = it->second;
  state_->sessions.erase(it);
  for (const auto& [h, k] : state_->sessions) {
    if (k == key) return;
  }
  state_->masters.erase(key);
}

void WorkerLeases::Heard(const std::string& master_task,
                         uint64_t master_incarnation) {
  if (master_incarnation == 0) return;
  absl::MutexLock l(&state_->mu);
  auto it = state_->masters.find(MasterKey(master_task, master_incarnation));
  if (it != state_->masters.end()) {
    it->second.last_heard_nanos = state_->env->clock->NowNanos();
  }
}

void WorkerLeases::HeardFromSession(const std::string& handle) {
  absl::MutexLock l(&state_->mu);
  auto it = state_->sessions.find(handle);
  if (it == state_->sessions.end()) return;
  auto m = state_->masters.find(it->second);
  if (m != state_->masters.end()) {
    m->second.last_heard_nanos = state_->env->clock->NowNanos();
  }
}

size_t WorkerLeases::NumLeasedSessions() const {
  absl::MutexLock l(&state_->mu);
  return state_->sessions.size();
}

}  // namespace stepflow
