// WorkerMonitor: the master's heartbeat to its workers and its view of
// which of them answer.
//
// While active (the master holds sessions) or watched (a step runs), every
// `interval_nanos` of the Env clock the monitor sends GetStatus to each
// worker task, naming the master (task, incarnation): that renews the lease
// of the master's worker sessions there (WorkerLeases). A check that fails
// (no answer within the interval, or Unavailable) is a miss; `max_missed`
// misses in a row make the task unresponsive, and every watcher of that
// task is told once, with Unavailable naming it. A task that answers again
// starts counting from zero. Nothing is scheduled while inactive and
// unwatched, so a quiet master lets the simulator's loop drain.
//
// Ownership: the Env is borrowed and must outlive the monitor and its
// in-flight checks. Watch callbacks run without the monitor's lock, never
// after the destructor returns.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_MONITOR_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_MONITOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/env/env.h"

namespace stepflow {

class WorkerMonitor {
 public:
  struct Options {
    int64_t interval_nanos = 0;  // Must be > 0.
    int max_missed = 3;
    std::string master_task;      // Named in heartbeats (may be empty).
    uint64_t master_incarnation;  // Named in heartbeats (non-zero).
  };
  // (the unresponsive task, Unavailable naming it)
  using Callback =
      std::function<void(const std::string& task, const absl::Status&)>;

  WorkerMonitor(Env* env, std::vector<std::string> tasks,
                const Options& options);
  ~WorkerMonitor();

  // Heartbeats go on while active (or while watched).
  void SetActive(bool active);

  // `cb` runs once, with Unavailable naming the task, if one of `tasks`
  // becomes unresponsive before Unwatch(id).
  uint64_t Watch(std::vector<std::string> tasks, Callback cb);
  void Unwatch(uint64_t id);

 private:
  struct State;
  static void Tick(const std::weak_ptr<State>& weak);
  static void Checked(const std::weak_ptr<State>& weak, const std::string& task,
                      const absl::Status& status);

  std::shared_ptr<State> state_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_MONITOR_H_
