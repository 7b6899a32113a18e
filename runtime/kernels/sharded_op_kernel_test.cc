#include "runtime/kernels/sharded_op_kernel.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"

#include "runtime/env/notification.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace {

ShardedWork Work(int64_t units, int64_t cost) {
  ShardedWork w;
  w.units = units;
  w.cost_per_unit = cost;
  return w;
}

TEST(ShardBlockCountTest, CheapWorkStaysInOneBlock) {
  EXPECT_EQ(ShardBlockCount(Work(1000, 1), 8), 1);
  EXPECT_EQ(ShardBlockCount(Work(0, 1), 8), 1);
}

TEST(ShardBlockCountTest, AtMostOneBlockPerThreadAndUnit) {
  EXPECT_EQ(ShardBlockCount(Work(1000, kMinBlockCost), 8), 8);
  EXPECT_EQ(ShardBlockCount(Work(3, kMinBlockCost * 10), 8), 3);
  EXPECT_EQ(ShardBlockCount(Work(1000, kMinBlockCost), 1), 1);
  // Huge products do not overflow.
  EXPECT_EQ(ShardBlockCount(Work(int64_t{1} << 40, int64_t{1} << 40), 4), 4);
}

TEST(RunShardedTest, NoUnitsStillCallsDone) {
  int done = 0;
  ShardedWork w = Work(0, 1);
  w.fn = [](int64_t, int64_t) { FAIL() << "no units to run"; };
  RunSharded(nullptr, w, [&] { ++done; });
  EXPECT_EQ(done, 1);
}

TEST(RunShardedTest, OneThreadRunsOneBlockInline) {
  test::InlineScheduler scheduler;  // one thread
  std::vector<std::pair<int64_t, int64_t>> ranges;
  ShardedWork w = Work(10, kMinBlockCost);
  w.fn = [&](int64_t b, int64_t e) { ranges.emplace_back(b, e); };
  int done = 0;
  RunSharded(&scheduler, w, [&] { ++done; });
  EXPECT_EQ(done, 1);
  EXPECT_EQ(ranges, (std::vector<std::pair<int64_t, int64_t>>{{0, 10}}));
}

TEST(RunShardedTest, BlocksAreContiguousAndCoverEveryUnitOnce) {
  SystemClock clock;
  auto scheduler = std::make_unique<ThreadPoolScheduler>(4, &clock);
  absl::Mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  ShardedWork w = Work(10, kMinBlockCost);
  w.fn = [&](int64_t b, int64_t e) {
    absl::MutexLock lock(&mu);
    ranges.emplace_back(b, e);
  };
  Notification finished;
  RunSharded(scheduler.get(), w, [&] { finished.Notify(); });
  scheduler->WaitFor(&finished);
  absl::MutexLock lock(&mu);
  std::sort(ranges.begin(), ranges.end());
  EXPECT_EQ(ranges, (std::vector<std::pair<int64_t, int64_t>>{
                        {0, 2}, {2, 5}, {5, 7}, {7, 10}}));
}

TEST(RunShardedTest, EveryUnitRunsOnceOnAThreadPool) {
  SystemClock clock;
  auto scheduler = std::make_unique<ThreadPoolScheduler>(4, &clock);
  constexpr int64_t kUnits = 1000;
  auto counts = std::make_shared<std::vector<std::atomic<int>>>(kUnits);
  ShardedWork w = Work(kUnits, kMinBlockCost);
  w.fn = [counts](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) (*counts)[i].fetch_add(1);
  };
  Notification finished;
  RunSharded(scheduler.get(), w, [&] { finished.Notify(); });
  scheduler->WaitFor(&finished);
  for (int64_t i = 0; i < kUnits; ++i) EXPECT_EQ((*counts)[i].load(), 1) << i;
}

}  // namespace
}  // namespace stepflow
