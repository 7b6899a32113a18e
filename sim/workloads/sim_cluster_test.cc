#include "sim/workloads/sim_cluster.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace {

constexpr int64_t kSecond = 1000 * 1000 * 1000;

// x (fed) on worker 0, y = x * x on worker 1, z = y + x on worker 0.
GraphDef TwoTaskGraph() {
  GraphDef g;
  absl::Status s = ParseGraphDefFromText(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       device: "/job:worker/replica:0/task:0/device:CPU:0" }
node { name: "y" op: "Mul" input: "x" input: "x"
       attr { key: "T" value { type: DT_FLOAT } }
       device: "/job:worker/replica:0/task:1/device:CPU:0" }
node { name: "z" op: "AddV2" input: "y" input: "x"
       attr { key: "T" value { type: DT_FLOAT } }
       device: "/job:worker/replica:0/task:0/device:CPU:0" }
)",
                                         &g);
  EXPECT_TRUE(s.ok()) << s;
  return g;
}

class SimClusterTest : public ::testing::Test {
 protected:
  SimClusterTest() : sim_(11) {}
  void Start(const SimClusterOptions& o) {
    ASSERT_TRUE(SimCluster::Create(&sim_, o, &cluster_).ok());
  }
  absl::Status RunZ(Session* s, float x, float* z) {
    std::vector<Tensor> out;
    absl::Status st =
        s->Run({{"x", Tensor::Scalar<float>(x)}}, {"z"}, {}, &out);
    if (st.ok()) *z = out[0].flat<float>()(0);
    return st;
  }
  SimEnv sim_;
  std::unique_ptr<SimCluster> cluster_;
};

TEST_F(SimClusterTest, RunsASplitGraphOverTheSimulatedNetwork) {
  Start(SimClusterOptions());
  auto session = cluster_->NewSession(ConfigProto());
  ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
  float z = 0;
  ASSERT_TRUE(RunZ(session.get(), 3, &z).ok());
  EXPECT_EQ(z, 12);
  EXPECT_GT(cluster_->network()->stats().calls, 6);
  ASSERT_TRUE(session->Close().ok());
  sim_.loop.RunUntilIdle();
  EXPECT_EQ(cluster_->worker(1)->NumSessions(), 0u);
}

TEST_F(SimClusterTest, CrashedWorkerFailsStepsUntilRestartedThenReRegisters) {
  Start(SimClusterOptions());
  ConfigProto config;
  config.set_operation_timeout_in_ms(500);
  auto session = cluster_->NewSession(config);
  ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
  float z = 0;
  ASSERT_TRUE(RunZ(session.get(), 1, &z).ok());
  const uint64_t before = cluster_->worker(1)->incarnation();
  cluster_->CrashWorker(1);
  EXPECT_EQ(cluster_->worker(1), nullptr);
  absl::Status s = RunZ(session.get(), 2, &z);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "task:1")) << s;
  ASSERT_TRUE(cluster_->RestartWorker(1).ok());
  EXPECT_NE(cluster_->worker(1)->incarnation(), before);
  // The session checks its workers first, sees the new incarnation and
  // registers its graph there again.
  s = RunZ(session.get(), 2, &z);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(z, 6);
  EXPECT_EQ(cluster_->worker(1)->NumRegisteredGraphs(), 1u);
  ASSERT_TRUE(session->Close().ok());
  sim_.loop.RunUntilIdle();
  EXPECT_EQ(cluster_->worker(0)->NumSteps(), 0u);
  EXPECT_TRUE(cluster_->stale_recvs().empty());
}

TEST_F(SimClusterTest, MasterCollectsIdleSessions) {
  SimClusterOptions o;
  o.master.session_gc_nanos = 10 * kSecond;
  Start(o);
  auto session = cluster_->NewSession(ConfigProto());
  ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
  float z = 0;
  ASSERT_TRUE(RunZ(session.get(), 1, &z).ok());
  sim_.loop.RunFor(8 * kSecond);
  // Used again before the deadline: the idle time starts over.
  ASSERT_TRUE(RunZ(session.get(), 1, &z).ok());
  sim_.loop.RunFor(8 * kSecond);
  EXPECT_EQ(cluster_->master()->NumSessions(), 1u);
  EXPECT_EQ(cluster_->master()->NumCollectedSessions(), 0);
  sim_.loop.RunFor(3 * kSecond);
  EXPECT_EQ(cluster_->master()->NumSessions(), 0u);
  EXPECT_EQ(cluster_->master()->NumCollectedSessions(), 1);
  sim_.loop.RunUntilIdle();
  EXPECT_EQ(cluster_->worker(0)->NumSessions(), 0u);
  EXPECT_EQ(cluster_->worker(1)->NumSessions(), 0u);
  // The client learns on its next call.
  absl::Status s = RunZ(session.get(), 1, &z);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "garbage-collected")) << s;
}

}  // namespace
}  // namespace stepflow
