// DirectSession against docs/semantics.md "Session factory" and "Session API".
#include "runtime/common/direct_session.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "runtime/common/session_factory.h"
#include "runtime/env/heap_releaser.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/graph/graph_def_io.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using test::ConstFloatNode;
using test::ParseGraphDefOrFail;
using test::PlaceholderNode;

// A kernel that never finishes on its own: it completes (Cancelled) only when
// its step is cancelled. `g_blocked` counts instances still running.
std::atomic<int> g_blocked{0};
std::atomic<int> g_blocked_started{0};

REGISTER_OP("TestBlockUntilCancelled")
    .Input("x: float")
    .Output("y: float")
    .SetIsStateful();

class BlockUntilCancelledOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    ASSERT_NE(cm, nullptr);
    g_blocked.fetch_add(1);
    g_blocked_started.fetch_add(1);
    auto finished = std::make_shared<std::atomic<bool>>(false);
    auto finish = [ctx, done, finished] {
      if (finished->exchange(true)) return;
      ctx->SetStatus(absl::CancelledError("blocked op cancelled"));
      g_blocked.fetch_sub(1);
      done();
    };
    CancellationToken token = cm->get_cancellation_token();
    if (!cm->RegisterCallback(token, finish)) finish();
  }
};
REGISTER_KERNEL_BUILDER(Name("TestBlockUntilCancelled").Device(DEVICE_CPU),
                        BlockUntilCancelledOp);

// A stateful source (no inputs, one output): the placer's generator rule
// would move it next to its consumers unless its first placement is kept.
REGISTER_OP("TestStatefulSource").Output("y: float").SetIsStateful();

class StatefulSourceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(7));
  }
};
REGISTER_KERNEL_BUILDER(Name("TestStatefulSource").Device(DEVICE_CPU),
                        StatefulSourceOp);

std::string Binary(const std::string& op, const std::string& name,
                   const std::string& a, const std::string& b,
                   const std::string& dtype = "DT_FLOAT",
                   const std::string& device = "") {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b, "' device: '", device,
                      "' attr { key: 'T' value { type: ", dtype, " } } }\n");
}

class DirectSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  std::unique_ptr<Session> NewLocalSession(int cpus = 1,
                                           int64_t operation_timeout_ms = 0) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["CPU"] = cpus;
    opts.config.set_operation_timeout_in_ms(operation_timeout_ms);
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  // x (float placeholder) + y (float const 2) -> z; w = z * z.
  GraphDef AddGraph() {
    return ParseGraphDefOrFail(
        PlaceholderNode("x", "DT_FLOAT") + ConstFloatNode("y", 2) +
        Binary("AddV2", "z", "x", "y") + Binary("Mul", "w", "z", "z"));
  }

  std::unique_ptr<RealEnv> env_;
};

TEST_F(DirectSessionTest, FactoryPicksDirectSessionForEmptyTarget) {
  SessionOptions opts;
  opts.env = env_->env();
  SessionFactory* f = nullptr;
  ASSERT_TRUE(SessionFactory::GetFactory(opts, &f).ok());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(f->NewSession(opts, &s).ok());
  EXPECT_NE(dynamic_cast<DirectSession*>(s.get()), nullptr);
}

