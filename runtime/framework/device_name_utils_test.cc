#include "runtime/framework/device_name_utils.h"

#include <gtest/gtest.h>

namespace stepflow {
namespace {

using PN = DeviceNameUtils::ParsedName;

PN Parse(absl::string_view s) {
  PN p;
  EXPECT_TRUE(DeviceNameUtils::ParseFullName(s, &p)) << s;
  return p;
}

TEST(DeviceNameUtilsTest, FullName) {
  PN p = Parse("/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_TRUE(p.has_job && p.has_replica && p.has_task && p.has_type &&
              p.has_id);
  EXPECT_EQ(p.job, "localhost");
  EXPECT_EQ(p.type, "CPU");
  EXPECT_EQ(p.id, 0);
  EXPECT_TRUE(DeviceNameUtils::IsFullySpecified(p));
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(p),
            "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(DeviceNameUtils::FullName("w", 1, 2, "GPU", 3),
            "/job:w/replica:1/task:2/device:GPU:3");
}

TEST(DeviceNameUtilsTest, ShortFormsParseEqual) {
  const PN expected = Parse("/device:CPU:0");
  EXPECT_EQ(Parse("/cpu:0"), expected);
  EXPECT_EQ(Parse("/CPU:0"), expected);
  EXPECT_EQ(Parse("/gpu:1"), Parse("/device:GPU:1"));
  EXPECT_EQ(Parse("/job:localhost/cpu:0"),
            Parse("/job:localhost/device:CPU:0"));
  PN full = Parse("/job:localhost/replica:0/task:0/cpu:3");
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(full),
            "/job:localhost/replica:0/task:0/device:CPU:3");
}

TEST(DeviceNameUtilsTest, PartialAndWildcards) {
  PN p = Parse("/job:w/task:1");
  EXPECT_TRUE(p.has_job && p.has_task);
  EXPECT_FALSE(p.has_replica || p.has_type || p.has_id);
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(p), "/job:w/task:1");
  PN any = Parse("/device:CPU:*");
  EXPECT_TRUE(any.has_type);
  EXPECT_FALSE(any.has_id);
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(any), "/device:CPU:*");
  EXPECT_EQ(Parse(""), PN());
  EXPECT_EQ(Parse("/job:*/replica:*"), PN());
}

TEST(DeviceNameUtilsTest, RejectsGarbage) {
  PN p;
  for (const char* bad :
       {"cpu:0", "/", "//cpu:0", "/job:", "/job:Bad", "/replica:x", "/task:-1",
        "/device:", "/device:CPU:x", "/device:CPU:0:1", "/foo:0",
        "/cpu:0/gpu:0", "/job:a/job:b", "/cpu:", "/device:9PU:0", "/job:a/",
        "garbage", "/task:1 "}) {
    if (std::string(bad) == "/") continue;  // The root alone is empty.
    EXPECT_FALSE(DeviceNameUtils::ParseFullName(bad, &p)) << bad;
  }
}

TEST(DeviceNameUtilsTest, Specification) {
  PN full = Parse("/job:a/replica:0/task:1/device:CPU:2");
  EXPECT_TRUE(DeviceNameUtils::IsSpecification(Parse("/job:a"), full));
  EXPECT_TRUE(DeviceNameUtils::IsSpecification(Parse("/device:CPU:*"), full));
  EXPECT_FALSE(DeviceNameUtils::IsSpecification(Parse("/cpu:1"), full));
  EXPECT_FALSE(DeviceNameUtils::IsSpecification(Parse("/job:b"), full));
  EXPECT_TRUE(DeviceNameUtils::IsCompleteSpecification(Parse("/task:1"), full));
  EXPECT_FALSE(DeviceNameUtils::IsCompleteSpecification(
      Parse("/task:1"), Parse("/job:a/task:1")));
}

TEST(DeviceNameUtilsTest, Merge) {
  PN target = Parse("/job:a/device:CPU:0");
  ASSERT_TRUE(
      DeviceNameUtils::MergeDevNames(&target, Parse("/replica:0/task:2")).ok());
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(target),
            "/job:a/replica:0/task:2/device:CPU:0");
  absl::Status s = DeviceNameUtils::MergeDevNames(&target, Parse("/job:b"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("/job:b"), std::string::npos) << s;
  EXPECT_NE(s.message().find("/job:a"), std::string::npos) << s;
  s = DeviceNameUtils::MergeDevNames(&target, Parse("/gpu:0"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      DeviceNameUtils::MergeDevNames(&target, Parse("/gpu:0"), true).ok());
  EXPECT_EQ(target.type, "CPU");
  ASSERT_TRUE(
      DeviceNameUtils::MergeDevNames(&target, Parse("/cpu:3"), true).ok());
  EXPECT_EQ(target.id, 0);
}

TEST(DeviceNameUtilsTest, AddressSpaceAndNames) {
  EXPECT_TRUE(DeviceNameUtils::IsSameAddressSpace(
      "/job:a/replica:0/task:1/device:CPU:0",
      "/job:a/replica:0/task:1/device:GPU:3"));
  EXPECT_FALSE(DeviceNameUtils::IsSameAddressSpace(
      "/job:a/replica:0/task:1/device:CPU:0",
      "/job:a/replica:0/task:2/device:CPU:0"));
  EXPECT_FALSE(DeviceNameUtils::IsSameAddressSpace("/cpu:0", "/cpu:0"));
  EXPECT_FALSE(DeviceNameUtils::IsSameAddressSpace("bad", "bad"));
  EXPECT_EQ(DeviceNameUtils::TaskName(Parse("/job:a/replica:0/task:1/cpu:0")),
            "/job:a/replica:0/task:1");
  EXPECT_EQ(DeviceNameUtils::LocalName("GPU", 2), "/device:GPU:2");
}

TEST(DeviceNameUtilsTest, Canonicalize) {
  std::string out;
  const char* base = "/job:localhost/replica:0/task:0/device:CPU:0";
  ASSERT_TRUE(
      DeviceNameUtils::CanonicalizeDeviceName("/cpu:1", base, &out).ok());
  EXPECT_EQ(out, "/job:localhost/replica:0/task:0/device:CPU:1");
  ASSERT_TRUE(DeviceNameUtils::CanonicalizeDeviceName(
                  "/job:w/replica:2/task:3/gpu:0", base, &out)
                  .ok());
  EXPECT_EQ(out, "/job:w/replica:2/task:3/device:GPU:0");
  absl::Status s =
      DeviceNameUtils::CanonicalizeDeviceName("/nope:0", base, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("/nope:0"), std::string::npos);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace stepflow
