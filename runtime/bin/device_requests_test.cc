#include "runtime/bin/device_requests.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace {

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";

// Names as TensorFlow's training graphs have them (no ops matter here).
GraphDef TrainingLikeGraph() {
  GraphDef g;
  EXPECT_TRUE(
      ParseGraphDefFromText(
          R"pb(
            node { name: "w" op: "NoOp" }
            node { name: "w/Assign" op: "NoOp" }
            node { name: "weights" op: "NoOp" }
            node { name: "mul" op: "NoOp" device: "/cpu:0" }
            node { name: "train" op: "NoOp" }
            node { name: "train/learning_rate" op: "NoOp" }
            node { name: "train/update_w/ApplyGradientDescent" op: "NoOp" }
          )pb",
          &g)
          .ok());
  return g;
}

std::map<std::string, std::string> Devices(const GraphDef& g) {
  std::map<std::string, std::string> out;
  for (const NodeDef& n : g.node()) out[n.name()] = n.device();
  return out;
}

DeviceRequest Parse(const std::string& spec) {
  DeviceRequest r;
  absl::Status s = ParseDeviceRequest(spec, &r);
  EXPECT_TRUE(s.ok()) << spec << ": " << s;
  return r;
}

TEST(DeviceRequestsTest, ParsesAndCanonicalizesTheDevice) {
  DeviceRequest r = Parse("train/update_w=/job:worker/replica:0/task:1");
  EXPECT_EQ(r.prefix, "train/update_w");
  EXPECT_EQ(r.device, kTask1);
  r = Parse("w/=/cpu:1");
  EXPECT_EQ(r.prefix, "w");
  EXPECT_EQ(r.device, "/device:CPU:1");
}

TEST(DeviceRequestsTest, BadSpecsAreInvalidArgumentNamingTheSpec) {
  const std::string bad[] = {"w",         "=/cpu:0",   "w=",     "/=/cpu:0",
                             "w=/nope:3", "-w=/cpu:0", "w=cpu:0"};
  for (const std::string& spec : bad) {
    DeviceRequest r;
    absl::Status s = ParseDeviceRequest(spec, &r);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << spec << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), spec)) << s;
  }
}

TEST(DeviceRequestsTest, PrefixCoversTheNodeAndItsScopeOnly) {
  GraphDef g = TrainingLikeGraph();
  absl::Status s = ApplyDeviceRequests({Parse(std::string("w=") + kTask1)}, &g);
  ASSERT_TRUE(s.ok()) << s;
  std::map<std::string, std::string> d = Devices(g);
  EXPECT_EQ(d["w"], kTask1);
  EXPECT_EQ(d["w/Assign"], kTask1);
  EXPECT_EQ(d["weights"], "");    // Shares the letters, not the scope.
  EXPECT_EQ(d["mul"], "/cpu:0");  // Untouched.
  EXPECT_EQ(d["train/update_w/ApplyGradientDescent"], "");
}

TEST(DeviceRequestsTest, LongestPrefixWinsWhateverTheOrder) {
  const std::vector<std::vector<std::string>> orders = {
      {std::string("train=") + kTask0, std::string("train/update_w=") + kTask1},
      {std::string("train/update_w=") + kTask1, std::string("train=") + kTask0},
  };
  for (const auto& specs : orders) {
    std::vector<DeviceRequest> requests;
    for (const std::string& spec : specs) requests.push_back(Parse(spec));
    GraphDef g = TrainingLikeGraph();
    absl::Status s = ApplyDeviceRequests(requests, &g);
    ASSERT_TRUE(s.ok()) << s;
    std::map<std::string, std::string> d = Devices(g);
    EXPECT_EQ(d["train"], kTask0);
    EXPECT_EQ(d["train/learning_rate"], kTask0);
    EXPECT_EQ(d["train/update_w/ApplyGradientDescent"], kTask1);
    EXPECT_EQ(d["w"], "");
  }
}

TEST(DeviceRequestsTest, ARequestReplacesTheGraphsDevice) {
  GraphDef g = TrainingLikeGraph();
  ASSERT_TRUE(ApplyDeviceRequests({Parse("mul=/job:worker/task:1")}, &g).ok());
  EXPECT_EQ(Devices(g)["mul"], "/job:worker/task:1");
}

TEST(DeviceRequestsTest, PrefixMatchingNoNodeIsAnErrorAndChangesNothing) {
  GraphDef g = TrainingLikeGraph();
  const GraphDef before = g;
  absl::Status s =
      ApplyDeviceRequests({Parse("w=/cpu:1"), Parse("wieghts=/cpu:1")}, &g);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "wieghts")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "no node")) << s;
  EXPECT_EQ(g.SerializeAsString(), before.SerializeAsString());
  // "train/update" is not a scope of "train/update_w/...".
  s = ApplyDeviceRequests({Parse("train/update=/cpu:1")}, &g);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST(DeviceRequestsTest, SamePrefixTwiceIsAnError) {
  GraphDef g = TrainingLikeGraph();
  absl::Status s =
      ApplyDeviceRequests({Parse("w=/cpu:0"), Parse("w/=/cpu:1")}, &g);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "more than once")) << s;
  EXPECT_EQ(Devices(g)["w"], "");
}

TEST(DeviceRequestsTest, NoRequestsLeaveTheGraphAlone) {
  GraphDef g = TrainingLikeGraph();
  const GraphDef before = g;
  ASSERT_TRUE(ApplyDeviceRequests({}, &g).ok());
  EXPECT_EQ(g.SerializeAsString(), before.SerializeAsString());
}

}  // namespace
}  // namespace stepflow