TEST_F(DirectSessionTest, FactoryUnknownTargetIsNotFoundListingFactories) {
  SessionOptions opts;
  opts.env = env_->env();
  opts.target = "nosuchproto://somewhere";
  std::unique_ptr<Session> s;
  absl::Status st = NewSession(opts, &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_NE(st.message().find("DIRECT_SESSION"), std::string::npos) << st;
  EXPECT_NE(st.message().find("nosuchproto://somewhere"), std::string::npos);
}

class AcceptsDupFactory : public SessionFactory {
 public:
  bool AcceptsOptions(const SessionOptions& o) override {
    return o.target == "dup://x";
  }
  absl::Status NewSession(const SessionOptions&,
                          std::unique_ptr<Session>*) override {
    return absl::UnimplementedError("test factory");
  }
};

TEST_F(DirectSessionTest, FactoryAmbiguousTargetIsInternal) {
  SessionFactory::Register("TEST_DUP_A", new AcceptsDupFactory);
  SessionFactory::Register("TEST_DUP_B", new AcceptsDupFactory);
  SessionOptions opts;
  opts.env = env_->env();
  opts.target = "dup://x";
  std::unique_ptr<Session> s;
  absl::Status st = NewSession(opts, &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kInternal) << st;
  EXPECT_NE(st.message().find("TEST_DUP_A"), std::string::npos) << st;
  EXPECT_NE(st.message().find("TEST_DUP_B"), std::string::npos) << st;
}

TEST_F(DirectSessionTest, NewSessionWithoutEnvIsInvalidArgument) {
  SessionOptions opts;
  std::unique_ptr<Session> s;
  EXPECT_EQ(NewSession(opts, &s).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(DirectSessionTest, ListDevicesFollowsDeviceCount) {
  auto session = NewLocalSession(3);
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  ASSERT_EQ(devices.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(devices[i].name(),
              absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i));
    EXPECT_EQ(devices[i].device_type(), "CPU");
    EXPECT_GT(devices[i].memory_limit(), 0);
    EXPECT_NE(devices[i].incarnation(), 0u);
  }
  EXPECT_NE(devices[0].incarnation(), devices[1].incarnation());
}

// A computation that only a control edge waits for is skipped (replaced by
// a NoOp, as TensorFlow's dependency optimizer does): its error does not
// surface. Fetched or targeted, it runs and fails, naming the node.
TEST_F(DirectSessionTest, ComputationOnlyWaitedForIsSkipped) {
  auto session = NewLocalSession();
  // `bad` multiplies scalars: MatMul rejects them when it runs. (Through
  // `u`, whose shape is unknown to shape inference; with y's known scalar
  // shape the import itself would refuse the MatMul, as TensorFlow's does.)
  const std::string graph =
      PlaceholderNode("x", "DT_FLOAT") + ConstFloatNode("y", 2) +
      "node { name: 'u' op: 'PlaceholderWithDefault' input: 'y' "
      "attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { unknown_rank: true } } } }\n" +
      Binary("MatMul", "bad", "u", "u") +
      "node { name: 'gate' op: 'NoOp' input: '^bad' }\n"
      "node { name: 'z' op: 'AddV2' input: 'x' input: 'y' input: '^gate' "
      "attr { key: 'T' value { type: DT_FLOAT } } }\n";
  ASSERT_TRUE(session->Create(ParseGraphDefOrFail(graph)).ok());
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x", Tensor::Scalar<float>(3)}}, {"z"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 5.0f);

  s = session->Run({}, {"bad"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("bad"), std::string::npos) << s;
  s = session->Run({}, {}, {"bad"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"z"}, {"bad"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST_F(DirectSessionTest, RunComputesAndOutputsFollowFetchOrder) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::Scalar<float>(3)}},
                                {"w", "z:0", "z", "y"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].scalar<float>(), 25.0f);
  EXPECT_EQ(out[1].scalar<float>(), 5.0f);
  EXPECT_EQ(out[2].scalar<float>(), 5.0f);  // Duplicate fetch ("n" == "n:0").
  EXPECT_EQ(out[3].scalar<float>(), 2.0f);
}

TEST_F(DirectSessionTest, FeedingAConstOverridesIt) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run({{"x", Tensor::Scalar<float>(3)},
                         {"y:0", Tensor::Scalar<float>(10)}},
                        {"z"}, {}, &out)
                  .ok());
  EXPECT_EQ(out[0].scalar<float>(), 13.0f);
}

TEST_F(DirectSessionTest, FeedDtypeMismatchIsInvalidArgument) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x", Tensor::Scalar<int32_t>(3)}}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("'x'"), std::string::npos) << s;
}

TEST_F(DirectSessionTest, MissingFeedForPlaceholderNamesIt) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("x"), std::string::npos) << s;
}

TEST_F(DirectSessionTest, CreateEmptyGraphLeavesSessionUncreated) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(GraphDef()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // A later non-empty Create is still allowed.
  EXPECT_TRUE(session->Create(AddGraph()).ok());
}

TEST_F(DirectSessionTest, SecondCreateIsAlreadyExists) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  EXPECT_EQ(
      session->Create(ParseGraphDefOrFail(ConstFloatNode("other", 1))).code(),
      absl::StatusCode::kAlreadyExists);
}

TEST_F(DirectSessionTest, ExtendBeforeCreateBehavesAsCreate) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Extend(AddGraph()).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
}

TEST_F(DirectSessionTest, ExtendAddsNodesThatUseExistingOnes) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out).ok());
  ASSERT_TRUE(
      session->Extend(ParseGraphDefOrFail(Binary("AddV2", "v", "w", "y")))
          .ok());
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"v"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 11.0f);
}

TEST_F(DirectSessionTest, ExtendReusingANodeNameIsInvalidArgument) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  absl::Status s = session->Extend(ParseGraphDefOrFail(ConstFloatNode("z", 1)));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("z"), std::string::npos) << s;
  // The failed Extend changed nothing.
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
}

