// The distributed runtime end to end: a master and two workers in one
// process over a LoopbackTransport, driven through DistributedSession.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/master.pb.h"
#include "runtime/common/session.h"
#include "runtime/distributed/testing/loopback_cluster.h"
#include "runtime/env/notification.h"
#include "runtime/env/transport.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/graph/graph_def_io.h"
#include "testing/linear_regression_data.h"
#include "testing/tf_testdata.h"
#include "testing/while_loop_graphs.h"

namespace stepflow {
namespace {

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";

// x, y float Placeholders; a = x * y on task 0, b = a + y on task 1,
// c = b * x on task 0 (so values cross tasks both ways).
GraphDef SplitArithmeticGraph(bool pin) {
  const std::string d0 = pin ? absl::StrCat(kTask0, "/device:CPU:0") : "";
  const std::string d1 = pin ? absl::StrCat(kTask1, "/device:CPU:1") : "";
  const std::string text = absl::StrCat(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a" op: "Mul" input: "x" input: "y" device: ")",
                                        d0, R"("
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b" op: "AddV2" input: "a" input: "y" device: ")",
                                        d1, R"("
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Mul" input: "b" input: "x" device: ")",
                                        d0, R"("
       attr { key: "T" value { type: DT_FLOAT } } }
)");
  GraphDef g;
  absl::Status s = ParseGraphDefFromText(text, &g);
  EXPECT_TRUE(s.ok()) << s;
  return g;
}

Tensor FloatVec(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
  return t;
}

Tensor IntScalar(int v) { return Tensor::Scalar<int32_t>(v); }

class DistributedSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status s = LoopbackCluster::Create(2, 2, &cluster_);
    ASSERT_TRUE(s.ok()) << s;
  }

  // Every worker free of sessions, graphs and steps.
  // Waits (up to 10 s of the cluster's clock) until no worker holds step
  // state: a failed step answers at once and is cleaned up behind its
  // answer, so its state may outlive the answer briefly.
  void WaitForNoWorkerSteps() {
    for (int waited_ms = 0; waited_ms < 10000; ++waited_ms) {
      size_t steps = 0;
      for (int i = 0; i < cluster_->num_workers(); ++i) {
        steps += cluster_->worker(i)->NumSteps();
      }
      if (steps == 0) return;
      Notification tick;
      cluster_->env()->scheduler->ScheduleAfter(1000000,
                                                [&tick] { tick.Notify(); });
      cluster_->env()->scheduler->WaitFor(&tick);
    }
  }

  void ExpectNoWorkerState() {
    for (int i = 0; i < cluster_->num_workers(); ++i) {
      EXPECT_EQ(cluster_->worker(i)->NumSessions(), 0u) << "worker " << i;
      EXPECT_EQ(cluster_->worker(i)->NumRegisteredGraphs(), 0u);
      EXPECT_EQ(cluster_->worker(i)->NumSteps(), 0u) << "worker " << i;
    }
    EXPECT_EQ(cluster_->master()->NumSessions(), 0u);
  }

  std::unique_ptr<LoopbackCluster> cluster_;
};

