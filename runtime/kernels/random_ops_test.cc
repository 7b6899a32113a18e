// Random kernels: ranges, moments, truncation, seeding and stream advance.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/variable_test_util.h"

namespace stepflow {
namespace test {
namespace {

NodeDef RandomNode(const std::string& op, DataType dtype, int64_t seed = 0,
                   int64_t seed2 = 0, DataType index = DT_INT32) {
  return TestNode("rnd", op)
      .Inputs(1)
      .Attr("dtype", dtype)
      .Attr("T", index)
      .Attr("seed", seed)
      .Attr("seed2", seed2);
}

NodeDef UniformIntNode(DataType tout, int64_t seed = 0, int64_t seed2 = 0) {
  return TestNode("rnd", "RandomUniformInt")
      .Inputs(3)
      .Attr("Tout", tout)
      .Attr("T", DT_INT32)
      .Attr("seed", seed)
      .Attr("seed2", seed2);
}

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (const T& v : Values<T>(t)) out.push_back(static_cast<double>(v));
  return out;
}

void Moments(const std::vector<double>& xs, double* mean, double* var) {
  double sum = 0, sq = 0;
  for (double x : xs) sum += x;
  *mean = sum / xs.size();
  for (double x : xs) sq += (x - *mean) * (x - *mean);
  *var = sq / xs.size();
}

constexpr int kN = 20000;

Tensor RunOnce(RefKernelRunner* r, const std::vector<Tensor>& inputs) {
  absl::Status s = r->RunValues(inputs);
  EXPECT_TRUE(s.ok()) << s;
  return r->output(0);
}

template <typename T>
std::vector<double> Sample(const std::string& op, DataType dtype, int n = kN) {
  RefKernelRunner r;
  absl::Status s = r.Init(RandomNode(op, dtype, 7, 8));
  EXPECT_TRUE(s.ok()) << s;
  Tensor out = RunOnce(&r, {Vec<int32_t>({n})});
  EXPECT_EQ(out.dtype(), dtype);
  EXPECT_EQ(out.NumElements(), n);
  return AsDoubles<T>(out);
}

TEST(RandomOpsTest, UniformFloatMoments) {
  std::vector<double> xs = Sample<float>("RandomUniform", DT_FLOAT);
  for (double x : xs) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
  double mean, var;
  Moments(xs, &mean, &var);
  EXPECT_NEAR(mean, 0.5, 0.01);
  EXPECT_NEAR(var, 1.0 / 12, 0.004);
}

TEST(RandomOpsTest, UniformOtherTypesStayInRange) {
  for (auto [dtype, xs] :
       {std::make_pair(DT_DOUBLE, Sample<double>("RandomUniform", DT_DOUBLE)),
        std::make_pair(DT_HALF, Sample<half>("RandomUniform", DT_HALF)),
        std::make_pair(DT_BFLOAT16,
                       Sample<bfloat16>("RandomUniform", DT_BFLOAT16))}) {
    double mean, var;
    Moments(xs, &mean, &var);
    EXPECT_NEAR(mean, 0.5, 0.02) << DataTypeString(dtype);
    for (double x : xs) {
      ASSERT_GE(x, 0.0) << DataTypeString(dtype);
      ASSERT_LT(x, 1.0) << DataTypeString(dtype);
    }
  }
}

TEST(RandomOpsTest, StandardNormalMoments) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    std::vector<double> xs =
        dtype == DT_FLOAT ? Sample<float>("RandomStandardNormal", dtype)
                          : Sample<double>("RandomStandardNormal", dtype);
    double mean, var;
    Moments(xs, &mean, &var);
    EXPECT_NEAR(mean, 0.0, 0.03) << DataTypeString(dtype);
    EXPECT_NEAR(var, 1.0, 0.05) << DataTypeString(dtype);
    int beyond2 = 0;
    for (double x : xs) beyond2 += std::abs(x) > 2;
    // P(|z| > 2) = 4.55%.
    EXPECT_NEAR(beyond2 / static_cast<double>(xs.size()), 0.0455, 0.006);
  }
}