TEST_F(DirectSessionTest, ExtendWithDifferentProducerIsInvalidArgument) {
  auto session = NewLocalSession();
  GraphDef g = AddGraph();
  g.mutable_versions()->set_producer(100);
  ASSERT_TRUE(session->Create(g).ok());
  GraphDef ext = ParseGraphDefOrFail(ConstFloatNode("c", 1));
  ext.mutable_versions()->set_producer(101);
  absl::Status s = session->Extend(ext);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

// The device of the partition graph holding `node`, or "" if none does.
std::string PartitionDeviceOf(const RunMetadata& md, const std::string& node) {
  for (const auto& p : md.partition_graphs()) {
    for (const auto& n : p.node()) {
      if (n.name() == node) return n.device();
    }
  }
  return "";
}

TEST_F(DirectSessionTest, StatefulNodesKeepTheirDeviceAcrossExtend) {
  auto session = NewLocalSession(2);
  ASSERT_TRUE(session
                  ->Create(ParseGraphDefOrFail(
                      "node { name: 's' op: 'TestStatefulSource' }"))
                  .ok());
  RunOptions ro;
  ro.set_output_partition_graphs(true);
  RunMetadata md;
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(ro, {}, {"s"}, {}, &out, &md).ok());
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  EXPECT_EQ(PartitionDeviceOf(md, "s"), cpu0);

  // A consumer on CPU:1 would pull a fresh generator there; the stateful
  // node must stay on CPU:0 and be reached through Send/Recv instead.
  ASSERT_TRUE(session
                  ->Extend(ParseGraphDefOrFail(
                      "node { name: 'c' op: 'Identity' input: 's' "
                      "device: '/cpu:1' attr { key: 'T' value { type: "
                      "DT_FLOAT } } }"))
                  .ok());
  md.Clear();
  ASSERT_TRUE(session->Run(ro, {}, {"c"}, {}, &out, &md).ok());
  EXPECT_EQ(out[0].scalar<float>(), 7.0f);
  EXPECT_EQ(PartitionDeviceOf(md, "s"), cpu0);
  EXPECT_EQ(PartitionDeviceOf(md, "c"), cpu1);

  // A fresh session placing the extended graph from scratch moves it: the
  // check above is not vacuous.
  auto fresh = NewLocalSession(2);
  ASSERT_TRUE(fresh
                  ->Create(ParseGraphDefOrFail(
                      "node { name: 's' op: 'TestStatefulSource' } "
                      "node { name: 'c' op: 'Identity' input: 's' "
                      "device: '/cpu:1' attr { key: 'T' value { type: "
                      "DT_FLOAT } } }"))
                  .ok());
  md.Clear();
  ASSERT_TRUE(fresh->Run(ro, {}, {"c"}, {}, &out, &md).ok());
  EXPECT_EQ(PartitionDeviceOf(md, "s"), cpu1);
}

// r = RandomUniform([4], seed=1, seed2=2).
constexpr char kSeededRandomGraph[] = R"pb(
  node {
    name: "shape"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: 1 } }
          int_val: 4
        }
      }
    }
  }
  node {
    name: "r"
    op: "RandomUniform"
    input: "shape"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "seed"
      value { i: 1 }
    }
    attr {
      key: "seed2"
      value { i: 2 }
    }
  }
)pb";

TEST_F(DirectSessionTest, StatefulKernelsAreSharedAcrossSignatures) {
  // A seeded random op keeps its stream in its kernel: a new signature must
  // continue the stream, not restart it.
  auto session = NewLocalSession();
  ASSERT_TRUE(session
                  ->Create(ParseGraphDefOrFail(
                      std::string(kSeededRandomGraph) +
                      "node { name: 'i' op: 'Identity' input: 'r' "
                      "attr { key: 'T' value { type: DT_FLOAT } } }"))
                  .ok());
  std::vector<Tensor> a, b;
  ASSERT_TRUE(session->Run({}, {"r"}, {}, &a).ok());
  ASSERT_TRUE(session->Run({}, {"i"}, {}, &b).ok());
  bool all_equal = true;
  for (int k = 0; k < 4; ++k) {
    all_equal &= a[0].flat<float>()(k) == b[0].flat<float>()(k);
  }
  EXPECT_FALSE(all_equal) << "the second signature restarted the random stream";

  // A fresh session with the same seeds reproduces the first draw.
  auto again = NewLocalSession();
  ASSERT_TRUE(again->Create(ParseGraphDefOrFail(kSeededRandomGraph)).ok());
  std::vector<Tensor> c;
  ASSERT_TRUE(again->Run({}, {"r"}, {}, &c).ok());
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(a[0].flat<float>()(k), c[0].flat<float>()(k));
  }
}

