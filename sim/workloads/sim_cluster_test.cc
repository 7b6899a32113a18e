#include "sim/workloads/sim_cluster.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "proto/master.pb.h"
#include "proto/worker.pb.h"
#include "runtime/env/notification.h"
#include "runtime/env/transport.h"
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

// Heartbeats every second, three misses make a task unresponsive, and
// workers lease sessions for five seconds. Heartbeats go on while the
// master holds sessions: GC ends those the tests leave behind (a crashed
// master's), so the loop can drain.
SimClusterOptions WithHealthChecks() {
  SimClusterOptions o;
  o.master.session_gc_nanos = 60 * kSecond;
  o.master.task = SimCluster::kMasterTask;
  o.master.health_check_interval_nanos = kSecond;
  o.master.health_check_max_missed = 3;
  o.worker.session_lease_nanos = 5 * kSecond;
  return o;
}

// A live master's heartbeats keep its idle sessions on the workers past
// the lease; once the master is gone (crashed), every worker drops them,
// with their graphs and steps.
TEST_F(SimClusterTest, WorkersDropTheSessionsOfAMasterThatWentSilent) {
  Start(WithHealthChecks());
  auto session = cluster_->NewSession(ConfigProto());
  ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
  float z = 0;
  ASSERT_TRUE(RunZ(session.get(), 3, &z).ok());
  sim_.loop.RunFor(20 * kSecond);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(cluster_->worker(i)->NumSessions(), 1u) << i;
    EXPECT_GT(cluster_->worker(i)->NumRegisteredGraphs(), 0u) << i;
  }
  ASSERT_TRUE(RunZ(session.get(), 3, &z).ok());
  EXPECT_EQ(z, 12);
  cluster_->network()->Crash(SimCluster::kMasterTask);
  sim_.loop.RunFor(7 * kSecond);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(cluster_->worker(i)->NumSessions(), 0u) << i;
    EXPECT_EQ(cluster_->worker(i)->NumRegisteredGraphs(), 0u) << i;
    EXPECT_EQ(cluster_->worker(i)->NumSteps(), 0u) << i;
    EXPECT_EQ(cluster_->worker(i)->NumExpiredSessions(), 1) << i;
  }
}

// A live master paused (its messages held) past the lease loses its
// sessions on the workers. Its next steps fail at once with
// FailedPrecondition naming a task and the expired lease — never a worker
// session re-created behind the client's back, never a hang — and leave no
// state on the workers; a new session works.
TEST_F(SimClusterTest, StepAfterTheLeaseExpiredFailsNamingTheTask) {
  Start(WithHealthChecks());
  auto session = cluster_->NewSession(ConfigProto());
  ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
  float z = 0;
  ASSERT_TRUE(RunZ(session.get(), 3, &z).ok());
  cluster_->network()->Clog(SimCluster::kMasterTask,
                            sim_.loop.NowNanos() + 8 * kSecond);
  sim_.loop.RunFor(9 * kSecond);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(cluster_->worker(i)->NumSessions(), 0u) << i;
    EXPECT_EQ(cluster_->worker(i)->NumExpiredSessions(), 1) << i;
  }
  std::string handle;
  for (int step = 0; step < 2; ++step) {
    const int64_t start = sim_.loop.NowNanos();
    absl::Status s = RunZ(session.get(), 3, &z);
    const std::string message(s.message());
    const size_t quote = message.find("Session '");
    if (handle.empty() && quote != std::string::npos) {
      handle = message.substr(quote + 9,
                              message.find('\'', quote + 9) - (quote + 9));
    }
    EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "is not found on task")) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "/job:worker/replica:0/task:"))
        << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "expired")) << s;
    EXPECT_LE(sim_.loop.NowNanos() - start, kSecond);
    sim_.loop.RunFor(kSecond);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(cluster_->worker(i)->NumSessions(), 0u) << i;
      EXPECT_EQ(cluster_->worker(i)->NumRegisteredGraphs(), 0u) << i;
      EXPECT_EQ(cluster_->worker(i)->NumSteps(), 0u) << i;
    }
  }
  // A late copy of the session's CreateWorkerSession does not bring it
  // back.
  ASSERT_FALSE(handle.empty());
  CreateWorkerSessionRequest create;
  create.set_session_handle(handle);
  CreateWorkerSessionResponse create_resp;
  Notification created;
  absl::Status create_status;
  cluster_->client_env()->transport->Call(
      SimCluster::WorkerTask(1), "WorkerService/CreateWorkerSession", create,
      &create_resp, CallOptions(), [&](const absl::Status& s) {
        create_status = s;
        created.Notify();
      });
  sim_.loop.RunUntilNotified(&created, "CreateWorkerSession");
  EXPECT_TRUE(absl::IsFailedPrecondition(create_status)) << create_status;
  EXPECT_EQ(cluster_->worker(1)->NumSessions(), 0u);
  EXPECT_TRUE(session->Close().ok());
  auto fresh = cluster_->NewSession(ConfigProto());
  ASSERT_TRUE(fresh->Create(TwoTaskGraph()).ok());
  ASSERT_TRUE(RunZ(fresh.get(), 3, &z).ok());
  EXPECT_EQ(z, 12);
  EXPECT_TRUE(fresh->Close().ok());
}

