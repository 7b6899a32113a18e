#include "runtime/distributed/recent_id_window.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace stepflow {
namespace {

TEST(RecentIdWindowTest, InsertReportsRepeats) {
  RecentIdWindow w(8);
  EXPECT_TRUE(w.Insert(5));
  EXPECT_FALSE(w.Insert(5));
  EXPECT_TRUE(w.Contains(5));
  EXPECT_FALSE(w.Contains(6));
  EXPECT_EQ(w.size(), 1u);
}

TEST(RecentIdWindowTest, ForgetsOldestFirstAcrossManyWraps) {
  constexpr size_t kCapacity = 37;
  RecentIdWindow w(kCapacity);
  for (int64_t id = 0; id < 1000; ++id) {
    ASSERT_TRUE(w.Insert(id)) << id;
    ASSERT_LE(w.size(), kCapacity);
    // Exactly the last min(id + 1, capacity) ids are remembered.
    const int64_t first = id + 1 - static_cast<int64_t>(w.size());
    EXPECT_EQ(first, std::max<int64_t>(0, id + 1 - kCapacity));
    ASSERT_FALSE(w.Contains(first - 1)) << id;
    ASSERT_TRUE(w.Contains(first)) << id;
  }
}

TEST(RecentIdWindowTest, ARepeatDoesNotRefreshItsAge) {
  RecentIdWindow w(2);
  EXPECT_TRUE(w.Insert(1));
  EXPECT_TRUE(w.Insert(2));
  EXPECT_FALSE(w.Insert(1));
  EXPECT_TRUE(w.Insert(3));  // Forgets 1, the oldest, not 2.
  EXPECT_FALSE(w.Contains(1));
  EXPECT_TRUE(w.Contains(2));
  EXPECT_TRUE(w.Contains(3));
}

TEST(RecentIdWindowTest, ZeroCapacityActsAsOne) {
  RecentIdWindow w(0);
  EXPECT_TRUE(w.Insert(1));
  EXPECT_TRUE(w.Insert(2));
  EXPECT_FALSE(w.Contains(1));
  EXPECT_TRUE(w.Contains(2));
}

}  // namespace
}  // namespace stepflow