TEST_F(DirectSessionTest, WrongFeedShapeIsACleanKernelError) {
  auto session = NewLocalSession();
  GraphDef g = ParseGraphDefOrFail(
      PlaceholderNode("a", "DT_FLOAT") + PlaceholderNode("b", "DT_FLOAT") +
      "node { name: 'mm' op: 'MatMul' input: 'a' input: 'b' "
      "attr { key: 'T' value { type: DT_FLOAT } } }" +
      Binary("AddV2", "sum", "a", "b"));
  ASSERT_TRUE(session->Create(g).ok());
  std::vector<Tensor> out;
  Tensor a(DT_FLOAT, TensorShape({2, 3}));
  Tensor b(DT_FLOAT, TensorShape({2, 3}));
  absl::Status s = session->Run({{"a", a}, {"b", b}}, {"mm"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("mm"), std::string::npos) << s;
  Tensor c(DT_FLOAT, TensorShape({4}));
  s = session->Run({{"a", a}, {"b", c}}, {"sum"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("sum"), std::string::npos) << s;
  // The session survives bad steps.
  s = session->Run({{"a", a}, {"b", b}}, {"sum"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
}

// A node colocated with a fed node ("_class: loc:@pred" on a tf.cond's
// Switch, "loc:@x" on an Identity) runs: the feed replaces x's output and x
// itself is pruned away, and TensorFlow's placer then treats "x" as the name
// of a colocation group rather than an unknown node.
TEST_F(DirectSessionTest, NodesColocatedWithAFedNodeRun) {
  auto session = NewLocalSession(2);
  const std::string graph =
      PlaceholderNode("x", "DT_FLOAT") + PlaceholderNode("pred", "DT_BOOL") +
      "node { name: 'cond/Switch' op: 'Switch' input: 'x' input: 'pred' "
      "attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: '_class' value { list { s: 'loc:@pred' } } } }\n"
      "node { name: 'cond/then' op: 'Identity' input: 'cond/Switch:1' "
      "attr { key: 'T' value { type: DT_FLOAT } } }\n"
      "node { name: 'cond/else' op: 'Neg' input: 'cond/Switch:0' "
      "attr { key: 'T' value { type: DT_FLOAT } } }\n"
      "node { name: 'cond/Merge' op: 'Merge' input: 'cond/then' "
      "input: 'cond/else' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'N' value { i: 2 } } }\n"
      "node { name: 'y' op: 'Identity' input: 'x' device: '/cpu:1' "
      "attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: '_class' value { list { s: 'loc:@x' } } } }\n";
  ASSERT_TRUE(session->Create(ParseGraphDefOrFail(graph)).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"pred", Tensor::Scalar<bool>(true)}},
      {"cond/Merge"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
  s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"pred", Tensor::Scalar<bool>(false)}},
      {"cond/Merge"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), -3.0f);
  s = session->Run({{"x", Tensor::Scalar<float>(5)}}, {"y"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 5.0f);
}

// As in TensorFlow, a feed must name a tensor of the graph but need not be
// used by what the step runs (run_graph feeds its command-line values to
// the --init step too).
TEST_F(DirectSessionTest, FeedsTheStepDoesNotNeedAreAccepted) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session
                  ->Create(ParseGraphDefOrFail(
                      PlaceholderNode("x", "DT_FLOAT") +
                      PlaceholderNode("unused", "DT_INT32") +
                      ConstFloatNode("y", 2) + Binary("AddV2", "z", "x", "y") +
                      "node { name: 'init' op: 'NoOp' }\n"))
                  .ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"unused", Tensor::Scalar<int32_t>(1)}},
      {"z"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 5.0f);
  s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 2.0f);
  s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {}, {"init"}, &out);
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(DirectSessionTest, PruningErrorsAreReportedInOrder) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<Tensor> out;
  // Nothing to fetch or run.
  EXPECT_EQ(session->Run({}, {}, {}, &out).code(),
            absl::StatusCode::kInvalidArgument);
  // Fed twice.
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(1)}, {"x:0", Tensor::Scalar<float>(2)}},
      {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // Fed and fetched.
  s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"x"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // Missing feed, fetch, target nodes.
  s = session->Run({{"nope", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("nope"), std::string::npos) << s;
  s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"missing"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s;
  s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {}, {"ghost"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("ghost"), std::string::npos) << s;
  // Out-of-range output index.
  s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z:3"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("z"), std::string::npos) << s;
}

TEST_F(DirectSessionTest, ExecutorsAreCachedPerSignatureOrderInsensitive) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  auto* ds = static_cast<DirectSession*>(session.get());
  std::vector<Tensor> out;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        session->Run({{"x", Tensor::Scalar<float>(i)}}, {"z", "w"}, {}, &out)
            .ok());
  }
  EXPECT_EQ(ds->num_executor_builds(), 1);
  // Same set, other order: still cached; outputs follow the new order.
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"w", "z"}, {}, &out)
          .ok());
  EXPECT_EQ(ds->num_executor_builds(), 1);
  EXPECT_EQ(out[0].scalar<float>(), 9.0f);
  EXPECT_EQ(out[1].scalar<float>(), 3.0f);
  // A different set builds once more.
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out).ok());
  EXPECT_EQ(ds->num_executor_builds(), 2);
}

