#include "runtime/env/real/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

// Sanitizers bring their own allocator: glibc's thresholds mean nothing.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STEPFLOW_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define STEPFLOW_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace stepflow {
namespace {

TEST(MallocTuningTest, LargeBlocksComeFromTheHeapAfterTuning) {
#ifdef STEPFLOW_SANITIZER_ALLOCATOR
  GTEST_SKIP() << "a sanitizer's allocator replaces glibc's malloc";
#endif
  ASSERT_TRUE(TuneMallocForTensors());
  // 4 MiB is below the new mmap threshold: it no longer adds to the mmapped
  // total (mallinfo2().hblkhd counts bytes in mmapped blocks).
  const size_t before = mallinfo2().hblkhd;
  void* p = std::malloc(size_t{4} << 20);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, size_t{4} << 20);
  EXPECT_EQ(mallinfo2().hblkhd, before);
  std::free(p);
}

TEST(MallocTuningTest, RejectsThresholdsMalloptCannotTake) {
  // mallopt takes an int: anything above INT_MAX is refused up front.
  EXPECT_FALSE(TuneMallocForTensors(size_t{1} << 40, size_t{1} << 20));
}

}  // namespace
}  // namespace stepflow
