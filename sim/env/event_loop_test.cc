// SimEventLoop: ordering, timers, cancellation, seeded tie-breaking,
// failure reports (deadlock, budgets, reentrancy) and tracing.
#include "sim/env/event_loop.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "runtime/env/notification.h"
#include "sim/env/sim_env.h"
#include "sim/env/sim_random.h"
#include "sim/trace/trace.h"

namespace stepflow {
namespace {

SimEventLoop::Options Fifo() {
  SimEventLoop::Options o;
  o.randomize_ties = false;
  return o;
}

// Collects failures instead of aborting.
struct FailureLog {
  std::vector<SimFailure> failures;
  SimEventLoop::FailureHandler handler() {
    return [this](const SimFailure& f) { failures.push_back(f); };
  }
};

TEST(SimEventLoopTest, StartsAtZeroWithOneThread) {
  SimEventLoop loop(nullptr, Fifo());
  EXPECT_EQ(loop.NowNanos(), 0);
  EXPECT_EQ(loop.NumThreads(), 1);
  EXPECT_EQ(loop.NumPending(), 0u);
  EXPECT_FALSE(loop.Step());
  EXPECT_EQ(loop.RunUntilIdle(), 0u);
}

TEST(SimEventLoopTest, FifoRunsSameTimeClosuresInRequestOrder) {
  SimEventLoop loop(nullptr, Fifo());
  std::vector<int> order;
  for (int i = 0; i < 5; ++i)
    loop.Schedule([&order, i] { order.push_back(i); });
  EXPECT_EQ(loop.NumPending(), 5u);
  EXPECT_EQ(order.size(), 0u);  // Nothing runs until the loop is driven.
  EXPECT_EQ(loop.RunUntilIdle(), 5u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(loop.NowNanos(), 0);
}

TEST(SimEventLoopTest, TimersFireInDeadlineOrderAndMoveTheClock) {
  SimEventLoop loop(nullptr, Fifo());
  std::vector<std::pair<int, int64_t>> fired;
  auto record = [&](int id) {
    return [&fired, &loop, id] { fired.push_back({id, loop.NowNanos()}); };
  };
  loop.ScheduleAfter(30, record(3));
  loop.ScheduleAfter(10, record(1));
  loop.ScheduleAfter(20, record(2));
  loop.ScheduleAfter(10, record(11));  // Same deadline: request order.
  loop.ScheduleAfter(-5, record(0));   // Negative delay: now.
  loop.RunUntilIdle();
  EXPECT_EQ(fired, (std::vector<std::pair<int, int64_t>>{
                       {0, 0}, {1, 10}, {11, 10}, {2, 20}, {3, 30}}));
  EXPECT_EQ(loop.NowNanos(), 30);
}

TEST(SimEventLoopTest, ClosuresScheduledByEventsRunAtTheirTime) {
  SimEventLoop loop(nullptr, Fifo());
  std::vector<std::string> log;
  loop.ScheduleAfter(100, [&] {
    log.push_back("timer@" + std::to_string(loop.NowNanos()));
    loop.Schedule(
        [&] { log.push_back("child@" + std::to_string(loop.NowNanos())); });
    loop.ScheduleAfter(5, [&] {
      log.push_back("grandchild@" + std::to_string(loop.NowNanos()));
    });
  });
  loop.Schedule([&] { log.push_back("first@0"); });
  loop.RunUntilIdle();
  EXPECT_EQ(absl::StrJoin(log, " "),
            "first@0 timer@100 child@100 grandchild@105");
}

TEST(SimEventLoopTest, SchedulingLatencyDelaysScheduleButNotTimers) {
  SimEventLoop::Options o = Fifo();
  o.schedule_latency_nanos = 7;
  SimEventLoop loop(nullptr, o);
  int64_t ran_at = -1, timer_at = -1;
  loop.Schedule([&] { ran_at = loop.NowNanos(); });
  loop.ScheduleAfter(3, [&] { timer_at = loop.NowNanos(); });
  loop.RunUntilIdle();
  EXPECT_EQ(ran_at, 7);
  EXPECT_EQ(timer_at, 3);
}

TEST(SimEventLoopTest, JitterIsBoundedAndSeeded) {
  auto run = [](uint64_t seed) {
    SimRandom random(seed);
    SimEventLoop::Options o;
    o.schedule_latency_nanos = 10;
    o.schedule_jitter_nanos = 5;
    SimEventLoop loop(random.Stream("scheduler"), o);
    std::vector<int64_t> times;
    for (int i = 0; i < 50; ++i)
      loop.Schedule([&] { times.push_back(loop.NowNanos()); });
    loop.RunUntilIdle();
    return times;
  };
  const std::vector<int64_t> a = run(1);
  ASSERT_EQ(a.size(), 50u);
  std::set<int64_t> distinct(a.begin(), a.end());
  for (int64_t t : a) {
    EXPECT_GE(t, 10);
    EXPECT_LE(t, 15);
  }
  EXPECT_GT(distinct.size(), 1u);
  EXPECT_EQ(run(1), a);
  EXPECT_NE(run(2), a);
}

TEST(SimEventLoopTest, CancelTimer) {
  SimEventLoop loop(nullptr, Fifo());
  auto payload = std::make_shared<int>(0);
  bool ran = false;
  Scheduler::TimerId id =
      loop.ScheduleAfter(50, [&ran, payload] { ran = true; });
  EXPECT_NE(id, 0u);
  EXPECT_EQ(payload.use_count(), 2);
  EXPECT_EQ(loop.NumPendingTimers(), 1u);
  EXPECT_TRUE(loop.CancelTimer(id));
  EXPECT_EQ(payload.use_count(), 1);   // The closure was destroyed.
  EXPECT_FALSE(loop.CancelTimer(id));  // Already cancelled.
  EXPECT_FALSE(loop.CancelTimer(0));
  EXPECT_FALSE(loop.CancelTimer(12345));
  loop.RunUntilIdle();
  EXPECT_FALSE(ran);
  EXPECT_EQ(loop.NowNanos(), 0);  // A cancelled timer does not move time.

  // A timer that already fired cannot be cancelled; neither can one that
  // is running.
  Scheduler::TimerId self = 0;
  bool cancelled_self = true;
  self =
      loop.ScheduleAfter(5, [&] { cancelled_self = loop.CancelTimer(self); });
  Scheduler::TimerId fired = loop.ScheduleAfter(1, [] {});
  loop.RunUntilIdle();
  EXPECT_FALSE(cancelled_self);
  EXPECT_FALSE(loop.CancelTimer(fired));
  // Cancelling one of several same-time timers leaves the others.
  std::vector<int> order;
  loop.ScheduleAfter(10, [&] { order.push_back(1); });
  Scheduler::TimerId mid = loop.ScheduleAfter(10, [&] { order.push_back(2); });
  loop.ScheduleAfter(10, [&] { order.push_back(3); });
  EXPECT_TRUE(loop.CancelTimer(mid));
  loop.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{1, 3}));
}

TEST(SimEventLoopTest, CancelWhileItsTimeIsRunningAndReuseOfCancelledTimers) {
  SimEventLoop loop(nullptr, Fifo());
  std::vector<int> order;
  // Three timers due at 10; the first cancels the third while their time
  // is being run, and schedules a closure due at the same time (it runs
  // after the second, in request order).
  Scheduler::TimerId third = 0;
  loop.ScheduleAfter(10, [&] {
    order.push_back(1);
    EXPECT_TRUE(loop.CancelTimer(third));
    loop.Schedule([&] { order.push_back(4); });
  });
  loop.ScheduleAfter(10, [&] { order.push_back(2); });
  third = loop.ScheduleAfter(10, [&] { order.push_back(3); });
  // A later timer cancelled long before it is due, then events scheduled
  // after it: they must neither run it nor be hidden by it.
  Scheduler::TimerId late = loop.ScheduleAfter(30, [&] { order.push_back(9); });
  EXPECT_TRUE(loop.CancelTimer(late));
  loop.ScheduleAfter(30, [&] { order.push_back(5); });
  loop.ScheduleAfter(20, [&] { order.push_back(6); });
  EXPECT_EQ(loop.NumPending(), 5u);
  EXPECT_EQ(loop.NumPendingTimers(), 5u);
  EXPECT_EQ(loop.RunUntilIdle(), 5u);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 4, 6, 5}));
  EXPECT_EQ(loop.NowNanos(), 30);
  EXPECT_EQ(loop.NumPending(), 0u);
  EXPECT_EQ(loop.NumPendingTimers(), 0u);
}