TEST_F(DirectSessionTest, RepeatedRunsMapFeedsAndFetchesByTheirOwnSpelling) {
  // Each spelling and order of the same signature is resolved once and then
  // served from the cache; the values must still land in the right places.
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  auto* ds = static_cast<DirectSession*>(session.get());
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(session
                    ->Run({{"x", Tensor::Scalar<float>(1)},
                           {"y:0", Tensor::Scalar<float>(10 + i)}},
                          {"z", "w:0"}, {}, &out)
                    .ok());
    EXPECT_EQ(out[0].scalar<float>(), 11.0f + i);
    EXPECT_EQ(out[1].scalar<float>(), (11.0f + i) * (11.0f + i));
    ASSERT_TRUE(session
                    ->Run({{"y", Tensor::Scalar<float>(20 + i)},
                           {"x:0", Tensor::Scalar<float>(2)}},
                          {"w", "z:0"}, {}, &out)
                    .ok());
    EXPECT_EQ(out[0].scalar<float>(), (22.0f + i) * (22.0f + i));
    EXPECT_EQ(out[1].scalar<float>(), 22.0f + i);
  }
  EXPECT_EQ(ds->num_executor_builds(), 1);
  // A name with a NUL in it is not another spelling of "z".
  absl::Status s = session->Run({{"x", Tensor::Scalar<float>(1)}},
                                {std::string("z\0w", 3)}, {}, &out);
  EXPECT_FALSE(s.ok());
  // Errors are not cached: the same bad call fails again the same way.
  absl::Status again = session->Run({{"x", Tensor::Scalar<float>(1)}},
                                    {std::string("z\0w", 3)}, {}, &out);
  EXPECT_EQ(again.code(), s.code());
  absl::Status dup = session->Run(
      {{"x", Tensor::Scalar<float>(1)}, {"x:0", Tensor::Scalar<float>(1)}},
      {"z"}, {}, &out);
  EXPECT_EQ(dup.code(), absl::StatusCode::kInvalidArgument) << dup;
  EXPECT_EQ(session
                ->Run({{"x", Tensor::Scalar<float>(1)},
                       {"x:0", Tensor::Scalar<float>(1)}},
                      {"z"}, {}, &out)
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DirectSessionTest, RunAfterCloseIsCancelledAndCloseIsIdempotent) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  ASSERT_TRUE(session->Close().ok());
  ASSERT_TRUE(session->Close().ok());
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_NE(s.message().find("Session has been closed"), std::string::npos);
  EXPECT_EQ(session->Extend(ParseGraphDefOrFail(ConstFloatNode("c", 1))).code(),
            absl::StatusCode::kCancelled);
  std::string handle;
  EXPECT_EQ(session->PRunSetup({"x"}, {"z"}, {}, &handle).code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(session->PRun("anything", {}, {"z"}, &out).code(),
            absl::StatusCode::kCancelled);
}

TEST_F(DirectSessionTest, CloseCancelsRunningSteps) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session
                  ->Create(ParseGraphDefOrFail(
                      ConstFloatNode("c", 1) +
                      "node { name: 'b' op: 'TestBlockUntilCancelled' "
                      "input: 'c' }"))
                  .ok());
  const int started_before = g_blocked_started.load();
  absl::Status run_status;
  std::thread runner([&] {
    std::vector<Tensor> out;
    run_status = session->Run({}, {"b"}, {}, &out);
  });
  while (g_blocked_started.load() == started_before) std::this_thread::yield();
  ASSERT_TRUE(session->Close().ok());
  runner.join();
  EXPECT_EQ(run_status.code(), absl::StatusCode::kCancelled) << run_status;
  EXPECT_EQ(g_blocked.load(), 0);
}

