// A 784-256-256-10 MLP training graph written with TensorFlow 1.x's op
// vocabulary (testing/mlp_graph.h: VariableV2 + seeded TruncatedNormal /
// RandomUniform initializers, softmax cross-entropy, tf.gradients' ops,
// ApplyGradientDescent grouped under a NoOp) through DirectSession:
// 100 SGD steps on a fixed batch cut the loss at least tenfold, and the
// gradient ops the optimizer consumes agree with central finite
// differences of the loss on sampled coordinates of every variable.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "testing/mlp_graph.h"

namespace stepflow {
namespace {

class MlpTrainingTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(2); }

  std::unique_ptr<Session> NewSessionWith(const GraphDef& graph) {
    SessionOptions opts;
    opts.env = env_->env();
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return nullptr;
    s = session->Create(graph);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? std::move(session) : nullptr;
  }

  std::unique_ptr<RealEnv> env_;
};

double ScalarAsDouble(const Tensor& t) {
  return t.dtype() == DT_DOUBLE ? t.scalar<double>()
                                : static_cast<double>(t.scalar<float>());
}

TEST(MlpGraphTest, RejectsBadOptions) {
  MlpGraph g;
  MlpOptions o;
  o.layer_sizes = {784};
  EXPECT_EQ(BuildMlpGraph(o, &g).code(), absl::StatusCode::kInvalidArgument);
  o.layer_sizes = {784, 0, 10};
  EXPECT_EQ(BuildMlpGraph(o, &g).code(), absl::StatusCode::kInvalidArgument);
  o.layer_sizes = {784, 10};
  o.batch = 0;
  EXPECT_EQ(BuildMlpGraph(o, &g).code(), absl::StatusCode::kInvalidArgument);
  o.batch = 4;
  o.dtype = DT_INT32;
  EXPECT_EQ(BuildMlpGraph(o, &g).code(), absl::StatusCode::kInvalidArgument);
  o.dtype = DT_FLOAT;
  EXPECT_TRUE(BuildMlpGraph(o, &g).ok());
}

// The graph speaks the optimizer's vocabulary: the ops TensorFlow 1.x
// writes for an MLP training graph, with the MatMul transposes.
TEST(MlpGraphTest, UsesTheOpsTensorFlowEmits) {
  MlpGraph g;
  ASSERT_TRUE(BuildMlpGraph(MlpOptions(), &g).ok());
  std::map<std::string, int> ops;
  int transpose_a = 0, transpose_b = 0;
  std::set<std::string> names;
  for (const NodeDef& n : g.graph.node()) {
    EXPECT_TRUE(names.insert(n.name()).second) << "duplicate " << n.name();
    ++ops[n.op()];
    bool t = false;
    if (n.op() == "MatMul") {
      ASSERT_TRUE(GetNodeAttr(n, "transpose_a", &t).ok());
      transpose_a += t;
      ASSERT_TRUE(GetNodeAttr(n, "transpose_b", &t).ok());
      transpose_b += t;
    }
    if (n.op() == "TruncatedNormal" || n.op() == "RandomUniform") {
      int64_t seed = 0, seed2 = 0;
      ASSERT_TRUE(GetNodeAttr(n, "seed", &seed).ok());
      ASSERT_TRUE(GetNodeAttr(n, "seed2", &seed2).ok());
      EXPECT_NE(seed2, 0) << n.name();
      EXPECT_NE(seed, 0) << n.name();
    }
  }
  EXPECT_EQ(ops["VariableV2"], 6);
  EXPECT_EQ(ops["ApplyGradientDescent"], 6);
  EXPECT_EQ(ops["TruncatedNormal"], 3);
  EXPECT_EQ(ops["RandomUniform"], 3);
  EXPECT_EQ(ops["MatMul"], 9);  // 3 forward + 2 per layer backward.
  EXPECT_EQ(transpose_a, 3);
  EXPECT_EQ(transpose_b, 3);
  EXPECT_EQ(ops["BiasAdd"], 2);
  EXPECT_EQ(ops["BiasAddGrad"], 2);
  EXPECT_EQ(ops["AddV2"], 1);
  EXPECT_EQ(ops["BroadcastGradientArgs"], 1);
  EXPECT_EQ(ops["ReluGrad"], 2);
  EXPECT_EQ(ops["SoftmaxCrossEntropyWithLogits"], 1);
  EXPECT_EQ(ops["Mean"], 1);
  EXPECT_EQ(ops["Sum"], 2);
  EXPECT_EQ(ops["Reshape"], 8);
  EXPECT_EQ(ops["Tile"], 1);
  EXPECT_EQ(ops["StopGradient"], 1);
  EXPECT_EQ(ops["NoOp"], 2 + 7);  // train, init, one group_deps per tuple.
  EXPECT_EQ(g.params.size(), 6u);
  for (const MlpParam& p : g.params) {
    EXPECT_FALSE(p.gradient.empty()) << p.variable;
  }
}