// The master's MakeCallable / RunCallable / ReleaseCallable (what
// TensorFlow's GrpcSession sends for Session::MakeCallable): a callable runs
// as a step of the session, its fetches in CallableOptions order.
TEST_F(DistributedSessionTest, MasterCallablesRunAsSteps) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  const Session::FeedList feeds = {{"x", FloatVec({1, 2})},
                                   {"y", FloatVec({3, 4})}};
  std::vector<Tensor> want;
  ASSERT_TRUE(session->Run(feeds, {"c", "a"}, {}, &want).ok());

  auto call = [&](const std::string& method,
                  const google::protobuf::Message& req,
                  google::protobuf::Message* resp) {
    Notification done;
    absl::Status status;
    cluster_->env()->transport->Call(LoopbackCluster::kMasterTask, method, req,
                                     resp, CallOptions(),
                                     [&](const absl::Status& s) {
                                       status = s;
                                       done.Notify();
                                     });
    cluster_->env()->scheduler->WaitFor(&done);
    return status;
  };
  MakeCallableRequest make;
  make.set_session_handle(session->handle());
  make.mutable_options()->add_feed("x");
  make.mutable_options()->add_feed("y");
  make.mutable_options()->add_fetch("c");
  make.mutable_options()->add_fetch("a");
  MakeCallableResponse made;
  ASSERT_TRUE(call("MasterService/MakeCallable", make, &made).ok());

  RunCallableRequest run;
  run.set_session_handle(session->handle());
  run.set_handle(made.handle());
  TensorToProto(feeds[0].second, run.add_feed());
  TensorToProto(feeds[1].second, run.add_feed());
  RunCallableResponse ran;
  absl::Status s = call("MasterService/RunCallable", run, &ran);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(ran.fetch_size(), 2);
  for (int i = 0; i < 2; ++i) {
    Tensor got;
    ASSERT_TRUE(TensorFromProto(ran.fetch(i), &got).ok());
    EXPECT_TRUE(TensorsEqual(got, want[i])) << "fetch " << i;
  }

  RunCallableRequest one_feed = run;
  one_feed.mutable_feed()->RemoveLast();
  RunCallableResponse unused;
  s = call("MasterService/RunCallable", one_feed, &unused);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;

  ReleaseCallableRequest release;
  release.set_session_handle(session->handle());
  release.set_handle(made.handle());
  ReleaseCallableResponse released;
  ASSERT_TRUE(call("MasterService/ReleaseCallable", release, &released).ok());
  s = call("MasterService/RunCallable", run, &unused);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST_F(DistributedSessionTest, SplitGraphMatchesDirectSession) {
  const Session::FeedList feeds = {{"x", FloatVec({1, 2, 3})},
                                   {"y", FloatVec({4, 5, 6})}};
  std::vector<Tensor> want;
  {
    SessionOptions opts;
    opts.env = cluster_->env();
    std::unique_ptr<Session> local;
    ASSERT_TRUE(NewSession(opts, &local).ok());
    ASSERT_TRUE(local->Create(SplitArithmeticGraph(false)).ok());
    absl::Status s = local->Run(feeds, {"c", "a", "b:0"}, {}, &want);
    ASSERT_TRUE(s.ok()) << s;
  }
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  RunOptions ro;
  ro.set_output_partition_graphs(true);
  RunMetadata meta;
  std::vector<Tensor> got;
  absl::Status s = session->Run(ro, feeds, {"c", "a", "b:0"}, {}, &got, &meta);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(TensorsEqual(got[i], want[i])) << "fetch " << i;
  }
  EXPECT_FLOAT_EQ(got[0].flat<float>()(2), (3 * 6 + 6) * 3);
  // One partition per task, joined by Send/Recv.
  ASSERT_EQ(meta.partition_graphs_size(), 2);
  std::map<std::string, std::string> placed;
  for (const GraphDef& p : meta.partition_graphs()) {
    for (const NodeDef& n : p.node()) placed[n.name()] = n.device();
  }
  EXPECT_TRUE(absl::StrContains(placed["b"], "task:1")) << placed["b"];
  EXPECT_TRUE(absl::StrContains(placed["a"], "task:0")) << placed["a"];

  // A second Run reuses the registered graphs; a different signature
  // registers another set.
  s = session->Run(feeds, {"c"}, {}, &got);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(cluster_->worker(1)->NumRegisteredGraphs(), 2u);
  s = session->Run(feeds, {"c", "a", "b"}, {}, &got);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(cluster_->worker(1)->NumRegisteredGraphs(), 2u);
  // No step state is left behind on any worker.
  EXPECT_EQ(cluster_->worker(0)->NumSteps(), 0u);
  EXPECT_EQ(cluster_->worker(1)->NumSteps(), 0u);

  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(devices.size(), 4u);

  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
  s = session->Run(feeds, {"c"}, {}, &got);
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
}

