// Element-wise unary math and the matching gradient ops: hand-computed
// values, dtypes, finite-difference checks of each *Grad op against its
// forward op, and error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/kernels/gradient_test_util.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::ExpectTensorNear;
using test::Make;
using test::RunBinary;
using test::RunUnary;
using test::TestNode;
using test::TypedNode;
using test::Vec;

TEST(UnaryMathTest, AbsAndSign) {
  Tensor out;
  ASSERT_TRUE(RunUnary("Abs", Vec<float>({-1.5f, 0, 2}), &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {1.5f, 0, 2});
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  ASSERT_TRUE(RunUnary("Abs", Vec<int32_t>({-7, 7, min32}), &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {7, 7, min32});  // Wraps.
  ASSERT_TRUE(RunUnary("Abs", Vec<int8_t>({-3, 4}), &out).ok());
  ExpectTensor<int8_t>(out, TensorShape({2}), {3, 4});
  ASSERT_TRUE(RunUnary("Sign", Vec<double>({-2, 0, 3}), &out).ok());
  ExpectTensor<double>(out, TensorShape({3}), {-1, 0, 1});
  ASSERT_TRUE(RunUnary("Sign", Vec<int64_t>({-9, 0, 9}), &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({3}), {-1, 0, 1});
  ASSERT_TRUE(RunUnary("Sign", Vec<complex64>({{3, 4}, {0, 0}}), &out).ok());
  EXPECT_NEAR(out.base<complex64>()[0].real(), 0.6, 1e-6);
  EXPECT_NEAR(out.base<complex64>()[0].imag(), 0.8, 1e-6);
  EXPECT_EQ(out.base<complex64>()[1], complex64(0, 0));
}

TEST(UnaryMathTest, FloorCeilRound) {
  Tensor out;
  ASSERT_TRUE(RunUnary("Floor", Vec<float>({-1.5f, 1.5f, 2}), &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {-2, 1, 2});
  ASSERT_TRUE(RunUnary("Ceil", Vec<double>({-1.5, 1.5, 2}), &out).ok());
  ExpectTensor<double>(out, TensorShape({3}), {-1, 2, 2});
  // Round: half to even.
  ASSERT_TRUE(RunUnary("Round",
                       Vec<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.6f}), &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({6}), {0, 2, 2, -0.0f, -2, 3});
  // No integer kernels (TensorFlow's return 0; see cwise_ops_unary_math.cc).
  EXPECT_FALSE(RunUnary("Round", Vec<int32_t>({-3, 4}), &out).ok());
  ASSERT_TRUE(
      RunUnary("Floor", Vec<half>({half(2.5f), half(-0.5f)}), &out).ok());
  ExpectTensorNear<half>(out, TensorShape({2}), {2, -1}, 0);
  ASSERT_TRUE(
      RunUnary("Round", Vec<half>({half(2.5f), half(3.5f)}), &out).ok());
  ExpectTensorNear<half>(out, TensorShape({2}), {2, 4}, 0);
  ASSERT_TRUE(RunUnary("Ceil", Vec<bfloat16>({bfloat16(-1.5f)}), &out).ok());
  ExpectTensorNear<bfloat16>(out, TensorShape({1}), {-1}, 0);
}

TEST(UnaryMathTest, ExpLogFamily) {
  Tensor out;
  ASSERT_TRUE(
      RunUnary("Sqrt", Make<double>(TensorShape({2, 1}), {4, 9}), &out).ok());
  ExpectTensor<double>(out, TensorShape({2, 1}), {2, 3});
  ASSERT_TRUE(RunUnary("Rsqrt", Vec<float>({4, 0.25f}), &out).ok());
  ExpectTensorNear<float>(out, TensorShape({2}), {0.5, 2}, 1e-6);
  ASSERT_TRUE(RunUnary("Exp", Vec<double>({0, 1}), &out).ok());
  ExpectTensorNear<double>(out, TensorShape({2}), {1, M_E}, 1e-12);
  ASSERT_TRUE(RunUnary("Log", Vec<double>({1, M_E}), &out).ok());
  ExpectTensorNear<double>(out, TensorShape({2}), {0, 1}, 1e-12);
  ASSERT_TRUE(RunUnary("Log", Vec<float>({0, -1}), &out).ok());
  EXPECT_TRUE(std::isinf(out.base<float>()[0]) && out.base<float>()[0] < 0);
  EXPECT_TRUE(std::isnan(out.base<float>()[1]));
  // log1p keeps precision where log(1 + x) would round to 0.
  ASSERT_TRUE(RunUnary("Log1p", Vec<double>({0, 1e-18, M_E - 1}), &out).ok());
  EXPECT_EQ(out.base<double>()[1], 1e-18);
  EXPECT_NEAR(out.base<double>()[2], 1, 1e-12);
  ASSERT_TRUE(RunUnary("Tanh", Vec<float>({0, 30, -30, 0.5f}), &out).ok());
  ExpectTensorNear<float>(out, TensorShape({4}), {0, 1, -1, std::tanh(0.5)},
                          1e-6);
  // Sigmoid saturates without NaN.
  ASSERT_TRUE(RunUnary("Sigmoid", Vec<float>({0, -1000, 1000, 2}), &out).ok());
  ExpectTensorNear<float>(out, TensorShape({4}),
                          {0.5, 0, 1, 1 / (1 + std::exp(-2.0))}, 1e-6);
  ASSERT_TRUE(RunUnary("Exp", Vec<half>({half(0.f), half(1.f)}), &out).ok());
  ExpectTensorNear<half>(out, TensorShape({2}), {1, M_E}, 3e-3);
  ASSERT_TRUE(RunUnary("Sqrt", Vec<bfloat16>({bfloat16(16.f)}), &out).ok());
  ExpectTensorNear<bfloat16>(out, TensorShape({1}), {4}, 0);
}

TEST(UnaryMathTest, Complex) {
  Tensor out;
  ASSERT_TRUE(RunUnary("Sqrt", Vec<complex128>({{-4, 0}}), &out).ok());
  EXPECT_NEAR(out.base<complex128>()[0].real(), 0, 1e-12);
  EXPECT_NEAR(out.base<complex128>()[0].imag(), 2, 1e-12);
  ASSERT_TRUE(RunUnary("Exp", Vec<complex128>({{0, M_PI}}), &out).ok());
  EXPECT_NEAR(out.base<complex128>()[0].real(), -1, 1e-12);
  EXPECT_NEAR(out.base<complex128>()[0].imag(), 0, 1e-12);
  ASSERT_TRUE(RunUnary("Reciprocal", Vec<complex64>({{0, 2}}), &out).ok());
  EXPECT_NEAR(out.base<complex64>()[0].imag(), -0.5, 1e-6);
  for (const char* op : {"Log", "Log1p", "Tanh", "Sigmoid", "Rsqrt"}) {
    EXPECT_TRUE(RunUnary(op, Vec<complex64>({{1, 1}}), &out).ok()) << op;
  }
  ASSERT_TRUE(RunUnary("Tanh", Vec<complex128>({{0.3, 0}}), &out).ok());
  EXPECT_NEAR(out.base<complex128>()[0].real(), std::tanh(0.3), 1e-12);
}

TEST(UnaryMathTest, ReciprocalAndInv) {
  Tensor out;
  for (const char* op : {"Reciprocal", "Inv"}) {
    ASSERT_TRUE(RunUnary(op, Vec<double>({2, -4}), &out).ok()) << op;
    ExpectTensor<double>(out, TensorShape({2}), {0.5, -0.25});
    // No integer kernels, as in TensorFlow.
    EXPECT_FALSE(RunUnary(op, Vec<int32_t>({1, -1, 2, -5}), &out).ok()) << op;
  }
  ASSERT_TRUE(RunUnary("Reciprocal", Vec<float>({0}), &out).ok());
  EXPECT_TRUE(std::isinf(out.base<float>()[0]));
}

TEST(UnaryMathTest, EmptyAndUnsupportedTypes) {
  Tensor out;
  ASSERT_TRUE(RunUnary("Exp", Make<float>(TensorShape({0, 3}), {}), &out).ok());
  ExpectTensor<float>(out, TensorShape({0, 3}), {});
  // Outside the op's type set: rejected when the kernel is created.
  EXPECT_FALSE(RunUnary("Sqrt", Vec<int32_t>({4}), &out).ok());
  EXPECT_FALSE(RunUnary("Floor", Vec<int32_t>({4}), &out).ok());
  EXPECT_FALSE(RunUnary("Abs", Vec<uint8_t>({4}), &out).ok());
}

// For each (forward, gradient) pair: Grad(f(x), dy) must equal the
// gradient of sum(dy * f(x)) with respect to x.
struct GradCase {
  const char* forward;
  const char* grad;
  std::vector<double> x;
};

TEST(UnaryMathGradTest, MatchesFiniteDifferences) {
  const std::vector<GradCase> cases = {
      {"Sqrt", "SqrtGrad", {0.3, 1.0, 2.5, 7.0}},
      {"Rsqrt", "RsqrtGrad", {0.3, 1.0, 2.5, 7.0}},
      {"Tanh", "TanhGrad", {-2.0, -0.1, 0.4, 1.5}},
      {"Sigmoid", "SigmoidGrad", {-3.0, -0.2, 0.7, 2.0}},
      {"Reciprocal", "ReciprocalGrad", {-2.0, -0.5, 0.6, 3.0}},
      {"Inv", "InvGrad", {-2.0, -0.5, 0.6, 3.0}},
  };
  const std::vector<double> dy = {0.7, -1.3, 2.0, 0.25};
  for (const GradCase& c : cases) {
    SCOPED_TRACE(c.forward);
    const Tensor x = Make<double>(TensorShape({2, 2}), c.x);
    Tensor y, grad;
    ASSERT_TRUE(RunUnary(c.forward, x, &y).ok());
    ASSERT_TRUE(
        RunBinary(c.grad, y, Make<double>(TensorShape({2, 2}), dy), &grad)
            .ok());
    EXPECT_EQ(grad.shape(), TensorShape({2, 2}));
    const std::vector<double> numeric = test::NumericGradient(
        test::KernelForward(TypedNode(c.forward, 1, DT_DOUBLE, "u")), {x}, 0,
        dy);
    test::ExpectAllClose(test::Values<double>(grad), numeric, 1e-6);
  }
}

TEST(UnaryMathGradTest, HandValuesAndFloatTypes) {
  Tensor out;
  // SqrtGrad = dy * 0.5 / y; RsqrtGrad = -0.5 * dy * y^3;
  // TanhGrad = dy * (1 - y^2); SigmoidGrad = dy * y * (1 - y);
  // ReciprocalGrad = -dy * y^2.
  const Tensor y = Vec<float>({2, 0.5f});
  const Tensor dy = Vec<float>({4, 2});
  ASSERT_TRUE(RunBinary("SqrtGrad", y, dy, &out).ok());
  ExpectTensorNear<float>(out, TensorShape({2}), {1, 2}, 1e-6);
  ASSERT_TRUE(RunBinary("RsqrtGrad", y, dy, &out).ok());
  ExpectTensorNear<float>(out, TensorShape({2}), {-16, -0.125}, 1e-6);
  ASSERT_TRUE(RunBinary("TanhGrad", y, dy, &out).ok());
  ExpectTensorNear<float>(out, TensorShape({2}), {-12, 1.5}, 1e-6);
  ASSERT_TRUE(RunBinary("SigmoidGrad", y, dy, &out).ok());
  ExpectTensorNear<float>(out, TensorShape({2}), {-8, 0.5}, 1e-6);
  ASSERT_TRUE(RunBinary("ReciprocalGrad", y, dy, &out).ok());
  ExpectTensorNear<float>(out, TensorShape({2}), {-16, -0.5}, 1e-6);
  ASSERT_TRUE(RunBinary("TanhGrad", Vec<half>({half(0.5f)}),
                        Vec<half>({half(2.f)}), &out)
                  .ok());
  ExpectTensorNear<half>(out, TensorShape({1}), {1.5}, 1e-3);
}

TEST(UnaryMathGradTest, ComplexUsesConjugate) {
  Tensor out;
  // SqrtGrad: dy * 0.5 / conj(y) = 0.5 / (1 - i) = 0.25 + 0.25i.
  ASSERT_TRUE(RunBinary("SqrtGrad", Vec<complex64>({{1, 1}}),
                        Vec<complex64>({{1, 0}}), &out)
                  .ok());
  EXPECT_NEAR(out.base<complex64>()[0].real(), 0.25, 1e-6);
  EXPECT_NEAR(out.base<complex64>()[0].imag(), 0.25, 1e-6);
  // ReciprocalGrad: -dy * conj(y^2) = -conj(2i) = 2i.
  ASSERT_TRUE(RunBinary("ReciprocalGrad", Vec<complex128>({{1, 1}}),
                        Vec<complex128>({{1, 0}}), &out)
                  .ok());
  EXPECT_NEAR(out.base<complex128>()[0].real(), 0, 1e-12);
  EXPECT_NEAR(out.base<complex128>()[0].imag(), 2, 1e-12);
  // TanhGrad: dy * (1 - y^2) with y as given: 1 - (1 + i)^2 = 1 - 2i.
  ASSERT_TRUE(RunBinary("TanhGrad", Vec<complex128>({{1, 1}}),
                        Vec<complex128>({{1, 0}}), &out)
                  .ok());
  EXPECT_NEAR(out.base<complex128>()[0].real(), 1, 1e-12);
  EXPECT_NEAR(out.base<complex128>()[0].imag(), -2, 1e-12);
}

// As TensorFlow's kernels: a zero dy gives 0 even where y is 0 or
// infinite; Sqrt(inf) is inf and Rsqrt(inf) is 0.
TEST(UnaryMathGradTest, ZeroGradientAndInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor out;
  for (const char* op :
       {"SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "InvGrad"}) {
    ASSERT_TRUE(
        RunBinary(op, Vec<float>({0, inf}), Vec<float>({0, 0}), &out).ok())
        << op;
    ExpectTensor<float>(out, TensorShape({2}), {0, 0});
  }
  ASSERT_TRUE(RunUnary("Sqrt", Vec<float>({inf, 4, 0}), &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {inf, 2, 0});
  ASSERT_TRUE(RunUnary("Rsqrt", Vec<float>({inf, 4}), &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {0, 0.5});
}

TEST(UnaryMathGradTest, ElementCountMismatchNamesNode) {
  Tensor out;
  // Same element count, different shapes: accepted (as in TensorFlow);
  // the output has y's shape.
  ASSERT_TRUE(RunBinary("SqrtGrad",
                        Make<float>(TensorShape({2, 2}), {1, 1, 1, 1}),
                        Vec<float>({1, 2, 3, 4}), &out)
                  .ok());
  EXPECT_EQ(out.shape(), TensorShape({2, 2}));
  ExpectError(RunBinary("TanhGrad", Vec<float>({1, 2, 3}), Vec<float>({1, 2}),
                        &out, "tanh_grad"),
              absl::StatusCode::kInvalidArgument,
              {"same number of elements, got 3 and 2", "{{node tanh_grad}}"});
}

}  // namespace
}  // namespace stepflow
