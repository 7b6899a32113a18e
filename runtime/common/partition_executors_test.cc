#include "runtime/common/partition_executors.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/op_segment.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace {

REGISTER_OP("OpSegmentTestStateful").Output("out: float").SetIsStateful();
REGISTER_OP("OpSegmentTestStateless").Output("out: float");
REGISTER_OP("_OpSegmentTestInternal").Output("out: float").SetIsStateful();
REGISTER_OP("OpSegmentTestNoKernel").Output("out: float").SetIsStateful();

absl::Mutex g_mu;
int g_constructed = 0;

int Constructed() {
  absl::MutexLock l(&g_mu);
  return g_constructed;
}

// Outputs 1; counts its constructions.
class CountedOp : public OpKernel {
 public:
  explicit CountedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::MutexLock l(&g_mu);
    ++g_constructed;
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<float>() = 1;
  }
};
REGISTER_KERNEL_BUILDER(Name("OpSegmentTestStateful").Device(DEVICE_CPU),
                        CountedOp);
REGISTER_KERNEL_BUILDER(Name("OpSegmentTestStateless").Device(DEVICE_CPU),
                        CountedOp);
REGISTER_KERNEL_BUILDER(Name("_OpSegmentTestInternal").Device(DEVICE_CPU),
                        CountedOp);

constexpr char kTask[] = "/job:localhost/replica:0/task:0";

NodeDef MakeNode(const std::string& name, const std::string& op,
                 const std::string& device = "") {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  def.set_device(device);
  return def;
}

class PartitionExecutorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    real_ = RealEnv::Create(2);
    std::vector<std::unique_ptr<Device>> devices;
    ASSERT_TRUE(AddCpuDevices(real_->env(), 2, kTask, &devices).ok());
    device_mgr_ = std::make_unique<DeviceMgr>(std::move(devices));
    ASSERT_TRUE(device_mgr_->LookupDevice(Cpu(0), &cpu0_).ok());
    ASSERT_TRUE(device_mgr_->LookupDevice(Cpu(1), &cpu1_).ok());
  }

  static std::string Cpu(int i) {
    return std::string(kTask) + "/device:CPU:" + std::to_string(i);
  }

  // A placed graph: one node per (name, op, device).
  std::unique_ptr<Graph> PlacedGraph(const std::vector<NodeDef>& nodes) {
    GraphDef def;
    for (const NodeDef& n : nodes) *def.add_node() = n;
    auto graph = std::make_unique<Graph>();
    GraphConstructorOptions opts;
    opts.expect_device_spec = true;
    absl::Status s = ConvertGraphDefToGraph(opts, def, graph.get());
    EXPECT_TRUE(s.ok()) << s;
    return graph;
  }

  PartitionExecutorsOptions Options(OpSegment* segment) {
    PartitionExecutorsOptions opts;
    opts.env = real_->env();
    opts.device_mgr = device_mgr_.get();
    opts.op_segment = segment;
    return opts;
  }

  std::unique_ptr<RealEnv> real_;
  std::unique_ptr<DeviceMgr> device_mgr_;
  Device* cpu0_ = nullptr;
  Device* cpu1_ = nullptr;
};

TEST(OpSegmentTest, SharesOnlyRegisteredStatefulUserOps) {
  EXPECT_TRUE(OpSegment::ShouldShare(MakeNode("a", "OpSegmentTestStateful")));
  EXPECT_FALSE(OpSegment::ShouldShare(MakeNode("a", "OpSegmentTestStateless")));
  EXPECT_FALSE(OpSegment::ShouldShare(MakeNode("a", "_OpSegmentTestInternal")));
  EXPECT_FALSE(OpSegment::ShouldShare(MakeNode("a", "NoSuchOpAnywhere")));
  EXPECT_FALSE(OpSegment::ShouldShare(MakeNode("a", "")));
}

TEST_F(PartitionExecutorsTest, OpSegmentReusesAStatefulKernelPerDevice) {
  OpSegment segment;
  const NodeDef def = MakeNode("rng", "OpSegmentTestStateful");
  std::shared_ptr<OpKernel> first, again, other_device;
  ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &first).ok());
  ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &again).ok());
  EXPECT_EQ(first, again);
  ASSERT_TRUE(segment.GetOrCreateKernel(cpu1_, def, &other_device).ok());
  EXPECT_NE(first, other_device);
  EXPECT_EQ(segment.size(), 2u);
}

TEST_F(PartitionExecutorsTest, OpSegmentGivesAChangedNodeDefAPrivateKernel) {
  OpSegment segment;
  NodeDef def = MakeNode("rng", "OpSegmentTestStateful");
  std::shared_ptr<OpKernel> shared, changed, shared_again;
  ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &shared).ok());
  AddNodeAttr("_note", "changed", &def);
  ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &changed).ok());
  EXPECT_NE(shared, changed);
  def.mutable_attr()->erase("_note");
  ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &shared_again).ok());
  EXPECT_EQ(shared, shared_again);
}

TEST_F(PartitionExecutorsTest, OpSegmentMakesOtherKernelsEveryTime) {
  OpSegment segment;
  for (const char* op : {"OpSegmentTestStateless", "_OpSegmentTestInternal"}) {
    const NodeDef def = MakeNode("n", op);
    std::shared_ptr<OpKernel> a, b;
    ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &a).ok());
    ASSERT_TRUE(segment.GetOrCreateKernel(cpu0_, def, &b).ok());
    EXPECT_NE(a, b) << op;
  }
  EXPECT_EQ(segment.size(), 0u);
}

