#include "runtime/env/real/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(MallocTuningTest, LargeBlocksComeFromTheHeapAfterTuning) {
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

TEST(MallocTuningTest, RejectsThresholdsGlibcCannotTake) {
  // M_MMAP_THRESHOLD is capped by glibc (32 MiB on 32-bit, far larger on
  // 64-bit, but never above INT_MAX).
  EXPECT_FALSE(TuneMallocForTensors(size_t{1} << 40, size_t{1} << 20));
}

}  // namespace
}  // namespace stepflow
