#include "runtime/kernels/parallel_for.h"

#include <atomic>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/env/notification.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace {

TEST(ParallelForAsyncTest, ZeroPiecesStillCallsDone) {
  test::InlineScheduler scheduler;
  int calls = 0, done = 0;
  ParallelForAsync(
      &scheduler, 0, [&](int) { ++calls; }, [&] { ++done; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(done, 1);
}

TEST(ParallelForAsyncTest, OnePieceRunsInlineWithoutScheduling) {
  int calls = 0, done = 0;
  // No scheduler is needed (or touched) for a single piece.
  ParallelForAsync(
      nullptr, 1, [&](int i) { calls += 1 + i; }, [&] { ++done; });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(done, 1);
}

TEST(ParallelForAsyncTest, DoneWaitsForTheLastScheduledPiece) {
  test::InlineScheduler scheduler;
  std::vector<int> ran;
  int done = 0;
  ParallelForAsync(
      &scheduler, 4, [&](int i) { ran.push_back(i); },
      [&] {
        EXPECT_EQ(ran.size(), 4u);
        ++done;
      });
  // Piece 0 ran on the caller; the rest wait in the scheduler.
  EXPECT_EQ(ran, std::vector<int>({0}));
  EXPECT_EQ(done, 0);
  scheduler.RunUntilIdle();
  EXPECT_EQ(ran, std::vector<int>({0, 1, 2, 3}));
  EXPECT_EQ(done, 1);
}

TEST(ParallelForAsyncTest, EveryPieceRunsOnceOnAThreadPool) {
  SystemClock clock;
  auto scheduler = std::make_unique<ThreadPoolScheduler>(4, &clock);
  constexpr int kPieces = 257;
  auto counts = std::make_shared<std::vector<std::atomic<int>>>(kPieces);
  std::atomic<int> done{0};
  Notification finished;
  ParallelForAsync(
      scheduler.get(), kPieces, [counts](int i) { ++(*counts)[i]; },
      [&] {
        ++done;
        finished.Notify();
      });
  scheduler->WaitFor(&finished);
  for (int i = 0; i < kPieces; ++i) EXPECT_EQ((*counts)[i].load(), 1) << i;
  EXPECT_EQ(done.load(), 1);
}

}  // namespace
}  // namespace stepflow
