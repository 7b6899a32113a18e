// Sessions of the C++ client: sharing one graph, extension with nodes
// added after a run, the default-session stack, InteractiveSession,
// RAII close, and the usage pattern of the project's seed documents
// (one graph, several sessions, 1000 training runs with feeds).
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/client/graph.h"
#include "runtime/client/ops.h"
#include "runtime/client/scope.h"
#include "runtime/client/session.h"
#include "runtime/distributed/rpc/grpc_server.h"
#include "runtime/env/real/real_env.h"

namespace stepflow {
namespace client {
namespace {

class ClientSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(2); }

  SessionOptions Options(int cpus = 1) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["CPU"] = cpus;
    return opts;
  }

  std::unique_ptr<Session> NewSession(const Graph& g, int cpus = 1) {
    auto s = Session::Create(g, Options(cpus));
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  std::unique_ptr<RealEnv> env_;
};

float Scalar(const Tensor& t) { return t.base<float>()[0]; }

TEST_F(ClientSessionTest, RunsAndExtendsWithNodesAddedLater) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Mul(root, x, ops::Const(root, 2.0f));
  ASSERT_TRUE(root.ok()) << root.status();
  auto session = NewSession(root.graph());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{x, Tensor::Scalar(3.0f)}}, {y}, {}, &out).ok());
  EXPECT_EQ(Scalar(out[0]), 6.0f);
  // A node added after the first run is sent on the next one.
  auto z = ops::Add(root, y, ops::Const(root, 1.0f));
  ASSERT_TRUE(session->Run({{x, Tensor::Scalar(3.0f)}}, {z, y}, {}, &out).ok());
  EXPECT_EQ(Scalar(out[0]), 7.0f);
  EXPECT_EQ(Scalar(out[1]), 6.0f);
}

TEST_F(ClientSessionTest, SessionsShareAGraphButNotVariables) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), {}, DT_FLOAT);
  auto init = ops::Assign(root, v, ops::Const(root, 0.0f));
  auto inc = ops::AssignAdd(root, v, ops::Const(root, 1.0f));
  auto a = NewSession(root.graph());
  auto b = NewSession(root.graph());
  std::vector<Tensor> out;
  ASSERT_TRUE(a->Run({}, {}, {init.op()}, &out).ok());
  ASSERT_TRUE(b->Run({}, {}, {init.op()}, &out).ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a->Run({}, {inc}, {}, &out).ok());
  ASSERT_TRUE(b->Run({}, {inc}, {}, &out).ok());
  ASSERT_TRUE(a->Run({}, {v}, {}, &out).ok());
  EXPECT_EQ(Scalar(out[0]), 3.0f);
  ASSERT_TRUE(b->Run({}, {v}, {}, &out).ok());
  EXPECT_EQ(Scalar(out[0]), 1.0f);
}

TEST_F(ClientSessionTest, RunAfterCloseIsCancelledAndCloseIsIdempotent) {
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root, 1.0f);
  auto session = NewSession(root.graph());
  ASSERT_TRUE(session->Close().ok());
  ASSERT_TRUE(session->Close().ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {c}, {}, &out);
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
}

TEST_F(ClientSessionTest, RejectsOutputsOfAnotherGraph) {
  Scope one = Scope::NewRootScope();
  Scope two = Scope::NewRootScope();
  auto c = ops::Const(two, 1.0f);
  ops::Const(one, 1.0f);
  auto session = NewSession(one.graph());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {c}, {}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST_F(ClientSessionTest, DefaultSessionStackDrivesEvalAndRun) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), {}, DT_FLOAT);
  auto init = ops::Assign(root, v, ops::Const(root, 5.0f));
  auto doubled = ops::Mul(root, v, ops::Const(root, 2.0f));
  // No default session yet.
  auto none = doubled.Eval();
  EXPECT_TRUE(absl::IsFailedPrecondition(none.status())) << none.status();

  auto session = NewSession(root.graph());
  {
    auto guard = session->AsDefault();
    EXPECT_EQ(Session::Default(), session.get());
    ASSERT_TRUE(init.op().Run().ok());
    auto value = doubled.Eval();
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(Scalar(*value), 10.0f);
    // A session on another graph cannot evaluate it.
    Scope other = Scope::NewRootScope();
    auto c = ops::Const(other, 1.0f);
    EXPECT_TRUE(absl::IsInvalidArgument(c.Eval().status()));
  }
  EXPECT_EQ(Session::Default(), nullptr);
}

TEST_F(ClientSessionTest, InteractiveSessionIsTheDefaultWhileAlive) {
  Graph g;
  auto graph_guard = g.AsDefault();
  Scope root = Scope::DefaultScope();
  auto a = ops::Const(root, 4.0f);
  auto sq = ops::Square(root, a);
  {
    InteractiveSession sess(Graph::Default(), Options());
    ASSERT_TRUE(sess.status().ok()) << sess.status();
    EXPECT_EQ(Session::Default(), sess.session());
    auto value = sq.Eval();
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(Scalar(*value), 16.0f);
  }
  EXPECT_EQ(Session::Default(), nullptr);
}

