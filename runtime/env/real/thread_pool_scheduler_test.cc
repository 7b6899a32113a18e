#include "runtime/env/real/thread_pool_scheduler.h"

#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "runtime/env/real/system_clock.h"

namespace stepflow {
namespace {

// A clock the test moves by hand.
class ManualClock : public Clock {
 public:
  int64_t NowNanos() const override { return now_.load(); }
  void Advance(int64_t nanos) { now_.fetch_add(nanos); }

 private:
  std::atomic<int64_t> now_{1000};
};

TEST(ThreadPoolSchedulerTest, NumThreads) {
  SystemClock clock;
  ThreadPoolScheduler three(3, &clock);
  EXPECT_EQ(three.NumThreads(), 3);
  ThreadPoolScheduler def(0, &clock);
  EXPECT_GE(def.NumThreads(), 1);
}

TEST(ThreadPoolSchedulerTest, RunsClosureAndWaitFor) {
  SystemClock clock;
  ThreadPoolScheduler sched(2, &clock);
  Notification n;
  std::atomic<int> ran{0};
  sched.Schedule([&] {
    ran = 1;
    n.Notify();
  });
  sched.WaitFor(&n);
  EXPECT_EQ(ran.load(), 1);
  EXPECT_TRUE(n.HasBeenNotified());
}

// A closure (or a timer's) that runs out of memory does not terminate the
// process, and its thread serves the next closures.
TEST(ThreadPoolSchedulerTest, BadAllocInAClosureIsAbsorbed) {
  SystemClock clock;
  ThreadPoolScheduler sched(1, &clock);
  sched.Schedule([] { throw std::bad_alloc(); });
  sched.ScheduleAfter(0, [] { throw std::bad_alloc(); });
  Notification timer_ran;
  sched.ScheduleAfter(1000000, [&] { timer_ran.Notify(); });
  sched.WaitFor(&timer_ran);
  Notification n;
  sched.Schedule([&] { n.Notify(); });
  sched.WaitFor(&n);
  EXPECT_EQ(sched.NumOutOfMemoryClosures(), 2);
}

TEST(ThreadPoolSchedulerTest, WaitForAlreadyNotifiedReturns) {
  SystemClock clock;
  ThreadPoolScheduler sched(1, &clock);
  Notification n;
  n.Notify();
  sched.WaitFor(&n);
  SUCCEED();
}

TEST(ThreadPoolSchedulerTest, SingleThreadIsFifo) {
  SystemClock clock;
  ThreadPoolScheduler sched(1, &clock);
  absl::Mutex mu;
  std::vector<int> order;
  Notification done;
  for (int i = 0; i < 100; ++i) {
    sched.Schedule([&, i] {
      absl::MutexLock l(&mu);
      order.push_back(i);
      if (i == 99) done.Notify();
    });
  }
  sched.WaitFor(&done);
  absl::MutexLock l(&mu);
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(ThreadPoolSchedulerTest, ManyConcurrentClosures) {
  SystemClock clock;
  ThreadPoolScheduler sched(4, &clock);
  constexpr int kN = 20000;
  std::atomic<int> count{0};
  Notification done;
  for (int i = 0; i < kN; ++i) {
    sched.Schedule([&] {
      // Each closure also schedules a child, from inside the pool.
      sched.Schedule([&] {
        if (count.fetch_add(1) + 1 == 2 * kN) done.Notify();
      });
      if (count.fetch_add(1) + 1 == 2 * kN) done.Notify();
    });
  }
  sched.WaitFor(&done);
  EXPECT_EQ(count.load(), 2 * kN);
}

TEST(ThreadPoolSchedulerTest, ClosuresRunConcurrently) {
  SystemClock clock;
  ThreadPoolScheduler sched(4, &clock);
  // Two closures that each wait for the other: completes only if they run
  // on different threads at the same time.
  Notification a_started, b_started, both;
  std::atomic<int> finished{0};
  sched.Schedule([&] {
    a_started.Notify();
    sched.WaitFor(&b_started);  // Blocking a worker is fine for this test.
    if (++finished == 2) both.Notify();
  });
  sched.Schedule([&] {
    b_started.Notify();
    sched.WaitFor(&a_started);
    if (++finished == 2) both.Notify();
  });
  sched.WaitFor(&both);
  EXPECT_EQ(finished.load(), 2);
}

TEST(ThreadPoolSchedulerTest, TimersFireInDeadlineOrder) {
  ManualClock clock;
  ThreadPoolScheduler sched(1, &clock);
  absl::Mutex mu;
  std::vector<std::string> order;
  Notification done;
  auto record = [&](std::string name) {
    return [&, name] {
      absl::MutexLock l(&mu);
      order.push_back(name);
      if (order.size() == 4) done.Notify();
    };
  };
  sched.ScheduleAfter(300, record("c"));
  sched.ScheduleAfter(100, record("a"));
  sched.ScheduleAfter(200, record("b1"));
  sched.ScheduleAfter(200, record("b2"));  // Same deadline: request order.
  EXPECT_EQ(sched.NumPendingTimers(), 4u);
  clock.Advance(1000);
  sched.WaitFor(&done);
  absl::MutexLock l(&mu);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b1", "b2", "c"}));
  EXPECT_EQ(sched.NumPendingTimers(), 0u);
}

TEST(ThreadPoolSchedulerTest, TimerWaitsForItsDeadline) {
  ManualClock clock;
  ThreadPoolScheduler sched(2, &clock);
  Notification fired;
  sched.ScheduleAfter(500, [&] { fired.Notify(); });
  clock.Advance(499);
  // Give the timer thread plenty of chances to misfire.
  for (int i = 0; i < 100; ++i) {
    Notification tick;
    sched.Schedule([&] { tick.Notify(); });
    sched.WaitFor(&tick);
  }
  EXPECT_FALSE(fired.HasBeenNotified());
  clock.Advance(1);
  sched.WaitFor(&fired);
  EXPECT_TRUE(fired.HasBeenNotified());
}

TEST(ThreadPoolSchedulerTest, RealClockTimerFires) {
  SystemClock clock;
  ThreadPoolScheduler sched(2, &clock);
  Notification fired;
  const int64_t start = clock.NowNanos();
  std::atomic<int64_t> at{0};
  sched.ScheduleAfter(2000000, [&] {  // 2ms
    at = clock.NowNanos();
    fired.Notify();
  });
  sched.WaitFor(&fired);
  EXPECT_GE(at.load() - start, 2000000);
}

TEST(ThreadPoolSchedulerTest, CancelTimer) {
  ManualClock clock;
  ThreadPoolScheduler sched(1, &clock);
  std::atomic<int> cancelled_ran{0};
  Notification kept;
  Scheduler::TimerId id1 = sched.ScheduleAfter(10, [&] { cancelled_ran = 1; });
  Scheduler::TimerId id2 = sched.ScheduleAfter(20, [&] { kept.Notify(); });
  EXPECT_NE(id1, 0u);
  EXPECT_NE(id1, id2);
  EXPECT_TRUE(sched.CancelTimer(id1));
  EXPECT_FALSE(sched.CancelTimer(id1));     // Already cancelled.
  EXPECT_FALSE(sched.CancelTimer(123456));  // Unknown.
  clock.Advance(100);
  sched.WaitFor(&kept);
  EXPECT_FALSE(sched.CancelTimer(id2));  // Already ran.
  // Flush the queue: the cancelled closure must not have run.
  Notification flush;
  sched.Schedule([&] { flush.Notify(); });
  sched.WaitFor(&flush);
  EXPECT_EQ(cancelled_ran.load(), 0);
}

TEST(ThreadPoolSchedulerTest, ShutdownDrainsQueueAndDiscardsTimers) {
  ManualClock clock;
  std::atomic<int> ran{0};
  std::atomic<int> timer_ran{0};
  {
    ThreadPoolScheduler sched(2, &clock);
    for (int i = 0; i < 1000; ++i) {
      sched.Schedule([&] {
        ran.fetch_add(1);
        if (ran.load() == 1) {
          // Scheduled while (possibly) draining: still runs.
          sched.Schedule([&] { ran.fetch_add(1000); });
        }
      });
    }
    sched.ScheduleAfter(1000000000, [&] { timer_ran = 1; });
  }
  EXPECT_EQ(ran.load(), 2000);
  EXPECT_EQ(timer_ran.load(), 0);
}

}  // namespace
}  // namespace stepflow
