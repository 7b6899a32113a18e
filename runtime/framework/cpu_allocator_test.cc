#include "runtime/framework/cpu_allocator.h"

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"
#include "runtime/framework/memory_budget.h"

namespace stepflow {
namespace {

TEST(CpuAllocatorTest, AlignsAndTracksStats) {
  MemoryBudget budget("cpu", 1 << 20);
  CpuAllocator a(&budget);
  EXPECT_EQ(a.Name(), "cpu");
  void* p = a.AllocateRaw(64, 1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, 1000);
  void* q = a.AllocateRaw(64, 0);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  std::optional<AllocatorStats> stats = a.GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->num_allocs, 2);
  EXPECT_EQ(stats->bytes_in_use, 1000);
  EXPECT_EQ(stats->largest_alloc_size, 1000);
  ASSERT_TRUE(stats->bytes_limit.has_value());
  EXPECT_EQ(*stats->bytes_limit, 1 << 20);
  EXPECT_EQ(budget.bytes_in_use(), 1000);
  a.DeallocateRaw(p, 64, 1000);
  a.DeallocateRaw(q, 64, 0);
  EXPECT_EQ(a.GetStats()->bytes_in_use, 0);
  EXPECT_EQ(a.GetStats()->peak_bytes_in_use, 1000);
  EXPECT_EQ(budget.bytes_in_use(), 0);
}

TEST(CpuAllocatorTest, RefusesOverBudgetWithoutTouchingMemory) {
  MemoryBudget budget("cpu", 4096);
  CpuAllocator a(&budget);
  EXPECT_EQ(a.AllocateRaw(64, 4097), nullptr);
  // 4 TiB: refused by the budget before malloc is asked.
  EXPECT_EQ(a.AllocateRaw(64, size_t{1} << 42), nullptr);
  EXPECT_EQ(budget.bytes_in_use(), 0);
  EXPECT_EQ(a.GetStats()->num_allocs, 0);
  void* p = a.AllocateRaw(64, 4096);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(a.AllocateRaw(64, 1), nullptr);
  a.DeallocateRaw(p, 64, 4096);
}

TEST(CpuAllocatorTest, UnbudgetedAllocatorRefusesImpossibleSizes) {
  // No budget: malloc decides, and an impossible size is nullptr, not an
  // abort.
  EXPECT_EQ(cpu_allocator()->AllocateRaw(64, SIZE_MAX - 8), nullptr);
  EXPECT_EQ(cpu_allocator()->AllocateRaw(64, size_t{1} << 61), nullptr);
  void* p = cpu_allocator()->AllocateRaw(64, 16);
  ASSERT_NE(p, nullptr);
  cpu_allocator()->DeallocateRaw(p, 64, 16);
}

}  // namespace
}  // namespace stepflow
