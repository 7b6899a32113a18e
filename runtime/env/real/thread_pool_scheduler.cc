#include "runtime/env/real/thread_pool_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <new>

#include "absl/time/time.h"

namespace stepflow {

ThreadPoolScheduler::ThreadPoolScheduler(int num_threads, Clock* clock)
    : clock_(clock),
      num_threads_(num_threads > 0
                       ? num_threads
                       : std::max(1u, std::thread::hardware_concurrency())) {
  workers_.reserve(num_threads_);
  for (int i = 0; i < num_threads_; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
  timer_thread_ = std::thread([this] { TimerLoop(); });
}

ThreadPoolScheduler::~ThreadPoolScheduler() {
  // 1. Stop the timer thread; pending timers are discarded.
  std::map<std::pair<int64_t, TimerId>, Closure> discarded;
  {
    absl::MutexLock l(&timer_mu_);
    timer_stop_ = true;
    timer_cv_.SignalAll();
  }
  timer_thread_.join();
  {
    absl::MutexLock l(&timer_mu_);
    discarded.swap(timers_);
    timer_deadlines_.clear();
  }
  discarded.clear();  // Destroy closures outside the lock.

  // 2. Drain the worker queue, then stop the workers.
  {
    absl::MutexLock l(&mu_);
    shutting_down_ = true;
  }
  for (std::thread& t : workers_) t.join();
}

void ThreadPoolScheduler::Schedule(Closure fn) {
  absl::MutexLock l(&mu_);
  queue_.push_back(std::move(fn));
  num_queued_.fetch_add(1, std::memory_order_release);
}

namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

void ThreadPoolScheduler::WorkerLoop() {
  auto has_work_or_done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !queue_.empty() || shutting_down_;
  };
  for (;;) {
    for (int i = 0;
         i < kSpinPauses && num_queued_.load(std::memory_order_acquire) == 0;
         ++i) {
      CpuRelax();
    }
    Closure fn;
    {
      absl::MutexLock l(&mu_);
      mu_.Await(absl::Condition(&has_work_or_done));
      if (queue_.empty()) return;  // Shutting down and drained.
      fn = std::move(queue_.front());
      queue_.pop_front();
      num_queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    RunClosure(fn);
  }
}

void ThreadPoolScheduler::RunClosure(Closure& fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    num_out_of_memory_.fetch_add(1, std::memory_order_relaxed);
    // Nothing here may allocate: memory is what ran out.
    static constexpr char kMessage[] =
        "ThreadPoolScheduler: a closure ran out of memory (std::bad_alloc); "
        "its work is dropped and the pool serves on\n";
    std::fwrite(kMessage, 1, sizeof(kMessage) - 1, stderr);
  }
}

Scheduler::TimerId ThreadPoolScheduler::ScheduleAfter(int64_t delay_nanos,
                                                      Closure fn) {
  const int64_t deadline =
      clock_->NowNanos() + std::max<int64_t>(0, delay_nanos);
  absl::MutexLock l(&timer_mu_);
  const TimerId id = next_timer_id_++;
  if (timer_stop_) return id;  // Shutting down: the timer never fires.
  const bool new_earliest =
      timers_.empty() || deadline < timers_.begin()->first.first;
  timers_.emplace(std::make_pair(deadline, id), std::move(fn));
  timer_deadlines_.emplace(id, deadline);
  if (new_earliest) timer_cv_.Signal();
  return id;
}

bool ThreadPoolScheduler::CancelTimer(TimerId id) {
  Closure dropped;
  {
    absl::MutexLock l(&timer_mu_);
    auto it = timer_deadlines_.find(id);
    if (it == timer_deadlines_.end()) return false;
    auto timer = timers_.find(std::make_pair(it->second, id));
    dropped = std::move(timer->second);
    timers_.erase(timer);
    timer_deadlines_.erase(it);
  }
  return true;  // `dropped` is destroyed outside the lock.
}

size_t ThreadPoolScheduler::NumPendingTimers() const {
  absl::MutexLock l(&timer_mu_);
  return timers_.size();
}

void ThreadPoolScheduler::TimerLoop() {
  absl::MutexLock l(&timer_mu_);
  while (!timer_stop_) {
    if (timers_.empty()) {
      timer_cv_.Wait(&timer_mu_);
      continue;
    }
    const auto first = timers_.begin();
    const int64_t now = clock_->NowNanos();
    const int64_t deadline = first->first.first;
    if (deadline > now) {
      timer_cv_.WaitWithTimeout(&timer_mu_, absl::Nanoseconds(deadline - now));
      continue;
    }
    Closure fn = std::move(first->second);
    timer_deadlines_.erase(first->first.second);
    timers_.erase(first);
    // Hand the closure to the workers without holding the timer lock.
    timer_mu_.Unlock();
    Schedule(std::move(fn));
    timer_mu_.Lock();
  }
}

void ThreadPoolScheduler::WaitFor(Notification* n) {
  absl::Mutex* mu = n->mutex();
  mu->LockWhen(absl::Condition(n, &Notification::notified_locked));
  mu->Unlock();
}

}  // namespace stepflow