TEST_F(DistributedSessionTest, ErrorsKeepTheirCodes) {
  auto session = cluster_->NewSession();
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"c"}, {}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  EXPECT_TRUE(
      absl::IsAlreadyExists(session->Create(SplitArithmeticGraph(true))));
  s = session->Run({{"x", FloatVec({1})}}, {"nope"}, {}, &out);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  s = session->Run({{"x", IntScalar(1)}, {"y", FloatVec({1})}}, {"c"}, {},
                   &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  // A missing feed fails on the worker (the Placeholder runs) and names it.
  s = session->Run({{"x", FloatVec({1})}}, {"c"}, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "y")) << s;
  // Extend then run the new node.
  GraphDef more;
  ASSERT_TRUE(ParseGraphDefFromText(R"(
node { name: "d" op: "Neg" input: "c" attr { key: "T" value { type: DT_FLOAT } } })",
                                    &more)
                  .ok());
  ASSERT_TRUE(session->Extend(more).ok());
  s = session->Run({{"x", FloatVec({1})}, {"y", FloatVec({2})}}, {"d"}, {},
                   &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), -4.0f);
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, WhileLoopSplitAcrossTasks) {
  const std::string control = absl::StrCat(kTask0, "/device:CPU:0");
  const std::string body = absl::StrCat(kTask1, "/device:CPU:0");
  auto session = cluster_->NewSession();
  ASSERT_TRUE(
      session->Create(AccumulateLoopGraph(SplitBodyFromControl(control, body)))
          .ok());
  Tensor x(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) x.flat<float>()(i) = static_cast<float>(i + 1);
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"n", IntScalar(5)}, {"x", x}},
                   {"while/Exit", "while/Exit_1", "while/Exit_2"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].flat<int32_t>()(0), 5);
  for (int i = 0; i < 6; ++i) {
    EXPECT_FLOAT_EQ(out[1].flat<float>()(i), (i + 1) * 10.0f) << i;
  }
  ASSERT_EQ(out[2].NumElements(), 5);
  for (int i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(out[2].flat<float>()(i), i);

  // The nested loop too, with the inner body on the other task.
  auto nested = cluster_->NewSession();
  ASSERT_TRUE(
      nested->Create(NestedLoopGraph(SplitBodyFromControl(control, body)))
          .ok());
  s = nested->Run({{"n", IntScalar(3)}, {"m", IntScalar(4)}, {"x", x}},
                  {"while/Exit", "while/Exit_1"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].flat<int32_t>()(0), 3);
  EXPECT_FLOAT_EQ(out[1].flat<float>()(5), 6.0f * 12);
  ASSERT_TRUE(session->Close().ok());
  ASSERT_TRUE(nested->Close().ok());
  ExpectNoWorkerState();
}