TEST_F(DirectSessionTest,
       RunOptionsTimeoutIsDeadlineExceededAfterExecutorsStop) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session
                  ->Create(ParseGraphDefOrFail(
                      ConstFloatNode("c", 1) +
                      "node { name: 'b' op: 'TestBlockUntilCancelled' "
                      "input: 'c' }"))
                  .ok());
  RunOptions ro;
  ro.set_timeout_in_ms(30);
  std::vector<Tensor> out;
  absl::Status s = session->Run(ro, {}, {"b"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_EQ(g_blocked.load(), 0);  // The kernel finished before Run returned.
  // The session is still usable.
  ASSERT_TRUE(session->Run({}, {"c"}, {}, &out).ok());
}

TEST_F(DirectSessionTest, OperationTimeoutFromConfigApplies) {
  auto session = NewLocalSession(1, /*operation_timeout_ms=*/30);
  ASSERT_TRUE(session
                  ->Create(ParseGraphDefOrFail(
                      ConstFloatNode("c", 1) +
                      "node { name: 'b' op: 'TestBlockUntilCancelled' "
                      "input: 'c' }"))
                  .ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"b"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST_F(DirectSessionTest, MultiDeviceRunReturnsValuesAndStepStatsPerPartition) {
  auto session = NewLocalSession(3);
  const std::string dev0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  GraphDef g = ParseGraphDefOrFail(
      PlaceholderNode("x", "DT_FLOAT") + ConstFloatNode("a", 10, "/cpu:1") +
      Binary("AddV2", "s", "x", "a", "DT_FLOAT", "/device:CPU:1") +
      Binary("Mul", "m", "s", "s", "DT_FLOAT",
             "/job:localhost/replica:0/task:0/device:CPU:2") +
      Binary("AddV2", "out", "m", "x", "DT_FLOAT", dev0));
  ASSERT_TRUE(session->Create(g).ok());
  RunOptions ro;
  ro.set_trace_level(RunOptions::FULL_TRACE);
  ro.set_output_partition_graphs(true);
  RunMetadata md;
  std::vector<Tensor> out;
  absl::Status s = session->Run(ro, {{"x", Tensor::Scalar<float>(2)}}, {"out"},
                                {}, &out, &md);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 146.0f);  // (2+10)^2 + 2
  ASSERT_EQ(md.partition_graphs_size(), 3);
  std::vector<std::string> stat_devices;
  for (const auto& ds : md.step_stats().dev_stats()) {
    stat_devices.push_back(ds.device());
    EXPECT_GT(ds.node_stats_size(), 0) << ds.device();
  }
  EXPECT_EQ(stat_devices.size(), 3u);
  // Cross-device edges became _Send/_Recv pairs.
  int sends = 0, recvs = 0;
  for (const auto& p : md.partition_graphs()) {
    for (const auto& n : p.node()) {
      sends += n.op() == "_Send";
      recvs += n.op() == "_Recv";
    }
  }
  EXPECT_GT(sends, 0);
  EXPECT_EQ(sends, recvs);
}

// Counts ReleaseFreeHeap calls.
class CountingHeapReleaser : public HeapReleaser {
 public:
  void ReleaseFreeHeap() override { calls.fetch_add(1); }
  std::atomic<int> calls{0};
};

// A Placeholder and a chain of `n` Identity nodes after it.
GraphDef IdentityChain(int n) {
  GraphDef def;
  NodeDef* x = def.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(DT_FLOAT);
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    NodeDef* node = def.add_node();
    node->set_name(absl::StrCat("n", i));
    node->set_op("Identity");
    node->add_input(prev);
    (*node->mutable_attr())["T"].set_type(DT_FLOAT);
    prev = node->name();
  }
  return def;
}

TEST_F(DirectSessionTest, LargeGraphsReleaseTheirStagingAndSmallOnesDoNot) {
  CountingHeapReleaser releaser;
  Env env = *env_->env();
  env.heap_releaser = &releaser;
  SessionOptions opts;
  opts.env = &env;
  for (const int n : {100, static_cast<int>(kReleaseFreeHeapMinNodes)}) {
    releaser.calls = 0;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(opts, &session).ok());
    ASSERT_TRUE(session->Create(IdentityChain(n)).ok());
    const int after_create = releaser.calls;
    std::vector<Tensor> out;
    const std::string last = absl::StrCat("n", n - 1);
    absl::Status s =
        session->Run({{"x", Tensor::Scalar<float>(3)}}, {last}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<float>(), 3.0f);
    if (n < kReleaseFreeHeapMinNodes) {
      EXPECT_EQ(releaser.calls, 0) << n;
    } else {
      // Create's import, then the build's import and its executors.
      EXPECT_EQ(after_create, 1);
      EXPECT_EQ(releaser.calls, 3);
    }
    ASSERT_TRUE(session->Close().ok());
  }
}

