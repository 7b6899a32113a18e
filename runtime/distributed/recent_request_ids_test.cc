#include "runtime/distributed/recent_request_ids.h"

#include "gtest/gtest.h"

namespace stepflow {
namespace {

TEST(RecentRequestIdsTest, RejectsARepeatNamingIdAndMethod) {
  RecentRequestIds ids;
  EXPECT_TRUE(ids.TrackUnique(42, "RunStep").ok());
  const absl::Status again = ids.TrackUnique(42, "RunStep");
  EXPECT_TRUE(absl::IsAborted(again)) << again;
  EXPECT_NE(again.message().find("RunStep"), absl::string_view::npos);
  EXPECT_NE(again.message().find("42"), absl::string_view::npos);
  EXPECT_TRUE(ids.TrackUnique(43, "RunStep").ok());
}

TEST(RecentRequestIdsTest, ZeroIsNeverTracked) {
  RecentRequestIds ids;
  EXPECT_TRUE(ids.TrackUnique(0, "RunGraph").ok());
  EXPECT_TRUE(ids.TrackUnique(0, "RunGraph").ok());
}

TEST(RecentRequestIdsTest, ForgetsTheOldestBeyondCapacity) {
  RecentRequestIds ids(/*capacity=*/3);
  for (int64_t id = 1; id <= 4; ++id) {
    ASSERT_TRUE(ids.TrackUnique(id, "RunGraph").ok());
  }
  // 1 was forgotten when 4 arrived; 2..4 are still remembered.
  EXPECT_TRUE(ids.TrackUnique(1, "RunGraph").ok());
  EXPECT_TRUE(absl::IsAborted(ids.TrackUnique(4, "RunGraph")));
  EXPECT_TRUE(absl::IsAborted(ids.TrackUnique(3, "RunGraph")));
}

}  // namespace
}  // namespace stepflow