// The master lowers function calls before placing: a call on task 1 whose
// body pins one node to task 0 runs across both tasks.
TEST_F(DistributedSessionTest, FunctionCallBodySpansTasks) {
  const std::string text = absl::StrCat(R"(
library { function {
  signature { name: "MulAdd"
              input_arg { name: "x" type: DT_FLOAT }
              input_arg { name: "y" type: DT_FLOAT }
              output_arg { name: "z" type: DT_FLOAT } }
  node_def { name: "mul" op: "Mul" input: "x" input: "y" device: ")",
                                        kTask0, R"(/device:CPU:0"
             attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "add" op: "AddV2" input: "mul:z:0" input: "y"
             attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "z" value: "add:z:0" } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x" input: "y" device: ")",
                                        kTask1, R"(/device:CPU:1"
       attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "f" value { func { name: "MulAdd" } } } }
)");
  GraphDef g;
  absl::Status s = ParseGraphDefFromText(text, &g);
  ASSERT_TRUE(s.ok()) << s;
  auto session = cluster_->NewSession();
  s = session->Create(g);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  RunOptions ro;
  ro.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata md;
  s = session->Run(ro, {{"x", FloatVec({1, 2})}, {"y", FloatVec({3, 4})}},
                   {"call:0"}, {}, &out, &md);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 6.0f);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(1), 12.0f);
  std::set<std::string> partitions_with_body;
  for (const GraphDef& p : md.partition_graphs()) {
    for (const NodeDef& n : p.node()) {
      if (n.name() == "call/mul" || n.name() == "call/add") {
        partitions_with_body.insert(n.name());
      }
    }
  }
  if (md.partition_graphs_size() > 0) {
    EXPECT_EQ(partitions_with_body.size(), 2u);
  }
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, StoppedWorkerFailsUnavailableNamingTheTask) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  const Session::FeedList feeds = {{"x", FloatVec({1})}, {"y", FloatVec({2})}};
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(feeds, {"c"}, {}, &out).ok());
  cluster_->StopWorker(1);
  absl::Status s = session->Run(feeds, {"c"}, {}, &out);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kTask1)) << s;
  // A new signature fails the same way while registering.
  s = session->Run(feeds, {"b"}, {}, &out);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kTask1)) << s;
  // Failed steps answer before their cleanup; Close waits for it, and then
  // worker 0 holds no step state for them.
  session->Close().IgnoreError();
  EXPECT_EQ(cluster_->worker(0)->NumSteps(), 0u);
  EXPECT_EQ(cluster_->worker(0)->NumSessions(), 0u);
}

