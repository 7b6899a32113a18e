// WorkerSteps: step state lifetime, and the sweep of orphaned steps (state a
// RecvTensor created for a step whose RunGraph never came).
#include "runtime/distributed/worker_steps.h"

#include <memory>

#include <gtest/gtest.h>

#include "runtime/env/clock.h"
#include "runtime/env/env.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace {

constexpr int64_t kLeaseNanos = 2000000000;

// A task clock set far behind the scheduler's (a skewed task early in a
// run reads negative times).
class BehindClock : public Clock {
 public:
  explicit BehindClock(Clock* base) : base_(base) {}
  int64_t NowNanos() const override {
    return base_->NowNanos() - 10 * kLeaseNanos;
  }

 private:
  Clock* const base_;
};

class WorkerStepsTest : public ::testing::Test {
 protected:
  WorkerStepsTest() {
    env_.clock = scheduler_.clock();
    env_.scheduler = &scheduler_;
  }

  test::InlineScheduler scheduler_;
  Env env_;
};

TEST_F(WorkerStepsTest, UnclaimedStepIsAbortedAfterTheLease) {
  WorkerSteps steps(&env_, "/job:worker/task:0", /*device_mgr=*/nullptr,
                    kLeaseNanos);
  const int64_t start = env_.clock->NowNanos();
  std::shared_ptr<WorkerStep> step;
  ASSERT_TRUE(steps.FindOrCreate(7, /*claim=*/false, &step).ok());
  EXPECT_EQ(steps.NumSteps(), 1u);

  scheduler_.RunUntilIdle();
  EXPECT_EQ(steps.NumSteps(), 0u);
  EXPECT_GE(env_.clock->NowNanos() - start, kLeaseNanos);
  EXPECT_TRUE(step->cancellation.IsCancelled());
  // The step is remembered: a late RunGraph does not re-create it.
  std::shared_ptr<WorkerStep> late;
  EXPECT_TRUE(absl::IsAborted(steps.FindOrCreate(7, /*claim=*/true, &late)));
  EXPECT_EQ(scheduler_.NumPendingTimers(), 0u);
}

TEST_F(WorkerStepsTest, ClaimedStepIsNeverSwept) {
  WorkerSteps steps(&env_, "/job:worker/task:0", /*device_mgr=*/nullptr,
                    kLeaseNanos);
  std::shared_ptr<WorkerStep> recv_side;
  std::shared_ptr<WorkerStep> run_side;
  ASSERT_TRUE(steps.FindOrCreate(7, /*claim=*/false, &recv_side).ok());
  ASSERT_TRUE(steps.FindOrCreate(7, /*claim=*/true, &run_side).ok());
  EXPECT_EQ(recv_side, run_side);

  scheduler_.RunUntilIdle();
  EXPECT_EQ(steps.NumSteps(), 1u);
  EXPECT_FALSE(run_side->cancellation.IsCancelled());
  steps.Cleanup(7);
  EXPECT_EQ(steps.NumSteps(), 0u);
  EXPECT_TRUE(run_side->cancellation.IsCancelled());
}

TEST_F(WorkerStepsTest, SweepTakesOnlyTheStepsThatAreOldEnough) {
  WorkerSteps steps(&env_, "/job:worker/task:0", /*device_mgr=*/nullptr,
                    kLeaseNanos);
  std::shared_ptr<WorkerStep> old_step;
  std::shared_ptr<WorkerStep> young_step;
  ASSERT_TRUE(steps.FindOrCreate(1, /*claim=*/false, &old_step).ok());
  scheduler_.AdvanceClock(kLeaseNanos / 2);
  ASSERT_TRUE(steps.FindOrCreate(2, /*claim=*/false, &young_step).ok());

  // The first sweep runs at the old step's deadline: the young one stays.
  ASSERT_TRUE(scheduler_.RunOne());
  EXPECT_TRUE(old_step->cancellation.IsCancelled());
  EXPECT_FALSE(young_step->cancellation.IsCancelled());
  EXPECT_EQ(steps.NumSteps(), 1u);

  scheduler_.RunUntilIdle();
  EXPECT_TRUE(young_step->cancellation.IsCancelled());
  EXPECT_EQ(steps.NumSteps(), 0u);
}

TEST_F(WorkerStepsTest, NegativeClockReadingsAreOrdinaryTimes) {
  BehindClock behind(scheduler_.clock());
  env_.clock = &behind;
  ASSERT_LT(env_.clock->NowNanos(), 0);
  WorkerSteps steps(&env_, "/job:worker/task:0", /*device_mgr=*/nullptr,
                    kLeaseNanos);
  std::shared_ptr<WorkerStep> step;
  ASSERT_TRUE(steps.FindOrCreate(7, /*claim=*/false, &step).ok());
  // One sweep, at the lease's end (not a busy loop of re-armed timers).
  EXPECT_EQ(scheduler_.RunUntilIdle(), 1);
  EXPECT_TRUE(step->cancellation.IsCancelled());
  EXPECT_EQ(steps.NumSteps(), 0u);
}

TEST_F(WorkerStepsTest, NoLeaseMeansNoSweep) {
  WorkerSteps steps(&env_, "/job:worker/task:0", /*device_mgr=*/nullptr,
                    /*orphan_nanos=*/0);
  std::shared_ptr<WorkerStep> step;
  ASSERT_TRUE(steps.FindOrCreate(7, /*claim=*/false, &step).ok());
  EXPECT_EQ(scheduler_.NumPendingTimers(), 0u);
  EXPECT_EQ(steps.NumSteps(), 1u);
}

TEST_F(WorkerStepsTest, DestroyingTheStepsCancelsThePendingSweep) {
  {
    WorkerSteps steps(&env_, "/job:worker/task:0", /*device_mgr=*/nullptr,
                      kLeaseNanos);
    std::shared_ptr<WorkerStep> step;
    ASSERT_TRUE(steps.FindOrCreate(7, /*claim=*/false, &step).ok());
    EXPECT_EQ(scheduler_.NumPendingTimers(), 1u);
  }
  EXPECT_EQ(scheduler_.NumPendingTimers(), 0u);
}

}  // namespace
}  // namespace stepflow
