// The grpc:// session against two real GrpcServer tasks on loopback: a
// graph split over both tasks, TensorFlow's linear-regression graph trained
// with its variables on the second task, a timeline of a distributed step,
// a stopped task failing the step with Unavailable, and jobs other than
// "worker".
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/common/session.h"
#include "runtime/distributed/rpc/grpc_server.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"
#include "testing/linear_regression_data.h"
#include "testing/tf_testdata.h"

namespace stepflow {
namespace {

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";

// A port nothing listens on right now (the kernel's choice; a tiny race
// with other processes is acceptable in a test).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

class GrpcSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = RealEnv::Create(2);
    addresses_ = {absl::StrCat("127.0.0.1:", FreePort()),
                  absl::StrCat("127.0.0.1:", FreePort())};
    for (int i = 0; i < 2; ++i) {
      GrpcServer::Options o;
      for (int t = 0; t < 2; ++t) {
        ASSERT_TRUE(o.cluster.AddTask("worker", t, addresses_[t]).ok());
      }
      o.task_index = i;
      o.inter_op_threads = 2;
      std::unique_ptr<GrpcServer> server;
      absl::Status s = GrpcServer::Create(o, &server);
      ASSERT_TRUE(s.ok()) << s;
      servers_.push_back(std::move(server));
    }
  }

  std::unique_ptr<Session> NewGrpcSession() {
    SessionOptions opts;
    opts.env = env_->env();
    opts.target = absl::StrCat("grpc://", addresses_[0]);
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  std::unique_ptr<RealEnv> env_;
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<GrpcServer>> servers_;
};

GraphDef SplitGraph() {
  GraphDef graph;
  EXPECT_TRUE(ReadGraphDefFromFile("examples/two_device.pbtxt", &graph).ok());
  // x and z on task 0, y on task 1.
  for (NodeDef& n : *graph.mutable_node()) {
    n.set_device(n.name() == "y" ? kTask1 : kTask0);
  }
  return graph;
}

// Runs z of examples/two_device.pbtxt (x*x + x for x = 1..4) with its
// partition graphs in `meta`.
void ExpectZ(Session* session, RunMetadata* meta) {
  std::vector<Tensor> out;
  RunOptions ro;
  ro.set_output_partition_graphs(true);
  absl::Status s = session->Run(ro, {}, {"z"}, {}, &out, meta);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 1u);
  const float want[] = {2, 6, 12, 20};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[0].flat<float>()(i), want[i]);
}

TEST_F(GrpcSessionTest, RunsAGraphSplitOverTwoTasks) {
  auto session = NewGrpcSession();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Create(SplitGraph()).ok());
  RunMetadata meta;
  ExpectZ(session.get(), &meta);
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(devices.size(), 2u);
  ASSERT_TRUE(session->Close().ok());
  std::vector<Tensor> out;
  EXPECT_FALSE(session->Run({}, {"z"}, {}, &out).ok());
}

TEST_F(GrpcSessionTest, TrainsTensorFlowLinearRegressionAcrossTasks) {
  std::optional<std::string> path =
      TfTestdataFile("linear_regression_train.pb");
  if (!path.has_value()) {
    GTEST_SKIP() << "TensorFlow testdata 'linear_regression_train.pb' not "
                    "found (put shared/testdata/tf beside the checkout)";
  }
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDefFromFile(*path, &graph).ok());
  for (NodeDef& n : *graph.mutable_node()) {
    if (n.op() == "Variable" || n.op() == "VariableV2") {
      n.set_device(kTask1);
    } else if (n.op() != "Assign" && n.op() != "ApplyGradientDescent") {
      n.set_device(kTask0);
    }
  }
  auto session = NewGrpcSession();
  ASSERT_TRUE(session->Create(graph).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  const Session::FeedList data = graph_testing::LinearRegressionFeeds();
  for (int step = 0; step < 201; ++step) {
    absl::Status s = session->Run(data, {}, {"train"}, &out);
    ASSERT_TRUE(s.ok()) << "step " << step << ": " << s;
  }
  ASSERT_TRUE(session->Run({}, {"w", "b"}, {}, &out).ok());
  EXPECT_NEAR(out[0].flat<float>()(0), 0.1f, 1e-3);
  EXPECT_NEAR(out[1].flat<float>()(0), 0.3f, 1e-3);
  ASSERT_TRUE(session->Close().ok());
}