TEST_F(DistributedSessionTest, RestartedWorkerIsAbortedThenReRegistered) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  const Session::FeedList feeds = {{"x", FloatVec({1})}, {"y", FloatVec({2})}};
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(feeds, {"c"}, {}, &out).ok());
  const uint64_t before = cluster_->worker(1)->incarnation();
  ASSERT_TRUE(cluster_->RestartWorker(1).ok());
  ASSERT_NE(cluster_->worker(1)->incarnation(), before);
  EXPECT_EQ(cluster_->worker(1)->NumSessions(), 0u);
  // The step that meets the new incarnation fails Aborted, naming the task.
  absl::Status s = session->Run(feeds, {"c"}, {}, &out);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kTask1)) << s;
  // The master then re-creates the worker session and re-registers the
  // graphs for the new incarnation: the next step succeeds.
  s = session->Run(feeds, {"c"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), (1 * 2 + 2) * 1);
  EXPECT_EQ(cluster_->worker(1)->NumSessions(), 1u);
  EXPECT_EQ(cluster_->worker(1)->NumRegisteredGraphs(), 1u);
  // Worker 0 runs client feeds and fetches: restarting it changes the
  // client device's incarnation too.
  ASSERT_TRUE(cluster_->RestartWorker(0).ok());
  EXPECT_FALSE(session->Run(feeds, {"c"}, {}, &out).ok());
  s = session->Run(feeds, {"c", "a"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[1].flat<float>()(0), 2);
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, WorkerDownDuringRefreshFailsUntilItIsBack) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  const Session::FeedList feeds = {{"x", FloatVec({3})}, {"y", FloatVec({1})}};
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(feeds, {"c"}, {}, &out).ok());
  cluster_->StopWorker(1);
  EXPECT_TRUE(absl::IsUnavailable(session->Run(feeds, {"c"}, {}, &out)));
  // Still down when the session checks its workers: Unavailable again.
  absl::Status s = session->Run(feeds, {"c"}, {}, &out);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kTask1)) << s;
  ASSERT_TRUE(cluster_->RestartWorker(1).ok());
  s = session->Run(feeds, {"c"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), (3 * 1 + 1) * 3);
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, PartialRunFeedsAndFetchesAcrossTasksInParts) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  // a = x * y on task 0, b = a + y on task 1, c = b * x on task 0.
  std::string handle;
  absl::Status s = session->PRunSetup({"x", "y"}, {"a", "b", "c"}, {}, &handle);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  // Feed both, fetch a (task 0) first; then b (task 1); then c.
  s = session->PRun(handle, {{"x", FloatVec({2})}, {"y", FloatVec({3})}}, {"a"},
                    &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 6);
  s = session->PRun(handle, {}, {"b:0"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 9);
  // Steps of the partial run stay on the workers until its last call.
  EXPECT_GT(cluster_->worker(0)->NumSteps() + cluster_->worker(1)->NumSteps(),
            0u);
  // Fetching again, or fetching what the setup did not name, is rejected.
  s = session->PRun(handle, {}, {"a"}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  s = session->PRun(handle, {{"x", FloatVec({1})}}, {}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  s = session->PRun(handle, {}, {"c"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 18);
  // The last call ended the step everywhere; the handle is gone.
  EXPECT_EQ(cluster_->worker(0)->NumSteps(), 0u);
  EXPECT_EQ(cluster_->worker(1)->NumSteps(), 0u);
  s = session->PRun(handle, {}, {"c"}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, PartialRunFeedingInTwoCalls) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  std::string handle;
  ASSERT_TRUE(session->PRunSetup({"x", "y"}, {"c"}, {}, &handle).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->PRun(handle, {{"y", FloatVec({1, 2})}}, {}, &out).ok());
  absl::Status s =
      session->PRun(handle, {{"x", FloatVec({3, 4})}}, {"c"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), (3 * 1 + 1) * 3);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(1), (4 * 2 + 2) * 4);
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, CloseEndsAPartialRunBetweenCalls) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  std::string handle;
  ASSERT_TRUE(session->PRunSetup({"x", "y"}, {"c"}, {}, &handle).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->PRun(handle, {{"y", FloatVec({1})}}, {}, &out).ok());
  ASSERT_TRUE(session->Close().ok());
  // The half-fed step was cancelled and cleaned up on both tasks.
  ExpectNoWorkerState();
  EXPECT_FALSE(session->PRun(handle, {{"x", FloatVec({1})}}, {"c"}, &out).ok());
}

TEST_F(DistributedSessionTest, PartialRunSetupErrors) {
  auto session = cluster_->NewSession();
  std::string handle;
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Create(SplitArithmeticGraph(true)).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(
      session->PRun("no such handle", {}, {"c"}, &out)));
  absl::Status s = session->PRunSetup({"x"}, {"nope"}, {}, &handle);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "nope")) << s;
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

// n = a huge loop count: the step runs until cancelled.
GraphDef LongLoopOnBothTasks() {
  return CounterLoopGraph(
      SplitBodyFromControl(absl::StrCat(kTask0, "/device:CPU:0"),
                           absl::StrCat(kTask1, "/device:CPU:0")));
}

TEST_F(DistributedSessionTest, TimeoutIsDeadlineExceeded) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(LongLoopOnBothTasks()).ok());
  RunOptions ro;
  ro.set_timeout_in_ms(200);
  std::vector<Tensor> out;
  absl::Status s = session->Run(ro, {{"n", IntScalar(1 << 30)}}, {"while/Exit"},
                                {}, &out, nullptr);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  // The session still works afterwards.
  s = session->Run({{"n", IntScalar(3)}}, {"while/Exit"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].flat<int32_t>()(0), 3);
  // The timed-out step's cleanup may land after the next step's answer.
  WaitForNoWorkerSteps();
  EXPECT_EQ(cluster_->worker(0)->NumSteps(), 0u);
  EXPECT_EQ(cluster_->worker(1)->NumSteps(), 0u);
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