TEST_F(DirectSessionTest, NoTraceMeansNoStepStats) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  RunMetadata md;
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run(RunOptions(), {{"x", Tensor::Scalar<float>(1)}}, {"z"},
                        {}, &out, &md)
                  .ok());
  EXPECT_EQ(md.step_stats().dev_stats_size(), 0);
  EXPECT_EQ(md.partition_graphs_size(), 0);
}

TEST_F(DirectSessionTest, ConcurrentRunsFromManyThreads) {
  auto session = NewLocalSession(2);
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        std::vector<Tensor> out;
        const float x = t * 100 + i;
        absl::Status s = session->Run({{"x", Tensor::Scalar<float>(x)}},
                                      {"w", "z"}, {}, &out);
        if (!s.ok() || out[0].scalar<float>() != (x + 2) * (x + 2) ||
            out[1].scalar<float>() != x + 2) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(DirectSessionTest, PartialRunFeedsAndFetchesIncrementally) {
  auto session = NewLocalSession();
  GraphDef g = ParseGraphDefOrFail(
      PlaceholderNode("a", "DT_FLOAT") + PlaceholderNode("b", "DT_FLOAT") +
      Binary("AddV2", "c", "a", "a") + Binary("Mul", "d", "c", "b"));
  ASSERT_TRUE(session->Create(g).ok());
  auto* ds = static_cast<DirectSession*>(session.get());
  std::string h;
  ASSERT_TRUE(session->PRunSetup({"a", "b"}, {"c", "d"}, {}, &h).ok());
  std::vector<Tensor> out;
  absl::Status s =
      session->PRun(h, {{"a", Tensor::Scalar<float>(3)}}, {"c"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 6.0f);
  s = session->PRun(h, {{"b", Tensor::Scalar<float>(5)}}, {"d"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 30.0f);
  EXPECT_EQ(ds->num_partial_runs(), 0u);  // Freed once everything was done.
}

// PRun calls on one handle may overlap, as in TensorFlow: two threads each
// feed and fetch their own half of the run at the same time.
TEST_F(DirectSessionTest, OverlappingPartialRunCallsOnOneHandle) {
  auto session = NewLocalSession();
  GraphDef g = ParseGraphDefOrFail(
      PlaceholderNode("a", "DT_FLOAT") + PlaceholderNode("b", "DT_FLOAT") +
      Binary("AddV2", "c", "a", "a") + Binary("Mul", "d", "b", "b"));
  ASSERT_TRUE(session->Create(g).ok());
  auto* ds = static_cast<DirectSession*>(session.get());
  for (int round = 0; round < 50; ++round) {
    std::string h;
    ASSERT_TRUE(session->PRunSetup({"a", "b"}, {"c", "d"}, {}, &h).ok());
    absl::Status sa, sb;
    std::vector<Tensor> outa, outb;
    std::thread ta([&] {
      sa = session->PRun(h, {{"a", Tensor::Scalar<float>(3)}}, {"c"}, &outa);
    });
    std::thread tb([&] {
      sb = session->PRun(h, {{"b", Tensor::Scalar<float>(5)}}, {"d"}, &outb);
    });
    ta.join();
    tb.join();
    ASSERT_TRUE(sa.ok()) << sa;
    ASSERT_TRUE(sb.ok()) << sb;
    EXPECT_EQ(outa[0].scalar<float>(), 6.0f);
    EXPECT_EQ(outb[0].scalar<float>(), 25.0f);
  }
  EXPECT_EQ(ds->num_partial_runs(), 0u);
}

TEST_F(DirectSessionTest, PartialRunErrors) {
  auto session = NewLocalSession();
  GraphDef g = ParseGraphDefOrFail(
      PlaceholderNode("a", "DT_FLOAT") + PlaceholderNode("b", "DT_FLOAT") +
      Binary("AddV2", "c", "a", "a") + Binary("Mul", "d", "c", "b"));
  ASSERT_TRUE(session->Create(g).ok());
  auto* ds = static_cast<DirectSession*>(session.get());
  std::vector<Tensor> out;
  absl::Status s = session->PRun("no-such-handle", {}, {"c"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  auto expect_error = [&](const Session::FeedList& feeds,
                          const std::vector<std::string>& fetches,
                          const std::string& prior_feed,
                          const std::string& want) {
    std::string h;
    ASSERT_TRUE(session->PRunSetup({"a", "b"}, {"c", "d"}, {}, &h).ok());
    if (!prior_feed.empty()) {
      ASSERT_TRUE(session
                      ->PRun(h, {{prior_feed, Tensor::Scalar<float>(1)}},
                             prior_feed == "a" ? std::vector<std::string>{"c"}
                                               : std::vector<std::string>{},
                             &out)
                      .ok());
    }
    absl::Status st = session->PRun(h, feeds, fetches, &out);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
    EXPECT_NE(st.message().find(want), std::string::npos) << st;
    // State freed on the first error.
    EXPECT_EQ(ds->num_partial_runs(), 0u);
  };
  // Feed not declared at setup.
  expect_error({{"c", Tensor::Scalar<float>(1)}}, {}, "", "was not specified");
  // Fetch not declared at setup.
  expect_error({{"a", Tensor::Scalar<float>(1)}}, {"a"}, "",
               "was not specified");
  // Fed twice.
  expect_error({{"a", Tensor::Scalar<float>(1)}}, {}, "a", "already been fed");
  // Fetched twice.
  expect_error({{"b", Tensor::Scalar<float>(1)}}, {"c"}, "a",
               "already been fetched");
  // Fetch not computable from the feeds so far.
  expect_error({{"a", Tensor::Scalar<float>(1)}}, {"d"}, "",
               "can't be computed");
}

TEST_F(DirectSessionTest, Callables) {
  auto session = NewLocalSession();
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  CallableOptions co;
  co.add_feed("x");
  co.add_fetch("w");
  co.add_fetch("z");
  Session::CallableHandle h1, h2;
  ASSERT_TRUE(session->MakeCallable(co, &h1).ok());
  ASSERT_TRUE(session->MakeCallable(co, &h2).ok());
  EXPECT_NE(h1, h2);
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->RunCallable(h1, {Tensor::Scalar<float>(1)}, &out, nullptr).ok());
  EXPECT_EQ(out[0].scalar<float>(), 9.0f);
  EXPECT_EQ(out[1].scalar<float>(), 3.0f);
  EXPECT_EQ(session->RunCallable(h1, {}, &out, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(session->ReleaseCallable(h1).ok());
  EXPECT_EQ(session->RunCallable(h1, {Tensor::Scalar<float>(1)}, &out, nullptr)
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session->ReleaseCallable(h1).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session->ReleaseCallable(12345).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      session->RunCallable(h2, {Tensor::Scalar<float>(2)}, &out, nullptr).ok());
  EXPECT_EQ(out[1].scalar<float>(), 4.0f);
}

TEST_F(DirectSessionTest, BadGraphsAreCleanErrors) {
  struct Case {
    std::string text;
    absl::StatusCode code;
    std::string names;
  };
  const std::vector<Case> cases = {
      {ConstFloatNode("a", 1) + ConstFloatNode("a", 2),
       absl::StatusCode::kInvalidArgument, "a"},
      {Binary("AddV2", "s", "ghost", "ghost"),
       absl::StatusCode::kInvalidArgument, "ghost"},
      {"node { name: 'u' op: 'NoSuchOp' }", absl::StatusCode::kNotFound,
       "NoSuchOp"},
      {Binary("AddV2", "p", "q", "q") + Binary("AddV2", "q", "p", "p"),
       absl::StatusCode::kInvalidArgument, "cycle"},
      {"node { name: 'bad name!' op: 'NoOp' }",
       absl::StatusCode::kInvalidArgument, "bad name!"},
      {"node { name: 'r' op: '_Retval' }", absl::StatusCode::kInvalidArgument,
       "r"},
  };
  for (const Case& c : cases) {
    auto session = NewLocalSession();
    GraphDef g;
    ASSERT_TRUE(ParseGraphDefFromText(c.text, &g).ok()) << c.text;
    absl::Status s = session->Create(g);
    EXPECT_EQ(s.code(), c.code) << c.text << " -> " << s;
    EXPECT_NE(s.message().find(c.names), std::string::npos) << s;
  }
}

TEST_F(DirectSessionTest, ResetOnEmptyContainersIsOk) {
  auto session = NewLocalSession(2);
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  EXPECT_TRUE(session->Reset({}).ok());
  EXPECT_TRUE(session->Reset({"c1", "c2"}).ok());
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(session->Reset({}).code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace stepflow
