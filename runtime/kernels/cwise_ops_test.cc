// Element-wise binary/unary kernels: values, broadcasting, dtypes, errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Make;
using test::RunBinary;
using test::RunUnary;
using test::Scalar;
using test::TestNode;
using test::Vec;

TEST(CwiseOpsTest, AddSameShape) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("Add", Vec<float>({1, 2, 3}), Vec<float>({10, 20, 30}), &out)
          .ok());
  ExpectTensor<float>(out, TensorShape({3}), {11, 22, 33});
}

TEST(CwiseOpsTest, AddV2BroadcastsRowVector) {
  Tensor out;
  ASSERT_TRUE(RunBinary("AddV2",
                        Make<int32_t>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                        Vec<int32_t>({10, 20, 30}), &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 3}), {11, 22, 33, 14, 25, 36});
}

TEST(CwiseOpsTest, MulOuterProduct) {
  Tensor out;
  ASSERT_TRUE(RunBinary("Mul", Make<double>(TensorShape({2, 1}), {1, 2}),
                        Make<double>(TensorShape({1, 3}), {3, 4, 5}), &out)
                  .ok());
  ExpectTensor<double>(out, TensorShape({2, 3}), {3, 4, 5, 6, 8, 10});
}

TEST(CwiseOpsTest, SubScalarOnEitherSide) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("Sub", Scalar<int64_t>(10), Vec<int64_t>({1, 2}), &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2}), {9, 8});
  ASSERT_TRUE(
      RunBinary("Sub", Vec<int64_t>({1, 2}), Scalar<int64_t>(10), &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2}), {-9, -8});
}

TEST(CwiseOpsTest, BroadcastMatchesNaive3D) {
  // x: [2,1,3], y: [4,1] -> [2,4,3].
  std::vector<float> xv = {1, 2, 3, 4, 5, 6}, yv = {10, 20, 30, 40};
  Tensor out;
  ASSERT_TRUE(RunBinary("Sub", Make<float>(TensorShape({2, 1, 3}), xv),
                        Make<float>(TensorShape({4, 1}), yv), &out)
                  .ok());
  std::vector<float> expected;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c) expected.push_back(xv[a * 3 + c] - yv[b]);
  ExpectTensor<float>(out, TensorShape({2, 4, 3}), expected);
}

TEST(CwiseOpsTest, IncompatibleShapesNameTheNode) {
  Tensor out;
  absl::Status s =
      RunBinary("Add", Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                Vec<float>({1, 2, 3, 4}), &out, "my_add");
  ExpectError(s, absl::StatusCode::kInvalidArgument,
              {"Incompatible shapes: [2,3] vs. [4]", "{{node my_add}}"});
}