TEST(SimEventLoopTest, RunForRunsOnlyDueEventsAndAdvancesTheClock) {
  SimEventLoop loop(nullptr, Fifo());
  std::vector<int> fired;
  loop.ScheduleAfter(10, [&] { fired.push_back(10); });
  loop.ScheduleAfter(25, [&] { fired.push_back(25); });
  EXPECT_EQ(loop.RunFor(20), 1u);
  EXPECT_EQ(fired, std::vector<int>{10});
  EXPECT_EQ(loop.NowNanos(), 20);
  EXPECT_EQ(loop.RunFor(5), 1u);  // Due exactly at the deadline.
  EXPECT_EQ(loop.NowNanos(), 25);
  EXPECT_EQ(loop.RunFor(100), 0u);  // Idle: time still passes.
  EXPECT_EQ(loop.NowNanos(), 125);
}

TEST(SimEventLoopTest, StepRunsOneEvent) {
  SimEventLoop loop(nullptr, Fifo());
  int n = 0;
  loop.Schedule([&] { ++n; });
  loop.ScheduleAfter(9, [&] { ++n; });
  EXPECT_TRUE(loop.Step());
  EXPECT_EQ(n, 1);
  EXPECT_EQ(loop.NowNanos(), 0);
  EXPECT_TRUE(loop.Step());
  EXPECT_EQ(n, 2);
  EXPECT_EQ(loop.NowNanos(), 9);
  EXPECT_FALSE(loop.Step());
  EXPECT_EQ(loop.events_run(), 2u);
}

