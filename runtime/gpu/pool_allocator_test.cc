#include "runtime/gpu/pool_allocator.h"

#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

class CountingSubAllocator : public SubAllocator {
 public:
  explicit CountingSubAllocator(int* live) : live_(live) {}
  void* Alloc(size_t bytes) override {
    if (fail_) return nullptr;
    ++*live_;
    return std::malloc(bytes);
  }
  void Free(void* ptr, size_t) override {
    --*live_;
    std::free(ptr);
  }
  bool fail_ = false;

 private:
  int* live_;
};

TEST(PoolAllocatorTest, RoundsToSizeClasses) {
  EXPECT_EQ(PoolAllocator::RoundedSize(1), 256u);
  EXPECT_EQ(PoolAllocator::RoundedSize(256), 256u);
  EXPECT_EQ(PoolAllocator::RoundedSize(257), 512u);
  EXPECT_EQ(PoolAllocator::RoundedSize((1 << 20) - 1), size_t{1} << 20);
  EXPECT_EQ(PoolAllocator::RoundedSize((1 << 20) + 1), size_t{2} << 20);
}

TEST(PoolAllocatorTest, ReusesFreedChunksAndKeepsStats) {
  int live = 0;
  {
    PoolAllocator pool("test", std::make_unique<CountingSubAllocator>(&live),
                       0);
    void* a = pool.Allocate(1000);
    void* b = pool.Allocate(1000);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a, b);
    PoolAllocatorStats s = pool.stats();
    EXPECT_EQ(s.num_allocs, 2);
    EXPECT_EQ(s.num_raw_allocs, 2);
    EXPECT_EQ(s.bytes_in_use, 2048);
    pool.Deallocate(a);
    void* c = pool.Allocate(900);  // Same 1 KiB class: reused.
    EXPECT_EQ(c, a);
    s = pool.stats();
    EXPECT_EQ(s.num_allocs, 3);
    EXPECT_EQ(s.num_raw_allocs, 2);
    EXPECT_EQ(s.peak_bytes_in_use, 2048);
    EXPECT_EQ(s.bytes_reserved, 2048);
    pool.Deallocate(b);
    pool.Deallocate(c);
    EXPECT_EQ(pool.stats().bytes_in_use, 0);
    EXPECT_EQ(live, 2);
  }
  EXPECT_EQ(live, 0);  // The destructor returned the cached chunks.
}

TEST(PoolAllocatorTest, LimitReleasesCacheThenFails) {
  int live = 0;
  PoolAllocator pool("test", std::make_unique<CountingSubAllocator>(&live),
                     4096);
  void* a = pool.Allocate(2048);
  ASSERT_NE(a, nullptr);
  pool.Deallocate(a);             // Cached: 2048 reserved.
  void* b = pool.Allocate(4096);  // Needs the cache released to fit.
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(pool.stats().bytes_reserved, 4096);
  EXPECT_EQ(pool.Allocate(256), nullptr);  // Over the limit.
  pool.Deallocate(b);
}

TEST(PoolAllocatorTest, RawFailureIsNull) {
  int live = 0;
  auto sub = std::make_unique<CountingSubAllocator>(&live);
  CountingSubAllocator* raw = sub.get();
  PoolAllocator pool("test", std::move(sub), 0);
  raw->fail_ = true;
  EXPECT_EQ(pool.Allocate(10), nullptr);
  EXPECT_EQ(pool.stats().num_allocs, 0);
  pool.Deallocate(nullptr);  // No-op.
}

}  // namespace
}  // namespace stepflow