TEST(CwiseOpsTest, EmptyBroadcast) {
  Tensor out;
  ASSERT_TRUE(RunBinary("Mul", Make<float>(TensorShape({0, 3}), {}),
                        Vec<float>({1, 2, 3}), &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({0, 3}), {});
}

TEST(CwiseOpsTest, SignedOverflowWraps) {
  Tensor out;
  const int32_t max = std::numeric_limits<int32_t>::max();
  ASSERT_TRUE(
      RunBinary("Add", Scalar<int32_t>(max), Scalar<int32_t>(1), &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({}),
                        {std::numeric_limits<int32_t>::min()});
  ASSERT_TRUE(RunBinary("Mul", Scalar<int64_t>(int64_t{1} << 62),
                        Scalar<int64_t>(4), &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({}), {0});
  ASSERT_TRUE(
      RunBinary("Mul", Scalar<uint16_t>(65535), Scalar<uint16_t>(65535), &out)
          .ok());
  ExpectTensor<uint16_t>(out, TensorShape({}), {1});
}

TEST(CwiseOpsTest, StringAddConcatenates) {
  Tensor out;
  ASSERT_TRUE(RunBinary("Add", Vec<std::string>({"a", "b"}),
                        Scalar<std::string>("!"), &out)
                  .ok());
  ExpectTensor<std::string>(out, TensorShape({2}), {"a!", "b!"});
}

TEST(CwiseOpsTest, HalfAndComplex) {
  Tensor out;
  ASSERT_TRUE(RunBinary("AddV2", Vec<half>({half(1.5f), half(2.0f)}),
                        Scalar<half>(half(0.5f)), &out)
                  .ok());
  test::ExpectTensorNear<half>(out, TensorShape({2}), {2.0, 2.5}, 1e-3);
  ASSERT_TRUE(RunBinary("Mul", Scalar<complex64>({1, 2}),
                        Scalar<complex64>({3, 4}), &out)
                  .ok());
  ExpectTensor<complex64>(out, TensorShape({}), {complex64(-5, 10)});
}

TEST(CwiseOpsTest, IntegerDivTruncatesAndChecksZero) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("Div", Vec<int32_t>({7, -7, 7}), Vec<int32_t>({2, 2, -2}), &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {3, -3, -3});
  ASSERT_TRUE(RunBinary("Div",
                        Scalar<int32_t>(std::numeric_limits<int32_t>::min()),
                        Scalar<int32_t>(-1), &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}),
                        {std::numeric_limits<int32_t>::min()});
  ExpectError(
      RunBinary("Div", Vec<int64_t>({1, 2}), Vec<int64_t>({1, 0}), &out, "d"),
      absl::StatusCode::kInvalidArgument,
      {"Integer division by zero", "{{node d}}"});
}

TEST(CwiseOpsTest, FloatDivision) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("RealDiv", Vec<float>({1, -1, 3}), Vec<float>({0, 0, 2}), &out)
          .ok());
  std::vector<float> v = test::Values<float>(out);
  EXPECT_TRUE(std::isinf(v[0]) && v[0] > 0);
  EXPECT_TRUE(std::isinf(v[1]) && v[1] < 0);
  EXPECT_EQ(v[2], 1.5f);
  ASSERT_TRUE(RunBinary("Div", Vec<double>({1}), Vec<double>({4}), &out).ok());
  ExpectTensor<double>(out, TensorShape({1}), {0.25});
}

TEST(CwiseOpsTest, RealDivHasNoIntegerKernel) {
  Tensor out;
  ExpectError(RunBinary("RealDiv", Vec<int32_t>({1}), Vec<int32_t>({1}), &out),
              absl::StatusCode::kNotFound, {"RealDiv"});
}

TEST(CwiseOpsTest, Pow) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("Pow", Vec<int32_t>({2, -3, 5}), Vec<int32_t>({10, 3, 0}), &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {1024, -27, 1});
  ExpectError(
      RunBinary("Pow", Vec<int32_t>({2}), Vec<int32_t>({-1}), &out, "p"),
      absl::StatusCode::kInvalidArgument,
      {"Integers to negative integer powers are not allowed", "{{node p}}"});
  ASSERT_TRUE(
      RunBinary("Pow", Vec<float>({4, 2}), Vec<float>({0.5, -1}), &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {2, 0.5});
  ASSERT_TRUE(
      RunBinary("Pow", Scalar<int16_t>(3), Scalar<int16_t>(11), &out).ok());
  ExpectTensor<int16_t>(out, TensorShape({}),
                        {static_cast<int16_t>(177147 % 65536 - 65536)});
}

// TensorFlow's Maximum and Minimum propagate NaN from either operand
// (found by the random-graph differential against TensorFlow).
TEST(CwiseOpsTest, MaximumMinimumPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"Maximum", "Minimum"}) {
    Tensor out;
    ASSERT_TRUE(
        RunBinary(op, Vec<float>({nan, 1, 2}), Vec<float>({1, nan, 3}), &out)
            .ok());
    EXPECT_TRUE(std::isnan(out.flat<float>()(0))) << op;
    EXPECT_TRUE(std::isnan(out.flat<float>()(1))) << op;
    EXPECT_FALSE(std::isnan(out.flat<float>()(2))) << op;
    ASSERT_TRUE(
        RunBinary(op, Scalar<double>(nan), Vec<double>({1, 2}), &out).ok());
    EXPECT_TRUE(std::isnan(out.flat<double>()(0))) << op;
    EXPECT_TRUE(std::isnan(out.flat<double>()(1))) << op;
  }
}

TEST(CwiseOpsTest, MaximumMinimum) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("Maximum", Vec<float>({1, 5, -2}), Scalar<float>(0), &out)
          .ok());
  ExpectTensor<float>(out, TensorShape({3}), {1, 5, 0});
  ASSERT_TRUE(RunBinary("Minimum", Vec<uint8_t>({1, 5, 200}),
                        Vec<uint8_t>({3, 3, 3}), &out)
                  .ok());
  ExpectTensor<uint8_t>(out, TensorShape({3}), {1, 3, 3});
}