TEST(RandomOpsTest, TruncatedNormalStaysWithinTwoStddev) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    std::vector<double> xs;
    switch (dtype) {
      case DT_FLOAT:
        xs = Sample<float>("TruncatedNormal", dtype);
        break;
      case DT_DOUBLE:
        xs = Sample<double>("TruncatedNormal", dtype);
        break;
      case DT_HALF:
        xs = Sample<half>("TruncatedNormal", dtype);
        break;
      default:
        xs = Sample<bfloat16>("TruncatedNormal", dtype);
        break;
    }
    // |z| < 2 is tested in float before narrowing, as TensorFlow does, so
    // half and bfloat16 values may round to 2.
    const bool narrow = dtype == DT_HALF || dtype == DT_BFLOAT16;
    for (double x : xs) {
      if (narrow) {
        ASSERT_LE(std::abs(x), 2.0) << DataTypeString(dtype);
      } else {
        ASSERT_LT(std::abs(x), 2.0) << DataTypeString(dtype);
      }
    }
    double mean, var;
    Moments(xs, &mean, &var);
    EXPECT_NEAR(mean, 0.0, 0.03) << DataTypeString(dtype);
    // Variance of N(0,1) truncated to (-2, 2): 1 - 4 phi(2) / (2 Phi(2) - 1).
    EXPECT_NEAR(var, 0.7737, 0.03) << DataTypeString(dtype);
  }
}

TEST(RandomOpsTest, OutputShapeFromInt64Shape) {
  RefKernelRunner r;
  ASSERT_TRUE(
      r.Init(RandomNode("RandomUniform", DT_FLOAT, 1, 0, DT_INT64)).ok());
  Tensor out = RunOnce(&r, {Vec<int64_t>({2, 3, 4})});
  EXPECT_EQ(out.shape().DebugString(), TensorShape({2, 3, 4}).DebugString());
  Tensor empty = RunOnce(&r, {Vec<int64_t>({0, 5})});
  EXPECT_EQ(empty.NumElements(), 0);
}

TEST(RandomOpsTest, BadShapeIsInvalidArgument) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(RandomNode("RandomUniform", DT_FLOAT, 1)).ok());
  ExpectError(r.RunValues({Make<int32_t>(TensorShape({1, 2}), {1, 2})}),
              absl::StatusCode::kInvalidArgument,
              {"shape must be a vector", "{{node rnd}}"});
  ExpectError(r.RunValues({Vec<int32_t>({2, -1})}),
              absl::StatusCode::kInvalidArgument, {"-1", "{{node rnd}}"});
}

TEST(RandomOpsTest, SameSeedsRepeatAndTheStreamAdvancesPerRun) {
  RefKernelRunner a, b, c;
  ASSERT_TRUE(a.Init(RandomNode("RandomUniform", DT_FLOAT, 3, 4)).ok());
  ASSERT_TRUE(b.Init(RandomNode("RandomUniform", DT_FLOAT, 3, 4)).ok());
  ASSERT_TRUE(c.Init(RandomNode("RandomUniform", DT_FLOAT, 3, 5)).ok());
  const Tensor shape = Vec<int32_t>({16});
  std::vector<float> a1 = Values<float>(RunOnce(&a, {shape}));
  std::vector<float> a2 = Values<float>(RunOnce(&a, {shape}));
  std::vector<float> b1 = Values<float>(RunOnce(&b, {shape}));
  std::vector<float> b2 = Values<float>(RunOnce(&b, {shape}));
  std::vector<float> c1 = Values<float>(RunOnce(&c, {shape}));
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
  EXPECT_NE(a1, a2);
  EXPECT_NE(a1, c1);
}

