#include "runtime/env/real/heap_trimmer.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "runtime/env/real/malloc_tuning.h"

namespace stepflow {
namespace {

// Freed memory that TuneMallocForTensors keeps in the process is handed
// back once the heap is idle, and an idle heap is trimmed once.
TEST(HeapTrimmerTest, ReturnsIdleHeapOnce) {
  ASSERT_TRUE(TuneMallocForTensors());
  HeapTrimmer::Options options;
  options.interval = absl::Milliseconds(20);
  options.keep_free_bytes = size_t{16} << 20;
  auto trimmer = HeapTrimmer::Start(options);

  // 256 MiB in 1 MiB blocks (below the tuned mmap threshold: heap memory),
  // touched, then freed.
  std::vector<void*> blocks;
  for (int i = 0; i < 256; ++i) {
    void* p = std::malloc(size_t{1} << 20);
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, size_t{1} << 20);
    blocks.push_back(p);
  }
  for (void* p : blocks) std::free(p);
  EXPECT_GT(HeapTrimmer::HeapUsage().free_bytes, size_t{200} << 20);

  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (trimmer->trims() == 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(trimmer->trims(), 1);
  // Nothing regrown since: no second trim.
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(trimmer->trims(), 1);
}

// A burst of work after a trim that ends where the heap was (the same free
// and used bytes) but has made pages resident again is trimmed again.
TEST(HeapTrimmerTest, TrimsAgainAfterABurstRegrowsResidentMemory) {
  ASSERT_TRUE(TuneMallocForTensors());
  HeapTrimmer::Options options;
  options.interval = absl::Milliseconds(20);
  auto trimmer = HeapTrimmer::Start(options);
  auto burst = [] {
    std::vector<void*> blocks;
    for (int i = 0; i < 64; ++i) {
      void* p = std::malloc(size_t{1} << 20);
      if (p == nullptr) break;
      std::memset(p, 1, size_t{1} << 20);
      blocks.push_back(p);
    }
    for (void* p : blocks) std::free(p);
  };
  auto await_trims = [&](int64_t n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (trimmer->trims() < n && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    return trimmer->trims();
  };
  burst();
  const int64_t first = await_trims(1);
  ASSERT_GE(first, 1);
  const size_t resident_after_trim = HeapTrimmer::HeapUsage().resident_bytes;
  burst();
  EXPECT_GT(await_trims(first + 1), first);
  EXPECT_LT(HeapTrimmer::HeapUsage().resident_bytes,
            resident_after_trim + (size_t{32} << 20));
}

TEST(HeapTrimmerTest, ReadsResidentBytes) {
  EXPECT_GT(HeapTrimmer::HeapUsage().resident_bytes, size_t{0});
}

// A heap whose free bytes stay under the limit is never trimmed.
TEST(HeapTrimmerTest, LeavesSmallFreeHeapAlone) {
  HeapTrimmer::Options options;
  options.interval = absl::Milliseconds(10);
  options.keep_free_bytes = size_t{1} << 40;
  auto trimmer = HeapTrimmer::Start(options);
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(trimmer->trims(), 0);
}

}  // namespace
}  // namespace stepflow