TEST(CwiseOpsTest, Comparisons) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("Less", Vec<int32_t>({1, 2, 3}), Scalar<int32_t>(2), &out)
          .ok());
  ExpectTensor<bool>(out, TensorShape({3}), {true, false, false});
  ASSERT_TRUE(RunBinary("Greater", Make<double>(TensorShape({2, 1}), {1, 3}),
                        Vec<double>({0, 2}), &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2, 2}), {true, false, true, true});
  ASSERT_TRUE(RunBinary("Equal", Vec<std::string>({"a", "b"}),
                        Scalar<std::string>("b"), &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2}), {false, true});
  ASSERT_TRUE(RunBinary("Equal", Vec<bool>({true, false}),
                        Vec<bool>({true, true}), &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2}), {true, false});
  ExpectError(
      RunBinary("Less", Vec<float>({1, 2}), Vec<float>({1, 2, 3}), &out, "lt"),
      absl::StatusCode::kInvalidArgument,
      {"Incompatible shapes: [2] vs. [3]", "{{node lt}}"});
}

TEST(CwiseOpsTest, EqualWithoutIncompatibleShapeError) {
  std::vector<Tensor> outs;
  ASSERT_TRUE(test::RunKernel(TestNode("eq", "Equal")
                                  .Inputs(2)
                                  .Attr("T", DT_FLOAT)
                                  .Attr("incompatible_shape_error", false),
                              {Vec<float>({1, 2}), Vec<float>({1, 2, 3})},
                              &outs)
                  .ok());
  ExpectTensor<bool>(outs[0], TensorShape({}), {false});
  // Compatible shapes still compare element-wise.
  ASSERT_TRUE(test::RunKernel(TestNode("eq", "Equal")
                                  .Inputs(2)
                                  .Attr("T", DT_FLOAT)
                                  .Attr("incompatible_shape_error", false),
                              {Vec<float>({1, 2}), Vec<float>({1, 3})}, &outs)
                  .ok());
  ExpectTensor<bool>(outs[0], TensorShape({2}), {true, false});
}

TEST(CwiseOpsTest, NegAndSquare) {
  Tensor out;
  ASSERT_TRUE(RunUnary("Neg", Vec<float>({1, -2, 0}), &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {-1, 2, -0.0f});
  ASSERT_TRUE(RunUnary("Neg",
                       Scalar<int32_t>(std::numeric_limits<int32_t>::min()),
                       &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}),
                        {std::numeric_limits<int32_t>::min()});
  ASSERT_TRUE(
      RunUnary("Square", Make<int64_t>(TensorShape({2, 1}), {-3, 4}), &out)
          .ok());
  ExpectTensor<int64_t>(out, TensorShape({2, 1}), {9, 16});
  ASSERT_TRUE(RunUnary("Square", Scalar<complex64>({0, 1}), &out).ok());
  ExpectTensor<complex64>(out, TensorShape({}), {complex64(-1, 0)});
}

TEST(CwiseOpsTest, UnregisteredDtypeIsRejected) {
  Tensor out;
  // Neg has no unsigned kernel (the op's type set excludes it).
  EXPECT_FALSE(RunUnary("Neg", Vec<uint8_t>({1}), &out).ok());
  // Add's type set has no bool.
  EXPECT_FALSE(
      RunBinary("Add", Vec<bool>({true}), Vec<bool>({true}), &out).ok());
}

TEST(CwiseOpsTest, ForwardsInputBufferWhenPossible) {
  test::KernelRunner runner;
  ASSERT_TRUE(
      runner.Init(TestNode("z", "Mul").Inputs(2).Attr("T", DT_FLOAT)).ok());
  Tensor x = Vec<float>({1, 2, 3});
  ASSERT_TRUE(runner.Run({x, Scalar<float>(2)}).ok());
  ExpectTensor<float>(runner.output(0), TensorShape({3}), {2, 4, 6});
  // The caller still holds `x`, so its buffer must not have been reused.
  ExpectTensor<float>(x, TensorShape({3}), {1, 2, 3});
}

}  // namespace
}  // namespace stepflow