std::vector<int> TieOrder(uint64_t seed, bool randomize) {
  SimRandom random(seed);
  SimEventLoop::Options o;
  o.randomize_ties = randomize;
  SimEventLoop loop(random.Stream("scheduler"), o);
  std::vector<int> order;
  for (int i = 0; i < 8; ++i)
    loop.Schedule([&order, i] { order.push_back(i); });
  loop.RunUntilIdle();
  return order;
}

TEST(SimEventLoopTest, SameTimeChoiceDependsOnTheSeed) {
  std::set<std::vector<int>> orders;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<int> order = TieOrder(seed, true);
    EXPECT_EQ(TieOrder(seed, true), order) << "seed " << seed;
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    orders.insert(order);
  }
  // 20 seeds over 8! orders: (nearly) all distinct.
  EXPECT_GE(orders.size(), 15u);
  // Without randomized ties every seed gives FIFO order.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    EXPECT_EQ(TieOrder(seed, false),
              (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  }
}

TEST(SimEventLoopTest, TimeOrderBeatsRandomChoice) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SimRandom random(seed);
    SimEventLoop loop(random.Stream("scheduler"));
    std::vector<int64_t> times;
    for (int i = 0; i < 10; ++i) {
      loop.ScheduleAfter(10 * (i % 3),
                         [&] { times.push_back(loop.NowNanos()); });
    }
    loop.RunUntilIdle();
    EXPECT_TRUE(std::is_sorted(times.begin(), times.end())) << "seed " << seed;
  }
}

TEST(SimEventLoopTest, WaitForRunsUntilNotified) {
  SimEventLoop loop(nullptr, Fifo());
  Notification n;
  bool after = false;
  loop.ScheduleAfter(40, [&] { n.Notify(); });
  loop.ScheduleAfter(50, [&] { after = true; });
  loop.WaitFor(&n);
  EXPECT_TRUE(n.HasBeenNotified());
  EXPECT_EQ(loop.NowNanos(), 40);
  EXPECT_FALSE(after);  // Stops as soon as the notification fires.
  EXPECT_EQ(loop.NumPending(), 1u);
  // Already notified: returns at once.
  loop.WaitFor(&n);
  EXPECT_EQ(loop.NumPending(), 1u);
}

TEST(SimEventLoopTest, DeadlockIsReportedWithContextInsteadOfHanging) {
  SimEventLoop loop(nullptr, Fifo());
  FailureLog log;
  loop.set_failure_handler(log.handler());
  Notification never;
  loop.ScheduleAfterLabeled(25, "heartbeat", [] {});
  {
    SimEventLoop::ScopedWaitLabel label(&loop, "step 7 of the test");
    EXPECT_FALSE(loop.RunUntilNotified(&never, "step 7 of the test"));
    loop.WaitFor(&never);  // Same through the Scheduler interface.
  }
  ASSERT_EQ(log.failures.size(), 2u);
  const SimFailure& f = log.failures[0];
  EXPECT_EQ(f.kind, SimFailure::Kind::kDeadlock);
  EXPECT_EQ(f.now_nanos, 25);
  EXPECT_EQ(f.events_run, 1u);
  EXPECT_NE(f.waiter.find("step 7 of the test"), std::string::npos);
  ASSERT_EQ(f.recent.size(), 1u);
  EXPECT_NE(f.recent[0].find("heartbeat"), std::string::npos);
  EXPECT_NE(f.message.find("deadlock"), std::string::npos);
  EXPECT_NE(f.message.find("virtual time: 25 ns"), std::string::npos);
  EXPECT_NE(f.message.find("heartbeat"), std::string::npos);
  EXPECT_NE(log.failures[1].waiter.find("step 7 of the test"),
            std::string::npos);
  EXPECT_EQ(loop.failures_reported(), 2u);
}

