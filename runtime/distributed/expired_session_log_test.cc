#include "runtime/distributed/expired_session_log.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(ExpiredSessionLogTest, FindsWhatWasAddedWithItsFirstReason) {
  ExpiredSessionLog log(4);
  EXPECT_EQ(log.Find("a"), nullptr);
  log.Add("a", "lease of master 1 expired");
  log.Add("b", "superseded by incarnation 2");
  log.Add("a", "a later reason");
  ASSERT_NE(log.Find("a"), nullptr);
  EXPECT_EQ(std::string_view(*log.Find("a")), "lease of master 1 expired");
  ASSERT_NE(log.Find("b"), nullptr);
  EXPECT_EQ(std::string_view(*log.Find("b")), "superseded by incarnation 2");
  EXPECT_EQ(log.size(), 2u);
}

TEST(ExpiredSessionLogTest, ForgetsTheOldestPastCapacity) {
  ExpiredSessionLog log(3);
  // Long handles and reasons: beyond std::string's inline buffer.
  auto handle = [](int i) { return std::string(40, 'h') + std::to_string(i); };
  const std::string reason(100, 'r');
  for (int i = 0; i < 1000; ++i) log.Add(handle(i), reason);
  EXPECT_EQ(log.size(), 3u);
  EXPECT_EQ(log.Find(handle(996)), nullptr);
  for (int i = 997; i < 1000; ++i) {
    ASSERT_NE(log.Find(handle(i)), nullptr) << i;
    EXPECT_EQ(std::string_view(*log.Find(handle(i))), reason);
  }
}

TEST(ExpiredSessionLogTest, ZeroCapacityKeepsOne) {
  ExpiredSessionLog log(0);
  log.Add("a", "x");
  log.Add("b", "y");
  EXPECT_EQ(log.size(), 1u);
  EXPECT_EQ(log.Find("a"), nullptr);
  EXPECT_NE(log.Find("b"), nullptr);
}

}  // namespace
}  // namespace stepflow