TEST_F(DistributedSessionTest, OperationTimeoutFromConfig) {
  ConfigProto config;
  config.set_operation_timeout_in_ms(200);
  auto session = cluster_->NewSession(config);
  ASSERT_TRUE(session->Create(LongLoopOnBothTasks()).ok());
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"n", IntScalar(1 << 30)}}, {"while/Exit"}, {}, &out);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  ASSERT_TRUE(session->Close().ok());
}

TEST_F(DistributedSessionTest, CloseCancelsAnInFlightStep) {
  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(LongLoopOnBothTasks()).ok());
  absl::Status run_status;
  std::thread runner([&] {
    std::vector<Tensor> out;
    run_status =
        session->Run({{"n", IntScalar(1 << 30)}}, {"while/Exit"}, {}, &out);
  });
  // Wait until the step runs on the master.
  Notification started;
  for (int i = 0; i < 2000; ++i) {
    auto ms = cluster_->master()->FindSessionForTest(session->handle());
    if (ms != nullptr && ms->NumRunningSteps() > 0 &&
        cluster_->worker(1)->NumSteps() > 0) {
      break;
    }
    Notification tick;
    cluster_->env()->scheduler->ScheduleAfter(1000000, [&] { tick.Notify(); });
    cluster_->env()->scheduler->WaitFor(&tick);
  }
  EXPECT_GT(cluster_->worker(1)->NumSteps(), 0u);
  ASSERT_TRUE(session->Close().ok());
  runner.join();
  EXPECT_TRUE(absl::IsCancelled(run_status)) << run_status;
  ExpectNoWorkerState();
}

bool IsVariable(const NodeDef& n) {
  return n.op() == "Variable" || n.op() == "VariableV2";
}

bool ConsumesRef(const NodeDef& n) {
  return n.op() == "Assign" || n.op() == "ApplyGradientDescent";
}

TEST_F(DistributedSessionTest, TrainsTensorFlowLinearRegression) {
  std::optional<std::string> path =
      TfTestdataFile("linear_regression_train.pb");
  if (!path.has_value()) {
    GTEST_SKIP() << "TensorFlow testdata 'linear_regression_train.pb' not "
                    "found (put shared/testdata/tf beside the checkout)";
  }
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDefFromFile(*path, &graph).ok());
  for (NodeDef& n : *graph.mutable_node()) {
    if (IsVariable(n)) {
      n.set_device(kTask1);
    } else if (!ConsumesRef(n)) {
      n.set_device(kTask0);
    }
  }
  const Session::FeedList data = graph_testing::LinearRegressionFeeds();

  auto session = cluster_->NewSession();
  ASSERT_TRUE(session->Create(graph).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {}, {"init"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  RunOptions ro;
  ro.set_output_partition_graphs(true);
  RunMetadata meta;
  for (int step = 0; step < 201 && s.ok(); ++step) {
    s = session->Run(ro, data, {}, {"train"}, &out, &meta);
    ASSERT_TRUE(s.ok()) << "step " << step << ": " << s;
  }
  s = session->Run({}, {"w", "b"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_NEAR(out[0].flat<float>()(0), 0.1f, 1e-3);
  EXPECT_NEAR(out[1].flat<float>()(0), 0.3f, 1e-3);
  std::map<std::string, std::string> placed;
  for (const GraphDef& p : meta.partition_graphs()) {
    for (const NodeDef& n : p.node()) placed[n.name()] = n.device();
  }
  EXPECT_TRUE(absl::StrContains(placed["w"], "task:1")) << placed["w"];
  EXPECT_TRUE(absl::StrContains(placed["train/update_w/ApplyGradientDescent"],
                                "task:1"));
  EXPECT_TRUE(absl::StrContains(placed["mul"], "task:0")) << placed["mul"];
  // Variables live on worker 1 until Reset.
  ASSERT_TRUE(session->Reset({}).ok());
  s = session->Run({}, {"w"}, {}, &out);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  ASSERT_TRUE(session->Close().ok());
  ExpectNoWorkerState();
}

}  // namespace
}  // namespace stepflow
