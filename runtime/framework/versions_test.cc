#include "runtime/framework/versions.h"

#include <string>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(VersionsTest, AcceptsCurrentAndOld) {
  VersionDef v;
  EXPECT_TRUE(CheckGraphDefVersions(v).ok());
  v.set_producer(kGraphDefVersion);
  v.set_min_consumer(kGraphDefVersion);
  v.add_bad_consumers(kGraphDefVersion - 1);
  EXPECT_TRUE(CheckGraphDefVersions(v).ok());
}

TEST(VersionsTest, RejectsOutOfRange) {
  VersionDef v;
  v.set_producer(-1);
  absl::Status s = CheckGraphDefVersions(v);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("producer version -1"), std::string::npos) << s;

  v.set_producer(5);
  v.set_min_consumer(kGraphDefVersion + 1);
  s = CheckGraphDefVersions(v);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(std::to_string(kGraphDefVersion + 1)),
            std::string::npos)
      << s;

  v.set_min_consumer(0);
  v.add_bad_consumers(kGraphDefVersion);
  s = CheckGraphDefVersions(v);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("disallows consumer version"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace stepflow