TEST(SimEventLoopTest, TimeBudgetListsPendingTimers) {
  SimEventLoop::Options o = Fifo();
  o.max_virtual_nanos = 1000;
  SimEventLoop loop(nullptr, o);
  FailureLog log;
  loop.set_failure_handler(log.handler());
  Notification never;
  // A periodic timer that keeps the queue non-empty forever.
  std::function<void()> tick;
  tick = [&] { loop.ScheduleAfterLabeled(300, "tick", tick); };
  loop.ScheduleAfterLabeled(300, "tick", tick);
  loop.ScheduleAfterLabeled(5000, "far-away timeout", [] {});
  EXPECT_FALSE(loop.RunUntilNotified(&never, "forever"));
  ASSERT_EQ(log.failures.size(), 1u);
  const SimFailure& f = log.failures[0];
  EXPECT_EQ(f.kind, SimFailure::Kind::kTimeBudget);
  EXPECT_EQ(f.now_nanos, 900);
  EXPECT_EQ(f.num_pending, 2u);
  ASSERT_EQ(f.pending.size(), 2u);
  EXPECT_NE(f.pending[0].find("t=1200"), std::string::npos) << f.pending[0];
  EXPECT_NE(f.pending[0].find("'tick'"), std::string::npos);
  EXPECT_NE(f.pending[1].find("far-away timeout"), std::string::npos);
  EXPECT_NE(f.message.find("far-away timeout"), std::string::npos);
}

TEST(SimEventLoopTest, EventBudgetStopsALivelock) {
  SimEventLoop::Options o = Fifo();
  o.max_events = 100;
  SimEventLoop loop(nullptr, o);
  FailureLog log;
  loop.set_failure_handler(log.handler());
  std::function<void()> spin;
  spin = [&] { loop.ScheduleLabeled("spin", spin); };
  loop.ScheduleLabeled("spin", spin);
  EXPECT_EQ(loop.RunUntilIdle(), 100u);
  ASSERT_EQ(log.failures.size(), 1u);
  EXPECT_EQ(log.failures[0].kind, SimFailure::Kind::kEventBudget);
  EXPECT_EQ(log.failures[0].events_run, 100u);
  ASSERT_EQ(log.failures[0].pending.size(), 1u);
  EXPECT_NE(log.failures[0].pending[0].find("spin"), std::string::npos);
}

// A handler that cancels the stuck work may let it unwind past the budget
// (AllowTeardown); the interrupted wait then finishes normally. Without the
// grant the wait stops at the budget.
TEST(SimEventLoopTest, AllowTeardownLetsAWaitUnwindPastTheBudget) {
  for (bool allow : {false, true}) {
    SimEventLoop::Options o = Fifo();
    o.max_events = 3;
    SimEventLoop loop(nullptr, o);
    int failures = 0;
    loop.set_failure_handler([&](const SimFailure& f) {
      ++failures;
      EXPECT_EQ(f.kind, SimFailure::Kind::kEventBudget);
      if (allow) loop.AllowTeardown(5, 0);
    });
    Notification n;
    int steps = 0;
    std::function<void()> step;
    step = [&] {
      if (++steps == 6) {
        n.Notify();
      } else {
        loop.ScheduleLabeled("step", step);
      }
    };
    loop.ScheduleLabeled("step", step);
    EXPECT_EQ(loop.RunUntilNotified(&n, "six steps"), allow);
    EXPECT_EQ(n.HasBeenNotified(), allow);
    EXPECT_EQ(failures, 1);
    EXPECT_EQ(loop.events_run(), allow ? 6u : 3u);
  }
}

