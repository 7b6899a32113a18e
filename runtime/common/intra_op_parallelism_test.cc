// ConfigProto.intra_op_parallelism_threads in a DirectSession: it bounds
// how many blocks a kernel's work is cut into (0: the Env Scheduler's
// thread count), on the Env's own threads, without changing any value.
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/graph.pb.h"
#include "runtime/common/session.h"
#include "runtime/common/test_graph_builders.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

constexpr int64_t kProbeUnits = 64;

// Output[u] = the first unit of the block unit u ran in, for kProbeUnits
// units each as costly as a whole block may be: the number of distinct
// values is the number of blocks the kernel's work was cut into.
REGISTER_OP("TestIntraOpBlocks").Output("block_begin: int64").SetIsStateful();

class IntraOpBlocksOp : public ShardedOpKernel {
 public:
  using ShardedOpKernel::ShardedOpKernel;

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({kProbeUnits}), &out));
    int64_t* begins = out->flat<int64_t>().data();
    work->units = kProbeUnits;
    work->cost_per_unit = kMinBlockCost;
    work->fn = [begins](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) begins[u] = begin;
    };
  }
};
REGISTER_KERNEL_BUILDER(Name("TestIntraOpBlocks").Device(DEVICE_CPU),
                        IntraOpBlocksOp);

constexpr int kSchedulerThreads = 4;

// The probe, and a depthwise convolution (split by output rows) with its
// input gradient (split by input rows) of fed float tensors.
GraphDef TestGraph() {
  using test_graph::AddNode;
  GraphDef g;
  AddNode(&g, "blocks", "TestIntraOpBlocks", {});
  for (const char* name : {"x", "filter", "dy"}) {
    AddNodeAttr("dtype", DT_FLOAT, AddNode(&g, name, "Placeholder", {}));
  }
  Tensor sizes(DT_INT32, TensorShape({4}));
  const int32_t dims[] = {4, 48, 48, 64};
  for (int i = 0; i < 4; ++i) sizes.flat<int32_t>()(i) = dims[i];
  test_graph::AddConst(&g, "sizes", sizes, {});
  NodeDef* conv = test_graph::AddTyped(&g, "conv", "DepthwiseConv2dNative",
                                       {"x", "filter"}, DT_FLOAT);
  NodeDef* grad =
      test_graph::AddTyped(&g, "grad", "DepthwiseConv2dNativeBackpropInput",
                           {"sizes", "filter", "dy"}, DT_FLOAT);
  for (NodeDef* n : {conv, grad}) {
    AddNodeAttr("strides", std::vector<int64_t>{1, 1, 1, 1}, n);
    AddNodeAttr("padding", "SAME", n);
  }
  return g;
}

Tensor RandomTensor(const TensorShape& shape, uint32_t seed) {
  Tensor t(DT_FLOAT, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float* p = t.flat<float>().data();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = u(rng);
  return t;
}

struct Outcome {
  int blocks = 0;
  std::vector<Tensor> values;  // conv, grad
};

// Runs the test graph in a session with `intra_op_threads` on an Env of
// kSchedulerThreads threads.
Outcome RunWith(int intra_op_threads) {
  std::unique_ptr<RealEnv> env = RealEnv::Create(kSchedulerThreads);
  SessionOptions options;
  options.env = env->env();
  options.config.set_intra_op_parallelism_threads(intra_op_threads);
  std::unique_ptr<Session> session;
  Outcome outcome;
  absl::Status s = NewSession(options, &session);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return outcome;
  s = session->Create(TestGraph());
  EXPECT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session->Run({{"x", RandomTensor(TensorShape({4, 48, 48, 64}), 1)},
                    {"filter", RandomTensor(TensorShape({3, 3, 64, 1}), 2)},
                    {"dy", RandomTensor(TensorShape({4, 48, 48, 64}), 3)}},
                   {"blocks", "conv", "grad"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(session->Close().ok());
  if (!s.ok()) return outcome;
  std::set<int64_t> begins;
  for (int64_t u = 0; u < kProbeUnits; ++u) {
    begins.insert(out[0].flat<int64_t>()(u));
  }
  outcome.blocks = static_cast<int>(begins.size());
  outcome.values = {out[1], out[2]};
  return outcome;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.flat<float>().data(), b.flat<float>().data(),
                     a.NumElements() * sizeof(float)) == 0;
}

TEST(IntraOpParallelismTest, BlockCountFollowsTheOption) {
  EXPECT_EQ(RunWith(1).blocks, 1);
  EXPECT_EQ(RunWith(2).blocks, 2);
  EXPECT_EQ(RunWith(3).blocks, 3);
  // More than the Env's threads: that many blocks, queued on its threads.
  EXPECT_EQ(RunWith(6).blocks, 6);
}

TEST(IntraOpParallelismTest, ZeroMeansTheEnvThreadCount) {
  EXPECT_EQ(RunWith(0).blocks, kSchedulerThreads);
}

TEST(IntraOpParallelismTest, ValuesDoNotDependOnTheOption) {
  const Outcome one = RunWith(1);
  ASSERT_EQ(one.values.size(), 2u);
  for (int threads : {2, 4, 6}) {
    const Outcome n = RunWith(threads);
    ASSERT_EQ(n.values.size(), 2u);
    EXPECT_TRUE(SameBits(one.values[0], n.values[0])) << threads;
    EXPECT_TRUE(SameBits(one.values[1], n.values[1])) << threads;
  }
}

TEST(IntraOpParallelismTest, NegativeIsInvalidArgument) {
  std::unique_ptr<RealEnv> env = RealEnv::Create(1);
  SessionOptions options;
  options.env = env->env();
  options.config.set_intra_op_parallelism_threads(-1);
  std::unique_ptr<Session> session;
  EXPECT_EQ(NewSession(options, &session).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
