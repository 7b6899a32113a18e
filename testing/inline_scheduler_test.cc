#include "testing/inline_scheduler.h"

#include <string>
#include <vector>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace stepflow {
namespace test {
namespace {

TEST(InlineSchedulerTest, NothingRunsUntilDriven) {
  InlineScheduler s;
  int ran = 0;
  s.Schedule([&] { ++ran; });
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(s.NumQueued(), 1u);
  EXPECT_EQ(s.RunUntilIdle(), 1);
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(s.NumThreads(), 1);
}

TEST(InlineSchedulerTest, FifoIncludingNestedSchedules) {
  InlineScheduler s;
  std::vector<std::string> order;
  s.Schedule([&] {
    order.push_back("a");
    s.Schedule([&] { order.push_back("c"); });
  });
  s.Schedule([&] { order.push_back("b"); });
  s.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(InlineSchedulerTest, TimersRunAfterQueueInDeadlineOrderAndMoveClock) {
  InlineScheduler s;
  const int64_t t0 = s.clock()->NowNanos();
  std::vector<std::string> order;
  std::vector<int64_t> times;
  auto rec = [&](std::string name) {
    return [&, name] {
      order.push_back(name);
      times.push_back(s.clock()->NowNanos() - t0);
    };
  };
  s.ScheduleAfter(200, rec("t200"));
  s.ScheduleAfter(100, rec("t100a"));
  s.ScheduleAfter(100, rec("t100b"));
  s.Schedule(rec("now"));
  s.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<std::string>{"now", "t100a", "t100b", "t200"}));
  EXPECT_EQ(times, (std::vector<int64_t>{0, 100, 100, 200}));
}

TEST(InlineSchedulerTest, CancelTimer) {
  InlineScheduler s;
  bool ran = false;
  Scheduler::TimerId id = s.ScheduleAfter(10, [&] { ran = true; });
  EXPECT_TRUE(s.CancelTimer(id));
  EXPECT_FALSE(s.CancelTimer(id));
  EXPECT_FALSE(s.CancelTimer(999));
  s.RunUntilIdle();
  EXPECT_FALSE(ran);
  Scheduler::TimerId id2 = s.ScheduleAfter(10, [] {});
  s.RunUntilIdle();
  EXPECT_FALSE(s.CancelTimer(id2));
}

TEST(InlineSchedulerTest, WaitForRunsUntilNotified) {
  InlineScheduler s;
  Notification n;
  int after = 0;
  s.Schedule([&] { s.ScheduleAfter(5, [&] { n.Notify(); }); });
  s.ScheduleAfter(50, [&] { ++after; });
  s.WaitFor(&n);
  EXPECT_TRUE(n.HasBeenNotified());
  EXPECT_EQ(after, 0);  // Stopped as soon as the notification fired.
  EXPECT_EQ(s.NumPendingTimers(), 1u);
}

TEST(InlineSchedulerTest, WaitForReportsDeadlock) {
  InlineScheduler s;
  Notification never;
  EXPECT_NONFATAL_FAILURE(s.WaitFor(&never), "deadlock");
}

}  // namespace
}  // namespace test
}  // namespace stepflow
