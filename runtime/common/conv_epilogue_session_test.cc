// Convolution epilogue fusion in a DirectSession: with remapping on (the
// default) a convolution's Mul / bias add / Relu / Relu6 followers run as
// one fused kernel, and every fetched value is bit for bit the value of the
// unfused graph (remapping OFF), NaN, infinities and negative zeros
// included; a fetched intermediate keeps its node.
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/common/session.h"
#include "runtime/common/session_factory.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/conv_graph_test_util.h"

namespace stepflow {
namespace {

Tensor Random(const std::vector<int64_t>& dims, std::mt19937* rng) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  std::normal_distribution<float> dist(0.0f, 2.0f);
  float* p = t.base<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = dist(*rng);
  return t;
}

using Model = test::ConvGraphDef;

struct Result {
  std::vector<Tensor> values;
  std::vector<std::string> ops;  // of the partition graphs' nodes
};

Result RunModel(const GraphDef& def, bool remapping, int threads,
                const Tensor& x, const std::vector<std::string>& fetches) {
  std::unique_ptr<RealEnv> env = RealEnv::Create(threads);
  SessionOptions options;
  options.env = env->env();
  options.config.set_intra_op_parallelism_threads(threads);
  if (!remapping) {
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_remapping(RewriterConfig::OFF);
  }
  std::unique_ptr<Session> session;
  Result r;
  absl::Status s = NewSession(options, &session);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return r;
  s = session->Create(def);
  EXPECT_TRUE(s.ok()) << s;
  RunOptions ro;
  ro.set_output_partition_graphs(true);
  RunMetadata md;
  s = session->Run(ro, {{"x", x}}, fetches, {}, &r.values, &md);
  EXPECT_TRUE(s.ok()) << s;
  for (const GraphDef& p : md.partition_graphs()) {
    for (const NodeDef& n : p.node()) r.ops.push_back(n.op());
  }
  EXPECT_TRUE(session->Close().ok());
  return r;
}

int Count(const std::vector<std::string>& ops, const std::string& op) {
  int n = 0;
  for (const std::string& o : ops) n += o == op;
  return n;
}

void ExpectSameBits(const Result& fused, const Result& plain) {
  ASSERT_EQ(fused.values.size(), plain.values.size());
  for (size_t i = 0; i < fused.values.size(); ++i) {
    const Tensor& a = fused.values[i];
    const Tensor& b = plain.values[i];
    ASSERT_EQ(a.shape(), b.shape()) << "fetch " << i;
    EXPECT_EQ(std::memcmp(a.base<float>(), b.base<float>(),
                          sizeof(float) * a.NumElements()),
              0)
        << "fetch " << i << " differs";
  }
}

// x with a few special values among normal ones.
Tensor Input(const std::vector<int64_t>& dims, std::mt19937* rng) {
  Tensor x = Random(dims, rng);
  float* p = x.base<float>();
  p[0] = std::numeric_limits<float>::quiet_NaN();
  p[7] = std::numeric_limits<float>::infinity();
  p[13] = -0.0f;
  p[x.NumElements() - 1] = -std::numeric_limits<float>::infinity();
  return x;
}

TEST(ConvEpilogueSessionTest, KerasBlocksMatchTheUnfusedGraphBitForBit) {
  std::mt19937 rng(7);
  Model g;
  g.Placeholder("x");  // [3, 17, 17, 8]
  // Block 1: 3x3 stride 1 SAME, batch norm as Mul + AddV2 (the scale
  // reshaped to [1, 1, 1, C] as Keras does), Relu6.
  g.Const("w1", Random({3, 3, 8, 16}, &rng));
  g.Const("s1", Random({1, 1, 1, 16}, &rng));
  g.Const("b1", Random({16}, &rng));
  g.Conv("c1", "Conv2D", "x", "w1", 1, "SAME");
  g.Add("m1", "Mul", {"c1", "s1"});
  g.Add("a1", "AddV2", {"m1", "b1"});
  g.Add("r1", "Relu6", {"a1"});
  // Block 2: depthwise 3x3 stride 2 VALID, BiasAdd, Relu.
  g.Const("w2", Random({3, 3, 16, 1}, &rng));
  g.Const("b2", Random({16}, &rng));
  g.Conv("c2", "DepthwiseConv2dNative", "r1", "w2", 2, "VALID");
  g.Add("a2", "BiasAdd", {"c2", "b2"});
  g.Add("r2", "Relu", {"a2"});
  // Block 3: pointwise, scale on the left, Add.
  g.Const("w3", Random({1, 1, 16, 24}, &rng));
  g.Const("s3", Random({24}, &rng));
  g.Const("b3", Random({24}, &rng));
  g.Conv("c3", "Conv2D", "r2", "w3", 1, "VALID");
  g.Add("m3", "Mul", {"s3", "c3"});
  g.Add("a3", "Add", {"b3", "m3"});
  // Block 4: grouped convolution (24 channels in, filter of 12: 2 groups).
  g.Const("w4", Random({3, 3, 12, 8}, &rng));
  g.Const("s4", Random({8}, &rng));
  g.Conv("c4", "Conv2D", "a3", "w4", 1, "SAME");
  g.Add("m4", "Mul", {"c4", "s4"});
  g.Add("r4", "Relu6", {"m4"});
  // Block 5: depthwise with a channel multiplier (the generic loop).
  g.Const("w5", Random({3, 3, 8, 2}, &rng));
  g.Const("b5", Random({16}, &rng));
  g.Conv("c5", "DepthwiseConv2dNative", "r4", "w5", 1, "SAME");
  g.Add("a5", "BiasAdd", {"c5", "b5"});
  g.Add("r5", "Relu6", {"a5"});

  const Tensor x = Input({3, 17, 17, 8}, &rng);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    Result fused =
        RunModel(g.def(), true, threads, x, {"r1", "r2", "a3", "r5"});
    Result plain =
        RunModel(g.def(), false, threads, x, {"r1", "r2", "a3", "r5"});
    ExpectSameBits(fused, plain);
    EXPECT_EQ(Count(fused.ops, "_Conv2DWithEpilogue"), 3);
    EXPECT_EQ(Count(fused.ops, "_DepthwiseConv2dNativeWithEpilogue"), 2);
    EXPECT_EQ(Count(fused.ops, "Mul"), 0);
    EXPECT_EQ(Count(plain.ops, "_Conv2DWithEpilogue"), 0);
    EXPECT_EQ(Count(plain.ops, "Mul"), 3);
    // The values are not trivially equal: some are clipped, some not.
    const Tensor& r1 = fused.values[0];
    int clipped = 0, inside = 0;
    for (int64_t i = 0; i < r1.NumElements(); ++i) {
      const float v = r1.base<float>()[i];
      clipped += v == 0.0f || v == 6.0f;
      inside += v > 0.0f && v < 6.0f;
    }
    EXPECT_GT(clipped, 0);
    EXPECT_GT(inside, 0);
  }
}

TEST(ConvEpilogueSessionTest, AFetchedIntermediateKeepsItsNode) {
  std::mt19937 rng(11);
  Model g;
  g.Placeholder("x");
  g.Const("w", Random({3, 3, 4, 4}, &rng));
  g.Const("s", Random({4}, &rng));
  g.Const("b", Random({4}, &rng));
  g.Conv("c", "Conv2D", "x", "w", 1, "SAME");
  g.Add("m", "Mul", {"c", "s"});
  g.Add("a", "AddV2", {"m", "b"});
  g.Add("r", "Relu", {"a"});
  const Tensor x = Input({2, 6, 6, 4}, &rng);
  Result fused = RunModel(g.def(), true, 1, x, {"m", "r"});
  Result plain = RunModel(g.def(), false, 1, x, {"m", "r"});
  ExpectSameBits(fused, plain);
  // c + m fuse; m is fetched, so a and r stay.
  EXPECT_EQ(Count(fused.ops, "_Conv2DWithEpilogue"), 1);
  EXPECT_EQ(Count(fused.ops, "AddV2"), 1);
  EXPECT_EQ(Count(fused.ops, "Relu"), 1);
}

}  // namespace
}  // namespace stepflow