// A worker that stops answering (clogged: hung, not crashed) fails a step
// that has no deadline with Unavailable naming that task, after the
// bounded number of missed checks, and Close does not wait for it.
TEST_F(SimClusterTest, HungWorkerFailsTheStepNamingIt) {
  Start(WithHealthChecks());
  auto session = cluster_->NewSession(ConfigProto());
  ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
  float z = 0;
  ASSERT_TRUE(RunZ(session.get(), 3, &z).ok());
  const int64_t start = sim_.loop.NowNanos();
  cluster_->network()->Clog(SimCluster::WorkerTask(1), start + 1000 * kSecond);
  absl::Status s = RunZ(session.get(), 3, &z);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), SimCluster::WorkerTask(1))) << s;
  EXPECT_FALSE(absl::StrContains(s.message(), SimCluster::WorkerTask(0))) << s;
  EXPECT_LE(sim_.loop.NowNanos() - start, 6 * kSecond);
  const int64_t close_start = sim_.loop.NowNanos();
  EXPECT_TRUE(session->Close().ok());
  EXPECT_LE(sim_.loop.NowNanos() - close_start, kSecond);
  cluster_->network()->Heal();
  sim_.loop.RunUntilIdle();
}

// With a step deadline, the DeadlineExceeded names the task that hung,
// never the healthy one whose step only waited for it (every seed).
TEST(SimClusterDeadlineTest, DeadlineErrorNamesTheHungTask) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SimEnv sim(seed);
    std::unique_ptr<SimCluster> cluster;
    ASSERT_TRUE(SimCluster::Create(&sim, WithHealthChecks(), &cluster).ok());
    ConfigProto config;
    config.set_operation_timeout_in_ms(2000);
    auto session = cluster->NewSession(config);
    ASSERT_TRUE(session->Create(TwoTaskGraph()).ok());
    std::vector<Tensor> out;
    ASSERT_TRUE(
        session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out).ok());
    cluster->network()->Clog(SimCluster::WorkerTask(1),
                             sim.loop.NowNanos() + 1000 * kSecond);
    absl::Status s =
        session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out);
    EXPECT_TRUE(absl::IsDeadlineExceeded(s) || absl::IsUnavailable(s))
        << seed << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), SimCluster::WorkerTask(1)))
        << seed << ": " << s;
    EXPECT_FALSE(absl::StrContains(s.message(), SimCluster::WorkerTask(0)))
        << seed << ": " << s;
    const int64_t close_start = sim.loop.NowNanos();
    EXPECT_TRUE(session->Close().ok()) << seed;
    EXPECT_LE(sim.loop.NowNanos() - close_start, kSecond) << seed;
    cluster->network()->Heal();
    sim.loop.RunUntilIdle();
    session.reset();
    sim.loop.RunUntilIdle();
  }
}

// A CreateSession that outlives the client's deadline (one worker slow to
// answer GetStatus, then another slow to answer CreateWorkerSession: each
// call inside the operation timeout, the whole CreateSession not) leaves no
// session behind on the master or the workers.
TEST_F(SimClusterTest, LateCreateSessionLeavesNoSession) {
  Start(SimClusterOptions());
  const std::string w1 = SimCluster::WorkerTask(1);
  cluster_->network()->Clog(w1, sim_.loop.NowNanos() + 900 * 1000 * 1000);
  CreateSessionRequest req;
  *req.mutable_graph_def() = TwoTaskGraph();
  req.mutable_config()->set_operation_timeout_in_ms(1000);
  CreateSessionResponse resp;
  CallOptions opts;
  opts.timeout_nanos = kSecond;
  Notification n;
  absl::Status status;
  cluster_->client_env()->transport->Call(
      SimCluster::kMasterTask, "MasterService/CreateSession", req, &resp, opts,
      [&](const absl::Status& s) {
        status = s;
        n.Notify();
      });
  // Worker 0 answered GetStatus at once; its CreateWorkerSession (sent
  // once worker 1 answers, at 0.9 s) is held until 1.4 s.
  sim_.loop.RunFor(500 * 1000 * 1000);
  cluster_->network()->Clog(SimCluster::WorkerTask(0),
                            sim_.loop.NowNanos() + 900 * 1000 * 1000);
  sim_.loop.RunUntilNotified(&n, "CreateSession");
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  sim_.loop.RunUntilIdle();
  EXPECT_EQ(cluster_->master()->NumSessions(), 0u);
  EXPECT_EQ(cluster_->worker(0)->NumSessions(), 0u);
  EXPECT_EQ(cluster_->worker(1)->NumSessions(), 0u);
}

}  // namespace
}  // namespace stepflow
