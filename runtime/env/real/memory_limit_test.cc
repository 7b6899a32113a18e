#include "runtime/env/real/memory_limit.h"

#include "gtest/gtest.h"

namespace stepflow {
namespace {

TEST(MemoryLimitTest, ParsesBytesAndBinarySuffixes) {
  int64_t b = -1;
  ASSERT_TRUE(ParseMemoryLimit("1073741824", &b).ok());
  EXPECT_EQ(b, int64_t{1} << 30);
  ASSERT_TRUE(ParseMemoryLimit("4G", &b).ok());
  EXPECT_EQ(b, int64_t{4} << 30);
  ASSERT_TRUE(ParseMemoryLimit("512m", &b).ok());
  EXPECT_EQ(b, int64_t{512} << 20);
  ASSERT_TRUE(ParseMemoryLimit("1.5K", &b).ok());
  EXPECT_EQ(b, 1536);
  ASSERT_TRUE(ParseMemoryLimit("0", &b).ok());
  EXPECT_EQ(b, 0);
}

TEST(MemoryLimitTest, RefusesNonsense) {
  int64_t b = 0;
  for (const char* bad : {"", "G", "-1", "lots", "1e30", "nan", "4X"}) {
    absl::Status s = ParseMemoryLimit(bad, &b);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << bad;
    EXPECT_NE(s.message().find("--memory_limit"), std::string::npos);
  }
}

TEST(MemoryLimitTest, DefaultIsAFractionOfWhatTheMachineHas) {
  const int64_t physical = PhysicalMemoryBytes();
  ASSERT_GT(physical, 0);
  const int64_t limit = DefaultProcessMemoryLimit();
  EXPECT_GT(limit, 0);
  EXPECT_LT(limit, physical);
}

}  // namespace
}  // namespace stepflow