TEST(SimEventLoopTest, WaitingFromInsideAnEventIsReported) {
  SimEventLoop loop(nullptr, Fifo());
  FailureLog log;
  loop.set_failure_handler(log.handler());
  Notification n;
  bool returned = false;
  loop.ScheduleLabeled("outer", [&] {
    EXPECT_TRUE(loop.in_event());
    loop.WaitFor(&n);  // Must not run the loop recursively.
    EXPECT_EQ(loop.RunUntilIdle(), 0u);
    EXPECT_FALSE(loop.Step());
    returned = true;
  });
  loop.Schedule([&] { n.Notify(); });
  loop.RunUntilIdle();
  EXPECT_TRUE(returned);
  ASSERT_EQ(log.failures.size(), 3u);
  for (const SimFailure& f : log.failures) {
    EXPECT_EQ(f.kind, SimFailure::Kind::kReentrantCall);
    EXPECT_NE(f.waiter.find("inside event seq=1"), std::string::npos)
        << f.waiter;
  }
  EXPECT_TRUE(n.HasBeenNotified());  // The outer loop went on normally.
}

// allow_nested_waits: a wait inside an event runs other events nested on
// the same stack, and the running event's bookkeeping comes back after it.
TEST(SimEventLoopTest, NestedWaitsRunOtherEventsAndRestoreTheOuterEvent) {
  SimEventLoop::Options options = Fifo();
  options.allow_nested_waits = true;
  SimEventLoop loop(nullptr, options);
  FailureLog log;
  loop.set_failure_handler(log.handler());
  Notification a_done, b_done;
  std::vector<std::string> order;
  loop.ScheduleLabeled("a", [&] {
    const uint64_t seq = loop.current_sequence();
    order.push_back("a waits");
    EXPECT_TRUE(loop.RunUntilNotified(&a_done, "a"));
    EXPECT_EQ(loop.current_sequence(), seq);
    EXPECT_EQ(loop.event_depth(), 1);
    order.push_back("a returns");
  });
  loop.ScheduleLabeled("b", [&] {
    EXPECT_EQ(loop.event_depth(), 2);  // Nested inside a's wait.
    order.push_back("b waits");
    loop.WaitFor(&b_done);
    order.push_back("b returns");
  });
  loop.ScheduleAfterLabeled(10, "finish a", [&] {
    order.push_back("a notified");
    a_done.Notify();
  });
  loop.ScheduleAfterLabeled(20, "finish b", [&] {
    order.push_back("b notified");
    b_done.Notify();
  });
  loop.RunUntilIdle();
  EXPECT_TRUE(log.failures.empty());
  // a's step finished first, but a returns only after b (stack order).
  EXPECT_EQ(order,
            (std::vector<std::string>{"a waits", "b waits", "a notified",
                                      "b notified", "b returns", "a returns"}));
  EXPECT_EQ(loop.event_depth(), 0);
  EXPECT_EQ(loop.current_sequence(), 0u);
  EXPECT_EQ(loop.NowNanos(), 20);
}

TEST(SimEventLoopTest, NestedWaitsStillReportDeadlocksAndOtherReentry) {
  SimEventLoop::Options options = Fifo();
  options.allow_nested_waits = true;
  SimEventLoop loop(nullptr, options);
  FailureLog log;
  loop.set_failure_handler(log.handler());
  Notification never;
  loop.ScheduleLabeled("outer", [&] {
    EXPECT_EQ(loop.RunUntilIdle(), 0u);  // Still not allowed inside events.
    EXPECT_FALSE(loop.RunUntilNotified(&never, "never"));
  });
  loop.RunUntilIdle();
  ASSERT_EQ(log.failures.size(), 2u);
  EXPECT_EQ(log.failures[0].kind, SimFailure::Kind::kReentrantCall);
  EXPECT_EQ(log.failures[1].kind, SimFailure::Kind::kDeadlock);
  EXPECT_EQ(log.failures[1].waiter, "WaitFor(never)");
}

TEST(SimEventLoopDeathTest, DefaultHandlerAbortsWithTheReport) {
  EXPECT_DEATH(
      {
        SimEventLoop loop(nullptr, Fifo());
        loop.ScheduleAfterLabeled(3, "lonely timer", [] {});
        Notification never;
        SimEventLoop::ScopedWaitLabel label(&loop, "the death test");
        loop.WaitFor(&never);
      },
      "deadlock(.|\n)*virtual time: 3 ns(.|\n)*the death test(.|\n)*lonely "
      "timer");
}

TEST(SimEventLoopDeathTest, UseFromASecondThreadAborts) {
  EXPECT_DEATH(
      {
        SimEventLoop loop(nullptr, Fifo());
        loop.Schedule([] {});  // Binds the loop to this thread.
        std::thread other([&] { loop.Schedule([] {}); });
        other.join();
      },
      "second thread");
}