TEST(RandomOpsTest, ZeroSeedsTakeTheKeyFromTheEnvRandom) {
  VariableTestDevice d1("/job:localhost/replica:0/task:0/device:CPU:0", 100);
  VariableTestDevice d1_again("/job:localhost/replica:0/task:0/device:CPU:0",
                              100);
  VariableTestDevice d2("/job:localhost/replica:0/task:0/device:CPU:0", 101);
  RefKernelRunner a(&d1), b(&d1_again), c(&d2);
  ASSERT_TRUE(a.Init(RandomNode("RandomStandardNormal", DT_FLOAT)).ok());
  ASSERT_TRUE(b.Init(RandomNode("RandomStandardNormal", DT_FLOAT)).ok());
  ASSERT_TRUE(c.Init(RandomNode("RandomStandardNormal", DT_FLOAT)).ok());
  EXPECT_EQ(d1.random()->draws(), 2);  // Drawn once, at construction.
  const Tensor shape = Vec<int32_t>({8});
  std::vector<float> a1 = Values<float>(RunOnce(&a, {shape}));
  EXPECT_EQ(a1, Values<float>(RunOnce(&b, {shape})));
  EXPECT_NE(a1, Values<float>(RunOnce(&c, {shape})));
  EXPECT_NE(a1, Values<float>(RunOnce(&a, {shape})));
  EXPECT_EQ(d1.random()->draws(), 2);
}

TEST(RandomOpsTest, ZeroSeedsWithoutRandomSourceFailAtConstruction) {
  KernelRunner r;  // Its test device's Env has no random source.
  ExpectError(r.Init(RandomNode("RandomUniform", DT_FLOAT)),
              absl::StatusCode::kFailedPrecondition,
              {"random", "{{node rnd}}"});
  EXPECT_TRUE(r.Init(RandomNode("RandomUniform", DT_FLOAT, 1)).ok());
}

TEST(RandomOpsTest, UniformIntIsUniformOverTheRange) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(UniformIntNode(DT_INT32, 5)).ok());
  Tensor out = RunOnce(
      &r, {Vec<int32_t>({kN}), Scalar<int32_t>(-2), Scalar<int32_t>(3)});
  std::map<int32_t, int> counts;
  for (int32_t v : Values<int32_t>(out)) {
    ASSERT_GE(v, -2);
    ASSERT_LT(v, 3);
    ++counts[v];
  }
  ASSERT_EQ(counts.size(), 5u);
  for (const auto& [v, n] : counts) EXPECT_NEAR(n, kN / 5, kN / 50) << v;

  RefKernelRunner r64;
  ASSERT_TRUE(r64.Init(UniformIntNode(DT_INT64, 5)).ok());
  Tensor big = RunOnce(&r64, {Vec<int32_t>({100}), Scalar<int64_t>(0),
                              Scalar<int64_t>(int64_t{1} << 40)});
  int above32 = 0;
  for (int64_t v : Values<int64_t>(big)) above32 += v >= (int64_t{1} << 32);
  EXPECT_GT(above32, 90);
}

TEST(RandomOpsTest, UniformIntErrors) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(UniformIntNode(DT_INT32, 5)).ok());
  ExpectError(
      r.RunValues({Vec<int32_t>({3}), Scalar<int32_t>(4), Scalar<int32_t>(4)}),
      absl::StatusCode::kInvalidArgument,
      {"Need minval < maxval: 4 >= 4", "{{node rnd}}"});
  ExpectError(
      r.RunValues({Vec<int32_t>({3}), Vec<int32_t>({0}), Scalar<int32_t>(4)}),
      absl::StatusCode::kInvalidArgument,
      {"minval must be 0-D", "{{node rnd}}"});
  // An empty output needs no valid range.
  EXPECT_TRUE(
      r.RunValues({Vec<int32_t>({0}), Scalar<int32_t>(4), Scalar<int32_t>(4)})
          .ok());
}