TEST_F(ClientSessionTest, UnknownTargetFailsToCreate) {
  Graph g;
  SessionOptions opts = Options();
  opts.target = "nosuchscheme://x";
  auto s = Session::Create(g, opts);
  EXPECT_FALSE(s.ok());
  InteractiveSession interactive(g, opts);
  EXPECT_FALSE(interactive.status().ok());
  EXPECT_EQ(Session::Default(), nullptr);
}

// The same client code runs on a cluster when the target says grpc://.
TEST_F(ClientSessionTest, GrpcTargetRunsOnACluster) {
  GrpcServer::Options server_options;
  ASSERT_TRUE(server_options.cluster.AddTask("worker", 0, "127.0.0.1:0").ok());
  server_options.inter_op_threads = 2;
  std::unique_ptr<GrpcServer> server;
  ASSERT_TRUE(GrpcServer::Create(server_options, &server).ok());

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Square(root.WithDevice("/job:worker/task:0"), x);
  SessionOptions opts = Options();
  opts.target = absl::StrCat("grpc://", server->address());
  auto session = Session::Create(root.graph(), opts);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({{x, Tensor::Scalar(3.0f)}}, {y}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Scalar(out[0]), 9.0f);
  // Extension works remotely too.
  auto z = ops::Add(root, y, ops::Const(root, 1.0f));
  s = (*session)->Run({{x, Tensor::Scalar(3.0f)}}, {z}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Scalar(out[0]), 10.0f);
  ASSERT_TRUE((*session)->Close().ok());
  session->reset();
}

// The seed documents' pattern: one graph, several sessions on it, a loop of
// 1000 training runs with feeds in each, then close and delete.
TEST_F(ClientSessionTest, ThousandTrainingRunsOnSessionsSharingOneGraph) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  Scope vars = root.NewSubScope("model").WithDevice("/device:CPU:1");
  auto w = ops::Variable(vars.WithOpName("w"), {}, DT_FLOAT);
  auto b = ops::Variable(vars.WithOpName("b"), {}, DT_FLOAT);
  auto init = ops::Group(root.WithOpName("init"),
                         {ops::Assign(root, w, ops::Const(root, 0.0f)).op(),
                          ops::Assign(root, b, ops::Const(root, 0.0f)).op()});
  Scope math = root.NewSubScope("loss").WithDevice("/device:CPU:0");
  auto pred = ops::Add(math, ops::Mul(math, w, x), b);
  auto err = ops::Sub(math, pred, y);
  auto axes = ops::Const(math, Tensor::Vector<int32_t>({0}));
  auto two = ops::Const(math, 2.0f);
  auto grad_w =
      ops::Mean(math, ops::Mul(math, ops::Mul(math, two, err), x), axes);
  auto grad_b = ops::Mean(math, ops::Mul(math, two, err), axes);
  auto lr = ops::Const(math, 0.5f);
  auto train =
      ops::Group(root.WithOpName("train"),
                 {ops::ApplyGradientDescent(root, w, lr, grad_w).op(),
                  ops::ApplyGradientDescent(root, b, lr, grad_b).op()});
  ASSERT_TRUE(root.ok()) << root.status();

  Tensor xs(DT_FLOAT, TensorShape({100}));
  Tensor ys(DT_FLOAT, TensorShape({100}));
  for (int i = 0; i < 100; ++i) {
    xs.base<float>()[i] = static_cast<float>(i) / 100.0f;
    ys.base<float>()[i] = 0.1f * xs.base<float>()[i] + 0.3f;
  }
  std::vector<std::unique_ptr<Session>> sessions;
  for (int k = 0; k < 3; ++k) sessions.push_back(NewSession(root.graph(), 2));
  std::vector<Tensor> out;
  for (auto& s : sessions) ASSERT_TRUE(s->Run({}, {}, {init}, &out).ok());
  for (int step = 0; step < 1000; ++step) {
    for (auto& s : sessions) {
      absl::Status st = s->Run({{x, xs}, {y, ys}}, {}, {train}, &out);
      ASSERT_TRUE(st.ok()) << "step " << step << ": " << st;
    }
  }
  for (auto& s : sessions) {
    ASSERT_TRUE(s->Run({}, {w, b}, {}, &out).ok());
    EXPECT_NEAR(Scalar(out[0]), 0.1f, 1e-3);
    EXPECT_NEAR(Scalar(out[1]), 0.3f, 1e-3);
    ASSERT_TRUE(s->Close().ok());
  }
  sessions.clear();  // Delete; the graph outlives them through `root`.
  EXPECT_EQ(root.graph().num_nodes(), root.graph().ToGraphDef().node_size());
}

}  // namespace
}  // namespace client
}  // namespace stepflow
