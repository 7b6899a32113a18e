#include "runtime/framework/memory_budget.h"

#include "gtest/gtest.h"

namespace stepflow {
namespace {

TEST(MemoryBudgetTest, ReservesUpToTheLimitAndTracksPeak) {
  MemoryBudget b("dev", 100);
  EXPECT_TRUE(b.TryReserve(60));
  EXPECT_TRUE(b.TryReserve(40));
  EXPECT_FALSE(b.TryReserve(1));
  EXPECT_EQ(b.bytes_in_use(), 100);
  b.Release(70);
  EXPECT_EQ(b.bytes_in_use(), 30);
  EXPECT_EQ(b.peak_bytes_in_use(), 100);
  EXPECT_TRUE(b.TryReserve(70));
  EXPECT_FALSE(b.TryReserve(-1));
}

TEST(MemoryBudgetTest, NonPositiveLimitMeansUnlimited) {
  MemoryBudget b("process", 0);
  EXPECT_TRUE(b.unlimited());
  EXPECT_TRUE(b.TryReserve(int64_t{1} << 50));
  EXPECT_TRUE(b.TryReserve(int64_t{1} << 50));
  EXPECT_NE(b.DebugString().find("no limit"), std::string::npos);
}

TEST(MemoryBudgetTest, ParentRefusalReservesNothingAnywhere) {
  MemoryBudget process("process", 100);
  MemoryBudget dev0("cpu0", 80, &process);
  MemoryBudget dev1("cpu1", 80, &process);
  EXPECT_TRUE(dev0.TryReserve(70));
  // Fits dev1's own limit but not the process's.
  EXPECT_FALSE(dev1.TryReserve(40));
  EXPECT_EQ(dev1.bytes_in_use(), 0);
  EXPECT_EQ(process.bytes_in_use(), 70);
  EXPECT_TRUE(dev1.TryReserve(30));
  EXPECT_EQ(process.bytes_in_use(), 100);
  dev0.Release(70);
  EXPECT_EQ(process.bytes_in_use(), 30);
  EXPECT_EQ(dev0.bytes_in_use(), 0);
  // Over the device's own limit, although the process has room.
  EXPECT_FALSE(dev0.TryReserve(81));
  EXPECT_EQ(process.bytes_in_use(), 30);
}

// Refuses every reservation of at least `min_bytes` while armed.
class RefuseLarge : public AllocationFaults {
 public:
  explicit RefuseLarge(int64_t min_bytes) : min_bytes_(min_bytes) {}
  bool Refuse(const std::string& budget, int64_t bytes) override {
    last_budget = budget;
    return armed && bytes >= min_bytes_;
  }
  bool armed = true;
  std::string last_budget;

 private:
  const int64_t min_bytes_;
};

TEST(MemoryBudgetTest, InjectedFaultsRefuseWithoutReservingAnywhere) {
  MemoryBudget process("process", 0);
  RefuseLarge faults(16);
  MemoryBudget dev("cpu0", 0, &process, &faults);
  EXPECT_TRUE(dev.TryReserve(8));
  EXPECT_FALSE(dev.TryReserve(16));
  EXPECT_EQ(faults.last_budget, "cpu0");
  EXPECT_EQ(dev.bytes_in_use(), 8);
  EXPECT_EQ(process.bytes_in_use(), 8);
  faults.armed = false;
  EXPECT_TRUE(dev.TryReserve(16));
  EXPECT_EQ(process.bytes_in_use(), 24);
}

TEST(MemoryBudgetTest, DebugStringNamesUseAndLimit) {
  MemoryBudget b("cpu", 1024);
  ASSERT_TRUE(b.TryReserve(12));
  EXPECT_EQ(b.DebugString(), "cpu: 12 of 1024 bytes in use (peak 12)");
}

}  // namespace
}  // namespace stepflow
