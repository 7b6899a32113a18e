// ThreadPoolScheduler: the production Scheduler.
//
// Schedule() appends to one FIFO queue served by `num_threads` worker
// threads (0 = one per hardware thread). A worker that finds the queue
// empty spins briefly (up to ~kSpinPauses CPU pause instructions, tens of
// microseconds) before it sleeps: the next closure of a running step (a
// node's successor, the other half of a split product) usually comes
// within that time and then starts without a futex wake-up, which costs
// several microseconds on bare metal and tens on a virtual machine. An
// idle pool sleeps. ScheduleAfter() keeps timers on a
// dedicated timer thread, ordered by (deadline on `clock`, id); when a timer
// is due its closure is handed to the worker queue. CancelTimer() succeeds
// only while the timer is still waiting on the timer thread. WaitFor()
// blocks the calling thread on the notification's own mutex.
//
// Shutdown (destructor): pending timers are discarded (never run), then the
// worker queue is drained — every closure already queued, and any closure
// those schedule while draining, runs before the workers exit. Timers
// requested during the drain are discarded. The destructor must not be
// called from one of this scheduler's own threads.
//
// Out of memory: a closure that throws std::bad_alloc is abandoned where it
// threw (a line on stderr says so) and its worker thread goes on serving:
// running out of memory must not take the process down. Components that
// must finish what a closure started (a step, a call) catch it themselves
// (the executor's kernels, the gRPC server's handlers); any other
// exception escaping a closure still terminates the process.
//
// Ownership: `clock` is borrowed and must outlive the scheduler.
// Thread-safety: all methods may be called from any thread, including from
// inside scheduled closures (WaitFor excepted, per the Scheduler contract).
#ifndef STEPFLOW_RUNTIME_ENV_REAL_THREAD_POOL_SCHEDULER_H_
#define STEPFLOW_RUNTIME_ENV_REAL_THREAD_POOL_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/clock.h"
#include "runtime/env/scheduler.h"

namespace stepflow {

class ThreadPoolScheduler : public Scheduler {
 public:
  ThreadPoolScheduler(int num_threads, Clock* clock);
  ~ThreadPoolScheduler() override;
  ThreadPoolScheduler(const ThreadPoolScheduler&) = delete;
  ThreadPoolScheduler& operator=(const ThreadPoolScheduler&) = delete;

  void Schedule(Closure fn) override;
  TimerId ScheduleAfter(int64_t delay_nanos, Closure fn) override;
  bool CancelTimer(TimerId id) override;
  void WaitFor(Notification* n) override;
  int NumThreads() const override { return num_threads_; }

  // Timers still waiting (for tests and leak checks).
  size_t NumPendingTimers() const;
  // Closures abandoned because they threw std::bad_alloc.
  int64_t NumOutOfMemoryClosures() const {
    return num_out_of_memory_.load(std::memory_order_relaxed);
  }

 private:
  void WorkerLoop();
  void TimerLoop();
  // Runs `fn`, absorbing a std::bad_alloc it throws.
  void RunClosure(Closure& fn);

  Clock* const clock_;
  const int num_threads_;

  // How long an idle worker spins before sleeping, in pause instructions.
  static constexpr int kSpinPauses = 2000;

  absl::Mutex mu_;
  std::deque<Closure> queue_ ABSL_GUARDED_BY(mu_);
  // queue_.size(), for spinning workers to poll without taking mu_.
  std::atomic<int64_t> num_queued_{0};
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<int64_t> num_out_of_memory_{0};
  std::vector<std::thread> workers_;

  // Timers, keyed by (deadline nanos, id) so equal deadlines fire in the
  // order they were requested.
  mutable absl::Mutex timer_mu_;
  absl::CondVar timer_cv_;
  std::map<std::pair<int64_t, TimerId>, Closure> timers_
      ABSL_GUARDED_BY(timer_mu_);
  std::map<TimerId, int64_t> timer_deadlines_ ABSL_GUARDED_BY(timer_mu_);
  TimerId next_timer_id_ ABSL_GUARDED_BY(timer_mu_) = 1;
  bool timer_stop_ ABSL_GUARDED_BY(timer_mu_) = false;
  std::thread timer_thread_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_THREAD_POOL_SCHEDULER_H_