TEST(RandomShuffleTest, PermutesRowsAndAdvances) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(TestNode("shuffle", "RandomShuffle")
                         .Inputs(1)
                         .Attr("T", DT_INT32)
                         .Attr("seed", int64_t{3})
                         .Attr("seed2", int64_t{4}))
                  .ok());
  std::vector<int32_t> rows;
  for (int32_t i = 0; i < 50; ++i) rows.insert(rows.end(), {i, 100 + i});
  const Tensor in = Make<int32_t>(TensorShape({50, 2}), rows);
  const std::vector<int32_t> first = Values<int32_t>(RunOnce(&r, {in}));
  const std::vector<int32_t> second = Values<int32_t>(RunOnce(&r, {in}));
  EXPECT_NE(first, second);
  std::vector<bool> seen(50, false);
  for (int i = 0; i < 50; ++i) {
    const int32_t row = first[2 * i];
    ASSERT_GE(row, 0);
    ASSERT_LT(row, 50);
    EXPECT_EQ(first[2 * i + 1], 100 + row);
    EXPECT_FALSE(seen[row]);
    seen[row] = true;
  }
}

TEST(MultinomialTest, SkipsNonFiniteLogits) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor logits = Make<float>(
      TensorShape({3, 3}),
      {-inf, 0.0f, inf, -inf, -inf, -inf, std::nanf(""), 1.0f, -inf});
  const std::vector<int64_t> out =
      Values<int64_t>(RunKernelOkOutput(TestNode("m", "Multinomial")
                                            .Inputs(2)
                                            .Attr("T", DT_FLOAT)
                                            .Attr("output_dtype", DT_INT64)
                                            .Attr("seed", int64_t{1})
                                            .Attr("seed2", int64_t{2}),
                                        {logits, Scalar<int32_t>(20)}));
  ASSERT_EQ(out.size(), 60u);
  for (int s = 0; s < 20; ++s) {
    EXPECT_EQ(out[s], 1);       // the only finite logit
    EXPECT_EQ(out[20 + s], 3);  // none finite: the class count
    EXPECT_EQ(out[40 + s], 1);
  }
}

TEST(MultinomialTest, RejectsBadInputs) {
  const NodeDef def = TestNode("m", "Multinomial")
                          .Inputs(2)
                          .Attr("T", DT_FLOAT)
                          .Attr("output_dtype", DT_INT64)
                          .Attr("seed", int64_t{1})
                          .Attr("seed2", int64_t{2});
  Tensor out;
  EXPECT_EQ(
      RunKernel(def, {Make<float>(TensorShape({2, 0}), {}), Scalar<int32_t>(3)},
                &out)
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunKernel(def,
                      {Make<float>(TensorShape({1, 2}), {0.f, 1.f}),
                       Scalar<int32_t>(-1)},
                      &out)
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RandomPoissonTest, FirstVersionDrawsAsTheSecond) {
  auto node = [](const std::string& op) {
    TestNode n("p", op);
    n.Inputs(2)
        .Attr("S", DT_INT32)
        .Attr("dtype", DT_FLOAT)
        .Attr("seed", int64_t{5})
        .Attr("seed2", int64_t{6});
    if (op == "RandomPoissonV2") n.Attr("R", DT_FLOAT);
    return NodeDef(n);
  };
  const std::vector<Tensor> inputs = {Vec<int32_t>({4}),
                                      Vec<float>({0.5f, 3.0f, 15.0f})};
  const std::vector<float> v1 =
      Values<float>(RunKernelOkOutput(node("RandomPoisson"), inputs));
  const std::vector<float> v2 =
      Values<float>(RunKernelOkOutput(node("RandomPoissonV2"), inputs));
  ASSERT_EQ(v1.size(), 12u);
  EXPECT_EQ(v1, v2);
}

}  // namespace
}  // namespace test
}  // namespace stepflow