TEST_F(GrpcSessionTest, StoppedTaskFailsTheStepWithUnavailable) {
  auto session = NewGrpcSession();
  ASSERT_TRUE(session->Create(SplitGraph()).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"z"}, {}, &out).ok());
  servers_[1].reset();  // Task 1 goes away.
  RunOptions ro;
  ro.set_timeout_in_ms(20000);
  absl::Status s = session->Run(ro, {}, {"z"}, {}, &out, nullptr);
  EXPECT_TRUE(absl::IsUnavailable(s) || absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "task:1")) << s;
}

TEST_F(GrpcSessionTest, BadTargetsAreInvalidArgument) {
  SessionOptions opts;
  opts.env = env_->env();
  opts.target = "grpc://";
  std::unique_ptr<Session> session;
  EXPECT_TRUE(absl::IsInvalidArgument(NewSession(opts, &session)));
}

TEST_F(GrpcSessionTest, UnreadableTlsFilesAreInvalidArgument) {
  SessionOptions opts;
  opts.env = env_->env();
  opts.target = absl::StrCat("grpc://", addresses_[0]);
  opts.tls.ca_file = "/nonexistent/ca.pem";
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(opts, &session);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "/nonexistent/ca.pem")) << s;
}

// Jobs need not be "worker": a chief and a ps, the session through the
// chief, y requested on "/job:ps/task:0" and the rest unplaced (so on the
// chief, whose master the session calls).
TEST(GrpcSessionJobsTest, ChiefAndPs) {
  auto env = RealEnv::Create(2);
  const std::string chief = absl::StrCat("127.0.0.1:", FreePort());
  const std::string ps = absl::StrCat("127.0.0.1:", FreePort());
  std::vector<std::unique_ptr<GrpcServer>> servers;
  for (const char* job : {"chief", "ps"}) {
    GrpcServer::Options o;
    ASSERT_TRUE(o.cluster.AddTask("chief", 0, chief).ok());
    ASSERT_TRUE(o.cluster.AddTask("ps", 0, ps).ok());
    o.job_name = job;
    o.inter_op_threads = 2;
    std::unique_ptr<GrpcServer> server;
    absl::Status s = GrpcServer::Create(o, &server);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(server->task(), absl::StrCat("/job:", job, "/replica:0/task:0"));
    servers.push_back(std::move(server));
  }
  SessionOptions opts;
  opts.env = env->env();
  opts.target = absl::StrCat("grpc://", chief);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(opts, &session).ok());
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDefFromFile("examples/two_device.pbtxt", &graph).ok());
  for (NodeDef& n : *graph.mutable_node()) {
    n.set_device(n.name() == "y" ? "/job:ps/task:0" : "");
  }
  ASSERT_TRUE(session->Create(graph).ok());
  RunMetadata meta;
  ExpectZ(session.get(), &meta);
  std::map<std::string, std::string> placed;  // Node -> device.
  for (const GraphDef& partition : meta.partition_graphs()) {
    for (const NodeDef& n : partition.node()) placed[n.name()] = n.device();
  }
  EXPECT_EQ(placed["y"], "/job:ps/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(placed["z"], "/job:chief/replica:0/task:0/device:CPU:0");
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  std::vector<std::string> names;
  for (const DeviceAttributes& d : devices) names.push_back(d.name());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "/job:chief/replica:0/task:0/device:CPU:0",
                       "/job:ps/replica:0/task:0/device:CPU:0"}));
  ASSERT_TRUE(session->Close().ok());
}

}  // namespace
}  // namespace stepflow
