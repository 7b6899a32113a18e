#include "runtime/env/real/malloc_trim_releaser.h"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/env/real/heap_trimmer.h"
#include "runtime/env/real/real_env.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SF_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SF_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace stepflow {
namespace {

TEST(MallocTrimReleaserTest, RealEnvsHaveOne) {
  std::unique_ptr<RealEnv> real = RealEnv::Create(1);
  EXPECT_NE(real->env()->heap_releaser, nullptr);
}

TEST(MallocTrimReleaserTest, ReturnsFreePagesBetweenLiveBlocks) {
#ifdef SF_SANITIZER_ALLOCATOR
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's malloc";
#endif
  // 128 MB of 1 KB blocks, one in 64 kept: the freed ones fill whole pages
  // that stay resident (a live block sits above them, so the top of the
  // heap cannot shrink) until they are released.
  constexpr int kBlocks = 128 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks(kBlocks);
  for (auto& b : blocks) {
    b.reset(new char[1000]);
    for (int i = 0; i < 1000; i += 64) b[i] = 1;  // Touch every line.
  }
  for (int i = 0; i < kBlocks; ++i) {
    if (i % 64 != 63) blocks[i].reset();
  }
  const size_t before = HeapTrimmer::HeapUsage().resident_bytes;
  MallocTrimReleaser releaser;
  releaser.ReleaseFreeHeap();
  const size_t after = HeapTrimmer::HeapUsage().resident_bytes;
  ASSERT_GT(before, 0u);
  EXPECT_LT(after + (size_t{64} << 20), before)
      << "before " << before << " after " << after;
}

}  // namespace
}  // namespace stepflow