TEST(SimEventLoopTest, DestructionDropsPendingClosuresWithoutRunningThem) {
  auto payload = std::make_shared<int>(0);
  bool ran = false;
  {
    SimEventLoop loop(nullptr, Fifo());
    loop.Schedule([payload, &ran] { ran = true; });
    loop.ScheduleAfter(10, [payload, &ran] { ran = true; });
    EXPECT_EQ(payload.use_count(), 3);
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(payload.use_count(), 1);
}

TEST(SimEventLoopTest, DescribePendingNamesLabelsAndClosureTypes) {
  SimEventLoop loop(nullptr, Fifo());
  loop.ScheduleAfterLabeled(5, "retry", [] {});
  loop.Schedule([] {});
  const std::vector<std::string> pending = loop.DescribePending();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_NE(pending[0].find("t=0 seq=2 closure"), std::string::npos)
      << pending[0];
  // The closure's type, demangled. (How the namespace prefix is spelled
  // depends on which demangler the toolchain links: the sanitizer runtimes
  // bring their own.)
  EXPECT_NE(pending[0].find("SimEventLoopTest_"
                            "DescribePendingNamesLabelsAndClosureTypes_Test::"
                            "TestBody()::{lambda()#2}"),
            std::string::npos)
      << pending[0];
  EXPECT_NE(pending[1].find("t=5 seq=1 timer 'retry'"), std::string::npos)
      << pending[1];
}

TEST(SimEventLoopTest, RecordsPicksFiresAndCancels) {
  SimRandom random(3);
  SimEventLoop loop(random.Stream("scheduler"));
  TraceRecorder::Options ro;
  ro.keep_events = true;
  TraceRecorder recorder(ro);
  loop.set_recorder(&recorder);
  loop.ScheduleLabeled("a", [&] { loop.Trace(SIM_NOTE, "t", {{"in", "a"}}); });
  loop.ScheduleLabeled("b", [] {});
  Scheduler::TimerId doomed = loop.ScheduleAfterLabeled(9, "doomed", [] {});
  loop.ScheduleAfterLabeled(4, "fire", [] {});
  loop.CancelTimer(doomed);
  loop.RunUntilIdle();
  const std::vector<TraceEvent>& ev = recorder.events();
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].kind, SIM_TIMER_CANCEL);
  EXPECT_EQ(ev[0].sequence, doomed);
  EXPECT_EQ(ev[0].Field("label"), "doomed");
  // Two same-time picks, in a seeded order, each noting 2 or 1 candidates.
  std::multiset<std::string> picked;
  for (int i = 1; i <= 3; ++i) {
    if (ev[i].kind == SIM_SCHEDULER_PICK) picked.insert(ev[i].Field("label"));
  }
  EXPECT_EQ(picked, (std::multiset<std::string>{"a", "b"}));
  EXPECT_TRUE(ev[1].kind == SIM_SCHEDULER_PICK && ev[1].Field("ties") == "2");
  // The note carries the sequence number of the closure that recorded it.
  int note = -1;
  for (int i = 0; i < 5; ++i) {
    if (ev[i].kind == SIM_NOTE) note = i;
  }
  ASSERT_GT(note, 0);
  EXPECT_EQ(ev[note].sequence, ev[note - 1].sequence);
  EXPECT_EQ(ev[note - 1].Field("label"), "a");
  EXPECT_EQ(ev[4].kind, SIM_TIMER_FIRE);
  EXPECT_EQ(ev[4].time_nanos, 4);
  EXPECT_EQ(ev[4].Field("label"), "fire");
  EXPECT_NE(ev[4].payload_digest, 0u);
}

TEST(SimEnvTest, WiresTheLoopAndTheRuntimeStream) {
  SimEnv sim(42);
  EXPECT_EQ(sim.env.clock, &sim.loop);
  EXPECT_EQ(sim.env.scheduler, &sim.loop);
  EXPECT_EQ(sim.env.random, sim.random.Stream("runtime"));
  EXPECT_EQ(sim.env.transport, nullptr);
  SimRandom same(42);
  EXPECT_EQ(sim.env.random->New64(), same.Stream("runtime")->New64());
  bool ran = false;
  sim.env.scheduler->ScheduleAfter(1000, [&] { ran = true; });
  Notification n;
  sim.env.scheduler->Schedule([&] { n.Notify(); });
  sim.env.scheduler->WaitFor(&n);
  EXPECT_FALSE(ran);
  sim.loop.RunUntilIdle();
  EXPECT_TRUE(ran);
  EXPECT_EQ(sim.env.clock->NowNanos(), 1000);
}

}  // namespace
}  // namespace stepflow
