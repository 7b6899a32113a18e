#include "testing/tf_oracle/compare.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "testing/tf_oracle/tolerance.h"

namespace stepflow {
namespace oracle {
namespace {

Tensor Floats(std::initializer_list<float> v) {
  return Tensor::Vector<float>(v);
}

GraphDef GraphWithOp(const std::string& op) {
  GraphDef g;
  NodeDef* n = g.add_node();
  n->set_name("n");
  n->set_op(op);
  return g;
}

TEST(CompareTest, FloatsWithinTheDefaultToleranceMatch) {
  const GraphDef g;
  EXPECT_TRUE(CompareTensors(Floats({1.f, 100.f}),
                             Floats({1.000009f, 100.0009f}), g, "v")
                  .ok());
  // Just beyond rtol 1e-5 (+ atol 1e-6).
  absl::Status s =
      CompareTensors(Floats({1.f, 100.f}), Floats({1.f, 100.002f}), g, "v");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("element [1]"), std::string::npos) << s;
  // The absolute floor: values near zero.
  EXPECT_TRUE(CompareTensors(Floats({0.f}), Floats({5e-7f}), g, "v").ok());
  EXPECT_FALSE(CompareTensors(Floats({0.f}), Floats({5e-6f}), g, "v").ok());
}

TEST(CompareTest, NanInfDtypeShapeAndExactTypes) {
  const GraphDef g;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(
      CompareTensors(Floats({nan, inf}), Floats({nan, inf}), g, "v").ok());
  EXPECT_FALSE(CompareTensors(Floats({nan}), Floats({1.f}), g, "v").ok());
  EXPECT_FALSE(CompareTensors(Floats({inf}), Floats({-inf}), g, "v").ok());
  EXPECT_FALSE(
      CompareTensors(Floats({1.f}), Tensor::Vector<double>({1.0}), g, "v")
          .ok());
  EXPECT_FALSE(CompareTensors(Floats({1.f, 2.f}), Floats({1.f}), g, "v").ok());
  EXPECT_TRUE(CompareTensors(Tensor::Vector<int32_t>({7}),
                             Tensor::Vector<int32_t>({7}), g, "v")
                  .ok());
  EXPECT_FALSE(CompareTensors(Tensor::Vector<int32_t>({7}),
                              Tensor::Vector<int32_t>({8}), g, "v")
                   .ok());
  Tensor a = Tensor::Scalar<std::string>("ab");
  Tensor b = Tensor::Scalar<std::string>("ac");
  EXPECT_FALSE(CompareTensors(a, b, g, "v").ok());
  EXPECT_TRUE(CompareTensors(a, a, g, "v").ok());
}

TEST(CompareTest, InexactOpsWidenTheTolerance) {
  EXPECT_FALSE(
      CompareTensors(Floats({1.f}), Floats({1.00005f}), GraphDef(), "v").ok());
  std::vector<std::string> reasons;
  const Tolerance t = ToleranceFor(GraphWithOp("Lgamma"), DT_FLOAT, &reasons);
  EXPECT_GT(t.rtol, DefaultTolerance(DT_FLOAT).rtol);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(CompareTensors(Floats({1.f}), Floats({1.00005f}),
                             GraphWithOp("Lgamma"), "v")
                  .ok());
  // Integers stay exact whatever the graph holds.
  EXPECT_EQ(ToleranceFor(GraphWithOp("Lgamma"), DT_INT32).rtol, 0);
}

TEST(CompareTest, OutcomesCompareCodesAndSteps) {
  const GraphDef g;
  CaseOutcome tf, sf;
  tf.steps = {{Floats({1.f})}, {Floats({2.f})}};
  sf.steps = tf.steps;
  EXPECT_TRUE(CompareOutcomes(tf, sf, g, {"x"}).ok());
  sf.steps[1][0] = Floats({3.f});
  EXPECT_NE(
      CompareOutcomes(tf, sf, g, {"x"}).message().find("step 1 fetch 'x'"),
      std::string::npos);
  // Same code, different messages and phases: a match.
  tf.steps.resize(1);
  sf.steps.resize(1);
  tf.status = absl::InvalidArgumentError("TensorFlow's words");
  tf.phase = "step";
  sf.status = absl::InvalidArgumentError("stepflow's words");
  sf.phase = "import";
  EXPECT_TRUE(CompareOutcomes(tf, sf, g, {"x"}).ok());
  sf.status = absl::NotFoundError("x");
  EXPECT_FALSE(CompareOutcomes(tf, sf, g, {"x"}).ok());
  sf.status = absl::OkStatus();
  EXPECT_FALSE(CompareOutcomes(tf, sf, g, {"x"}).ok());
  // An error one step later than TensorFlow's is a difference.
  tf.status = absl::InvalidArgumentError("x");
  sf.status = absl::InvalidArgumentError("x");
  sf.steps.push_back({Floats({2.f})});
  EXPECT_FALSE(CompareOutcomes(tf, sf, g, {"x"}).ok());
}

TEST(CompareTest, CodeNamesRoundTrip) {
  EXPECT_EQ(CodeName(absl::StatusCode::kInvalidArgument), "INVALID_ARGUMENT");
  EXPECT_EQ(CodeName(absl::StatusCode::kOk), "OK");
  for (int c = 0; c <= 16; ++c) {
    EXPECT_EQ(CodeFromName(CodeName(static_cast<absl::StatusCode>(c))),
              static_cast<absl::StatusCode>(c));
  }
  EXPECT_EQ(CodeFromName("BOGUS"), absl::StatusCode::kUnknown);
}

}  // namespace
}  // namespace oracle
}  // namespace stepflow