TEST_F(PartitionExecutorsTest, OpSegmentErrorNamesTheNodeAndStoresNothing) {
  OpSegment segment;
  std::shared_ptr<OpKernel> kernel;
  const absl::Status s = segment.GetOrCreateKernel(
      cpu0_, MakeNode("lonely", "OpSegmentTestNoKernel"), &kernel);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node lonely}}")) << s;
  EXPECT_EQ(kernel, nullptr);
  EXPECT_EQ(segment.size(), 0u);
}

TEST_F(PartitionExecutorsTest, OneExecutorPerDeviceInNameOrder) {
  OpSegment segment;
  PartitionExecutorsOptions opts = Options(&segment);
  std::unique_ptr<Graph> graph =
      PlacedGraph({MakeNode("b", "OpSegmentTestStateless", Cpu(1)),
                   MakeNode("a", "OpSegmentTestStateless", Cpu(0))});
  std::vector<PartitionExecutor> executors;
  absl::Status s = BuildPartitionExecutors(opts, std::move(graph), &executors);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(executors.size(), 2u);
  EXPECT_EQ(executors[0].device, cpu0_);
  EXPECT_EQ(executors[1].device, cpu1_);
  EXPECT_NE(executors[0].executor, nullptr);
  GraphDef first, second;
  executors[0].graph->ToGraphDef(&first);
  executors[1].graph->ToGraphDef(&second);
  ASSERT_EQ(first.node_size(), 1);
  EXPECT_EQ(first.node(0).name(), "a");
  EXPECT_EQ(second.node(0).name(), "b");
}

TEST_F(PartitionExecutorsTest, AOneDeviceGraphIsItsOwnPartition) {
  std::unique_ptr<Graph> graph =
      PlacedGraph({MakeNode("a", "OpSegmentTestStateless", Cpu(1)),
                   MakeNode("b", "OpSegmentTestStateless", Cpu(1))});
  const Graph* before = graph.get();
  std::vector<PartitionExecutor> executors;
  absl::Status s =
      BuildPartitionExecutors(Options(nullptr), std::move(graph), &executors);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(executors.size(), 1u);
  EXPECT_EQ(executors[0].device, cpu1_);
  // No GraphDef round trip: the executor runs the graph it was given.
  EXPECT_EQ(executors[0].graph, before);
  GraphDef def;
  executors[0].graph->ToGraphDef(&def);
  ASSERT_EQ(def.node_size(), 2);
  EXPECT_EQ(def.node(0).device(), Cpu(1));
}

TEST_F(PartitionExecutorsTest, AMostlyRemovedGraphIsImportedAgainDensely) {
  std::vector<NodeDef> nodes;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(
        MakeNode(absl::StrCat("n", i), "OpSegmentTestStateless", Cpu(0)));
  }
  std::unique_ptr<Graph> graph = PlacedGraph(nodes);
  for (int i = 1; i < 8; ++i) {
    graph->RemoveNode(graph->FindNodeByName(absl::StrCat("n", i)));
  }
  ASSERT_EQ(graph->num_node_ids(), 10);
  std::vector<PartitionExecutor> executors;
  absl::Status s =
      BuildPartitionExecutors(Options(nullptr), std::move(graph), &executors);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(executors.size(), 1u);
  // SOURCE, SINK and n0, renumbered by the partition's import.
  EXPECT_EQ(executors[0].graph->num_node_ids(), 3);
  EXPECT_NE(executors[0].graph->FindNodeByName("n0"), nullptr);
}

TEST_F(PartitionExecutorsTest, StatefulKernelsAreSharedAcrossBuilds) {
  OpSegment segment;
  const int before = Constructed();
  for (int build = 0; build < 3; ++build) {
    std::unique_ptr<Graph> graph =
        PlacedGraph({MakeNode("rng", "OpSegmentTestStateful", Cpu(0))});
    std::vector<PartitionExecutor> executors;
    ASSERT_TRUE(
        BuildPartitionExecutors(Options(&segment), std::move(graph), &executors)
            .ok());
  }
  EXPECT_EQ(Constructed() - before, 1);
}

TEST_F(PartitionExecutorsTest, WithoutAnOpSegmentEveryKernelIsPrivate) {
  const int before = Constructed();
  for (int build = 0; build < 2; ++build) {
    std::unique_ptr<Graph> graph =
        PlacedGraph({MakeNode("rng", "OpSegmentTestStateful", Cpu(0))});
    std::vector<PartitionExecutor> executors;
    ASSERT_TRUE(
        BuildPartitionExecutors(Options(nullptr), std::move(graph), &executors)
            .ok());
  }
  EXPECT_EQ(Constructed() - before, 2);
}

TEST_F(PartitionExecutorsTest, UnknownDeviceIsAnError) {
  std::unique_ptr<Graph> graph = PlacedGraph({MakeNode(
      "a", "OpSegmentTestStateless", std::string(kTask) + "/device:CPU:7")});
  std::vector<PartitionExecutor> executors;
  EXPECT_FALSE(
      BuildPartitionExecutors(Options(nullptr), std::move(graph), &executors)
          .ok());
}

TEST_F(PartitionExecutorsTest, KernelErrorNamesTheNode) {
  std::unique_ptr<Graph> graph =
      PlacedGraph({MakeNode("broken", "OpSegmentTestNoKernel", Cpu(0))});
  std::vector<PartitionExecutor> executors;
  OpSegment segment;
  const absl::Status s =
      BuildPartitionExecutors(Options(&segment), std::move(graph), &executors);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node broken}}")) << s;
}

}  // namespace
}  // namespace stepflow
