#include "runtime/client/timeline.h"

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

// Parses `json` as JSON; returns the "traceEvents" list.
google::protobuf::ListValue ParseEvents(const std::string& json) {
  google::protobuf::Struct root;
  auto s = google::protobuf::util::JsonStringToMessage(json, &root);
  EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << json;
  return root.fields().at("traceEvents").list_value();
}

int CountPhase(const google::protobuf::ListValue& events,
               const std::string& ph) {
  int n = 0;
  for (const auto& e : events.values()) {
    if (e.struct_value().fields().at("ph").string_value() == ph) ++n;
  }
  return n;
}

NodeExecStats Kernel(const std::string& label, int64_t start, int64_t dur) {
  NodeExecStats n;
  n.set_node_name(label.substr(0, label.find(' ')));
  n.set_all_start_nanos(start);
  n.set_all_end_rel_nanos(dur);
  n.set_timeline_label(label);
  return n;
}

TEST(TimelineTest, PairsTransfersInTimeOrderAndPacksOverlaps) {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device(kCpu0);
  const std::string bracket =
      absl::StrCat(" [tensor=edge_1_x from=", kCpu0, " to=", kCpu1, "]");
  // Two iterations of one transfer, plus two overlapping kernels.
  *d0->add_node_stats() = Kernel("s = _Send(x)" + bracket, 5000, 1000);
  *d0->add_node_stats() = Kernel("s = _Send(x)" + bracket, 1000, 1000);
  *d0->add_node_stats() = Kernel("a = AddV2(x, y)", 1500, 3000);
  DeviceStepStats* d1 = stats.add_dev_stats();
  d1->set_device(kCpu1);
  *d1->add_node_stats() = Kernel("r = _Recv()" + bracket, 2500, 100);
  *d1->add_node_stats() = Kernel("r = _Recv()" + bracket, 7000, 100);
  NodeExecStats* m = d1->add_node_stats();
  *m = Kernel("m = Mul(r, r)", 8000, 10);
  NodeOutput* out = m->add_output();
  out->mutable_tensor_description()->set_dtype(DT_FLOAT);
  out->mutable_tensor_description()->mutable_shape()->add_dim()->set_size(2);
  out->mutable_tensor_description()->mutable_shape()->add_dim()->set_size(3);

  std::string json;
  TimelineSummary sum;
  ASSERT_TRUE(StepStatsToChromeTrace(stats, "t", &json, &sum).ok());
  EXPECT_EQ(sum.lanes, 2);
  EXPECT_EQ(sum.kernels, 6);
  EXPECT_EQ(sum.flows, 2);
  EXPECT_EQ(sum.unpaired_transfers, 0);
  const auto events = ParseEvents(json);
  EXPECT_EQ(CountPhase(events, "X"), 6);
  EXPECT_EQ(CountPhase(events, "s"), 2);
  EXPECT_EQ(CountPhase(events, "f"), 2);
  // Flow 1 starts at the earlier Send (ts 0) and ends at the earlier Recv.
  EXPECT_TRUE(absl::StrContains(json, R"("id":1,"pid":1,"tid":0,"ts":0.000})"))
      << json;
  EXPECT_TRUE(absl::StrContains(json, R"("id":1,"pid":2,"tid":0,"ts":1.500})"))
      << json;
  // AddV2 overlaps the first Send: it goes to a second row.
  EXPECT_TRUE(absl::StrContains(json, R"("name":"AddV2","pid":1,"tid":1)"))
      << json;
  EXPECT_TRUE(absl::StrContains(json, R"("outputs":"float[2,3]")")) << json;
  EXPECT_TRUE(absl::StrContains(json, kCpu1));
}

TEST(TimelineTest, CountsUnpairedTransfers) {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device(kCpu0);
  *d0->add_node_stats() = Kernel(
      absl::StrCat("s = _Send(x) [tensor=e from=", kCpu0, " to=", kCpu1, "]"),
      0, 10);
  // A fetch's Send goes to the client: not a missing partner.
  *d0->add_node_stats() =
      Kernel(absl::StrCat("f = _Send(x) [tensor=x:0 from=", kCpu0,
                          " to=", kCpu0, " client]"),
             20, 10);
  std::string json;
  TimelineSummary sum;
  ASSERT_TRUE(StepStatsToChromeTrace(stats, "", &json, &sum).ok());
  EXPECT_EQ(sum.flows, 0);
  EXPECT_EQ(sum.unpaired_transfers, 1);
  EXPECT_EQ(sum.kernels, 2);
}

TEST(TimelineTest, RejectsNegativeDuration) {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device(kCpu0);
  *d0->add_node_stats() = Kernel("a = NoOp()", 100, -5);
  std::string json;
  absl::Status s = StepStatsToChromeTrace(stats, "", &json, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "'a'")) << s;
}

TEST(TimelineTest, EscapesJson) {
  EXPECT_EQ(JsonEscape("a\"b\\c\nd\x01"), "a\\\"b\\\\c\\nd\\u0001");
}

// A real two-device step: every cross-device edge shows up as one arrow.
TEST(TimelineTest, TwoDeviceStepFromDirectSession) {
  // x on CPU:0, y = x*x on CPU:1, z = y + x on CPU:0.
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDefFromFile("examples/two_device.pbtxt", &graph).ok());
  auto env = RealEnv::Create(2);
  SessionOptions opts;
  opts.env = env->env();
  (*opts.config.mutable_device_count())["CPU"] = 2;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(opts, &session).ok());
  ASSERT_TRUE(session->Create(graph).ok());
  RunOptions run_options;
  run_options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  absl::Status s =
      session->Run(run_options, {}, {"z"}, {}, &outputs, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(session->Close().ok());

  std::string json;
  TimelineSummary sum;
  ASSERT_TRUE(
      StepStatsToChromeTrace(metadata.step_stats(), "two", &json, &sum).ok());
  EXPECT_EQ(sum.lanes, 2);
  EXPECT_EQ(sum.flows, 2) << json;  // x -> CPU:1, y -> CPU:0.
  EXPECT_EQ(sum.unpaired_transfers, 0);
  const auto events = ParseEvents(json);
  EXPECT_EQ(CountPhase(events, "s"), 2);
  EXPECT_TRUE(absl::StrContains(json, R"("name":"Mul")")) << json;
}

}  // namespace
}  // namespace stepflow