TEST_F(MlpTrainingTest, HundredSgdStepsCutTheLossTenfold) {
  MlpOptions o;  // 784-256-256-10, batch 64, float.
  MlpGraph g;
  ASSERT_TRUE(BuildMlpGraph(o, &g).ok());
  const MlpBatch batch = MakeMlpBatch(o, 2024);
  const Session::FeedList feeds = {{g.input, batch.x},
                                   {g.labels, batch.labels}};
  auto session = NewSessionWith(g.graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {}, {g.init}, &out);
  ASSERT_TRUE(s.ok()) << s;

  // Seeded initializers: a second session starts from the same bits.
  auto again = NewSessionWith(g.graph);
  ASSERT_NE(again, nullptr);
  ASSERT_TRUE(again->Run({}, {}, {g.init}, &out).ok());
  std::vector<Tensor> first, second;
  ASSERT_TRUE(session->Run({}, {"w1", "b3"}, {}, &first).ok());
  ASSERT_TRUE(again->Run({}, {"w1", "b3"}, {}, &second).ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(first[i].NumElements(), second[i].NumElements());
    EXPECT_EQ(0, std::memcmp(first[i].raw_data(), second[i].raw_data(),
                             first[i].NumElements() * sizeof(float)));
  }
  // Truncated normal within two standard deviations (1/sqrt(784)).
  const float bound = 2.0f / 28.0f;
  float max_abs = 0;
  for (int64_t i = 0; i < first[0].NumElements(); ++i) {
    max_abs = std::max(max_abs, std::fabs(first[0].base<float>()[i]));
  }
  EXPECT_LE(max_abs, bound * 1.0001f);
  EXPECT_GT(max_abs, bound * 0.9f);

  s = session->Run(feeds, {g.loss}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  const double initial = ScalarAsDouble(out[0]);
  EXPECT_GT(initial, 1.0);  // About ln(10) before training.
  for (int step = 0; step < 100; ++step) {
    s = session->Run(feeds, {}, {g.train}, &out);
    ASSERT_TRUE(s.ok()) << "step " << step << ": " << s;
  }
  s = session->Run(feeds, {g.loss}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  const double final_loss = ScalarAsDouble(out[0]);
  EXPECT_LE(final_loss, 0.1 * initial) << initial << " -> " << final_loss;
  RecordProperty("initial_loss", absl::StrCat(initial));
  RecordProperty("final_loss", absl::StrCat(final_loss));
  // The untouched second session still has the initial loss.
  ASSERT_TRUE(again->Run(feeds, {g.loss}, {}, &out).ok());
  EXPECT_EQ(ScalarAsDouble(out[0]), initial);
}

// The tensors ApplyGradientDescent consumes are d loss / d variable: on a
// few coordinates of every variable (the largest gradients and some
// seeded picks) they match (L(v + h) - L(v - h)) / 2h, the perturbed
// value loaded as Variable.load() does (feed the initializer's output,
// run the Assign).
TEST_F(MlpTrainingTest, GradientOpsMatchFiniteDifferences) {
  MlpOptions o;
  o.dtype = DT_DOUBLE;
  MlpGraph g;
  ASSERT_TRUE(BuildMlpGraph(o, &g).ok());
  const MlpBatch batch = MakeMlpBatch(o, 7);
  const Session::FeedList feeds = {{g.input, batch.x},
                                   {g.labels, batch.labels}};
  auto session = NewSessionWith(g.graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {g.init}, &out).ok());
  // A few steps first, so the check is not only at the initial point.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(session->Run(feeds, {}, {g.train}, &out).ok());
  }

  std::vector<std::string> fetches;
  for (const MlpParam& p : g.params) fetches.push_back(p.variable);
  for (const MlpParam& p : g.params) fetches.push_back(p.gradient);
  absl::Status s = session->Run(feeds, fetches, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  const size_t np = g.params.size();
  // A fetched variable shares the variable's buffer (as in TensorFlow's
  // C++ API), and Assign writes into it in place: keep private copies.
  std::vector<Tensor> values, grads;
  for (size_t i = 0; i < np; ++i) values.push_back(out[i].DeepCopy());
  for (size_t i = np; i < out.size(); ++i) grads.push_back(out[i].DeepCopy());

  auto load = [&](size_t p, const Tensor& v) {
    std::vector<Tensor> unused;
    absl::Status st = session->Run({{g.params[p].initial_value, v}}, {},
                                   {g.params[p].assign}, &unused);
    EXPECT_TRUE(st.ok()) << st;
  };
  auto loss = [&]() {
    std::vector<Tensor> l;
    absl::Status st = session->Run(feeds, {g.loss}, {}, &l);
    EXPECT_TRUE(st.ok()) << st;
    return st.ok() ? l[0].scalar<double>() : NAN;
  };

  const double h = 1e-5;
  uint64_t pick = 12345;
  int checked = 0;
  for (size_t p = 0; p < np; ++p) {
    SCOPED_TRACE(g.params[p].variable);
    const Tensor& grad = grads[p];
    ASSERT_EQ(grad.shape(), values[p].shape());
    const int64_t n = grad.NumElements();
    // The three largest |gradient| coordinates and three seeded ones.
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    std::partial_sort(order.begin(), order.begin() + std::min<int64_t>(3, n),
                      order.end(), [&](int64_t a, int64_t b) {
                        return std::fabs(grad.base<double>()[a]) >
                                   std::fabs(grad.base<double>()[b]) ||
                               (std::fabs(grad.base<double>()[a]) ==
                                    std::fabs(grad.base<double>()[b]) &&
                                a < b);
                      });
    std::vector<int64_t> coords(order.begin(),
                                order.begin() + std::min<int64_t>(3, n));
    for (int k = 0; k < 3; ++k) {
      pick = pick * 6364136223846793005ULL + 1442695040888963407ULL;
      coords.push_back(static_cast<int64_t>((pick >> 33) % n));
    }
    EXPECT_GT(std::fabs(grad.base<double>()[coords[0]]), 1e-6);
    for (int64_t i : coords) {
      Tensor v = values[p].DeepCopy();
      const double saved = v.base<double>()[i];
      v.base<double>()[i] = saved + h;
      load(p, v);
      const double up = loss();
      v.base<double>()[i] = saved - h;
      load(p, v);
      const double down = loss();
      const double numeric = (up - down) / (2 * h);
      const double analytic = grad.base<double>()[i];
      EXPECT_NEAR(analytic, numeric, 1e-7 + 1e-4 * std::fabs(numeric))
          << "coordinate " << i;
      ++checked;
    }
    load(p, values[p]);  // Restore.
  }
  EXPECT_EQ(checked, 6 * 6);
  // Restored exactly: the loss is what the gradients were taken at.
  std::vector<Tensor> check;
  ASSERT_TRUE(session->Run(feeds, fetches, {}, &check).ok());
  for (size_t i = 0; i < fetches.size(); ++i) {
    const Tensor& want = i < np ? values[i] : grads[i - np];
    EXPECT_EQ(0, std::memcmp(check[i].raw_data(), want.raw_data(),
                             want.NumElements() * sizeof(double)))
        << fetches[i];
  }
}

}  // namespace
}  // namespace stepflow
