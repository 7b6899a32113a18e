// FloorDiv/TruncateDiv/FloorMod/Mod/SquaredDifference, the extra
// comparisons, logical ops and Select/SelectV2: values, broadcasting,
// dtypes and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::ExpectTensorNear;
using test::Make;
using test::RunBinary;
using test::RunKernel;
using test::Scalar;
using test::TestNode;
using test::Vec;

TEST(DivModTest, IntegerSemantics) {
  const Tensor x = Vec<int32_t>({7, -7, 7, -7, 6});
  const Tensor y = Vec<int32_t>({2, 2, -2, -2, 3});
  Tensor out;
  ASSERT_TRUE(RunBinary("FloorDiv", x, y, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({5}), {3, -4, -4, 3, 2});
  ASSERT_TRUE(RunBinary("TruncateDiv", x, y, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({5}), {3, -3, -3, 3, 2});
  ASSERT_TRUE(RunBinary("FloorMod", x, y, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({5}), {1, 1, -1, -1, 0});
  ASSERT_TRUE(RunBinary("Mod", x, y, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({5}), {1, -1, 1, -1, 0});
  // Identity: x == FloorDiv(x, y) * y + FloorMod(x, y) over many pairs.
  std::vector<int64_t> xs, ys;
  for (int64_t a = -9; a <= 9; ++a) {
    for (int64_t b = -4; b <= 4; ++b) {
      if (b == 0) continue;
      xs.push_back(a);
      ys.push_back(b);
    }
  }
  Tensor q, r;
  ASSERT_TRUE(
      RunBinary("FloorDiv", Vec<int64_t>(xs), Vec<int64_t>(ys), &q).ok());
  ASSERT_TRUE(
      RunBinary("FloorMod", Vec<int64_t>(xs), Vec<int64_t>(ys), &r).ok());
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t qi = q.base<int64_t>()[i], ri = r.base<int64_t>()[i];
    EXPECT_EQ(qi * ys[i] + ri, xs[i]);
    EXPECT_EQ(qi, static_cast<int64_t>(
                      std::floor(static_cast<double>(xs[i]) / ys[i])));
    EXPECT_TRUE(ri == 0 || (ri < 0) == (ys[i] < 0)) << xs[i] << " " << ys[i];
  }
}

TEST(DivModTest, OverflowCasesWrapInsteadOfTrapping) {
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  Tensor out;
  for (const char* op : {"FloorDiv", "TruncateDiv"}) {
    ASSERT_TRUE(
        RunBinary(op, Scalar<int32_t>(min32), Scalar<int32_t>(-1), &out).ok());
    ExpectTensor<int32_t>(out, TensorShape({}), {min32});
  }
  for (const char* op : {"FloorMod", "Mod"}) {
    ASSERT_TRUE(
        RunBinary(op, Scalar<int32_t>(min32), Scalar<int32_t>(-1), &out).ok());
    ExpectTensor<int32_t>(out, TensorShape({}), {0});
  }
  ASSERT_TRUE(RunBinary("FloorDiv", Vec<int8_t>({-128, 100}),
                        Vec<int8_t>({-1, -3}), &out)
                  .ok());
  ExpectTensor<int8_t>(out, TensorShape({2}), {-128, -34});
  ASSERT_TRUE(
      RunBinary("FloorDiv", Vec<uint8_t>({255, 7}), Vec<uint8_t>({2, 7}), &out)
          .ok());
  ExpectTensor<uint8_t>(out, TensorShape({2}), {127, 1});
}

TEST(DivModTest, IntegerZeroDivisorNamesNode) {
  Tensor out;
  for (const char* op : {"FloorDiv", "FloorMod", "Mod"}) {
    ExpectError(RunBinary(op, Vec<int64_t>({1, 2}), Vec<int64_t>({1, 0}), &out,
                          "divider"),
                absl::StatusCode::kInvalidArgument,
                {"Integer division by zero", "{{node divider}}"});
  }
  // TensorFlow reports a zero divisor in TruncateDiv as Internal.
  ExpectError(RunBinary("TruncateDiv", Vec<uint32_t>({1, 2}),
                        Vec<uint32_t>({1, 0}), &out, "divider"),
              absl::StatusCode::kInternal,
              {"Integer division by zero", "{{node divider}}"});
}

TEST(DivModTest, FloatingPoint) {
  const Tensor x = Vec<double>({7.5, -7.5, 7.5, -7.5});
  const Tensor y = Vec<double>({2, 2, -2, -2});
  Tensor out;
  ASSERT_TRUE(RunBinary("FloorDiv", x, y, &out).ok());
  ExpectTensor<double>(out, TensorShape({4}), {3, -4, -4, 3});
  ASSERT_TRUE(RunBinary("FloorMod", x, y, &out).ok());
  ExpectTensor<double>(out, TensorShape({4}), {1.5, 0.5, -0.5, -1.5});
  ASSERT_TRUE(RunBinary("Mod", x, y, &out).ok());
  ExpectTensor<double>(out, TensorShape({4}), {1.5, -1.5, 1.5, -1.5});
  ASSERT_TRUE(
      RunBinary("FloorDiv", Vec<float>({1}), Vec<float>({0}), &out).ok());
  EXPECT_TRUE(std::isinf(out.base<float>()[0]));
  ASSERT_TRUE(RunBinary("FloorMod", Vec<half>({half(5.f)}),
                        Vec<half>({half(-3.f)}), &out)
                  .ok());
  ExpectTensorNear<half>(out, TensorShape({1}), {-1}, 0);
  // Mod has no 16-bit float kernels (as in TensorFlow).
  EXPECT_FALSE(RunBinary("Mod", Vec<bfloat16>({bfloat16(5.f)}),
                         Vec<bfloat16>({bfloat16(3.f)}), &out)
                   .ok());
  ASSERT_TRUE(RunBinary("TruncateDiv", x, y, &out).ok());
  ExpectTensor<double>(out, TensorShape({4}), {3, -3, -3, 3});
  ASSERT_TRUE(
      RunBinary("FloorMod", Vec<int8_t>({-7, 7}), Vec<int8_t>({3, -3}), &out)
          .ok());
  ExpectTensor<int8_t>(out, TensorShape({2}), {2, -2});
}

TEST(DivModTest, BroadcastsAndReportsIncompatibleShapes) {
  Tensor out;
  ASSERT_TRUE(RunBinary("FloorMod",
                        Make<int32_t>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                        Vec<int32_t>({2, 3, 4}), &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 3}), {1, 2, 3, 0, 2, 2});
  ASSERT_TRUE(RunBinary("FloorDiv", Make<float>(TensorShape({2, 1}), {6, -6}),
                        Make<float>(TensorShape({1, 2}), {4, 5}), &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2, 2}), {1, 1, -2, -2});
  ExpectError(RunBinary("FloorDiv",
                        Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                        Vec<float>({1, 2, 3, 4}), &out, "fd"),
              absl::StatusCode::kInvalidArgument,
              {"Incompatible shapes: [2,3] vs. [4]", "{{node fd}}"});
}

TEST(SquaredDifferenceTest, Values) {
  Tensor out;
  ASSERT_TRUE(RunBinary("SquaredDifference",
                        Make<float>(TensorShape({2, 2}), {1, 2, 3, 4}),
                        Vec<float>({3, 1}), &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2, 2}), {4, 1, 0, 9});
  ASSERT_TRUE(RunBinary("SquaredDifference", Vec<int32_t>({-3, 5}),
                        Scalar<int32_t>(2), &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({2}), {25, 9});
  // Complex: (x - y) * conj(x - y) = |x - y|^2.
  ASSERT_TRUE(RunBinary("SquaredDifference", Vec<complex64>({{1, 2}}),
                        Vec<complex64>({{0, 0}}), &out)
                  .ok());
  EXPECT_EQ(out.base<complex64>()[0], complex64(5, 0));
  ExpectError(RunBinary("SquaredDifference", Vec<double>({1, 2}),
                        Vec<double>({1, 2, 3}), &out, "sd"),
              absl::StatusCode::kInvalidArgument,
              {"Incompatible shapes: [2] vs. [3]", "{{node sd}}"});
}

TEST(ComparisonTest, NotEqualLessEqualGreaterEqual) {
  Tensor out;
  ASSERT_TRUE(
      RunBinary("LessEqual", Vec<int32_t>({1, 2, 3}), Scalar<int32_t>(2), &out)
          .ok());
  ExpectTensor<bool>(out, TensorShape({3}), {true, true, false});
  ASSERT_TRUE(RunBinary("GreaterEqual",
                        Make<float>(TensorShape({2, 1}), {1, 3}),
                        Vec<float>({1, 2, 4}), &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2, 3}),
                     {true, false, false, true, true, false});
  ASSERT_TRUE(RunBinary("NotEqual", Vec<std::string>({"a", "b"}),
                        Scalar<std::string>("a"), &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2}), {false, true});
  ASSERT_TRUE(RunBinary("NotEqual", Vec<complex64>({{1, 1}, {1, 0}}),
                        Vec<complex64>({{1, 1}, {1, 1}}), &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2}), {false, true});
  ExpectError(RunBinary("LessEqual", Vec<int64_t>({1, 2}),
                        Vec<int64_t>({1, 2, 3}), &out, "le"),
              absl::StatusCode::kInvalidArgument,
              {"Incompatible shapes: [2] vs. [3]", "{{node le}}"});
  // NotEqual with incompatible_shape_error = false: scalar true.
  ASSERT_TRUE(RunKernel(TestNode("ne", "NotEqual")
                            .Inputs(2)
                            .Attr("T", DT_INT32)
                            .Attr("incompatible_shape_error", false),
                        {Vec<int32_t>({1, 2}), Vec<int32_t>({1, 2, 3})}, &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({}), {true});
}

TEST(LogicalTest, AndOrNot) {
  Tensor out;
  const Tensor a = Make<bool>(TensorShape({2, 2}), {true, true, false, false});
  const Tensor b = Vec<bool>({true, false});
  ASSERT_TRUE(
      RunKernel(TestNode("and", "LogicalAnd").Inputs(2), {a, b}, &out).ok());
  ExpectTensor<bool>(out, TensorShape({2, 2}), {true, false, false, false});
  ASSERT_TRUE(
      RunKernel(TestNode("or", "LogicalOr").Inputs(2), {a, b}, &out).ok());
  ExpectTensor<bool>(out, TensorShape({2, 2}), {true, true, true, false});
  ASSERT_TRUE(
      RunKernel(TestNode("not", "LogicalNot").Inputs(1), {b}, &out).ok());
  ExpectTensor<bool>(out, TensorShape({2}), {false, true});
  ExpectError(
      RunKernel(TestNode("and", "LogicalAnd").Inputs(2),
                {Vec<bool>({true, false}), Vec<bool>({true, false, true})},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"Incompatible shapes: [2] vs. [3]", "{{node and}}"});
}

NodeDef SelectNode(const std::string& op, DataType t,
                   const std::string& name = "sel") {
  return TestNode(name, op).Inputs(3).Attr("T", t);
}

TEST(SelectTest, ElementwiseScalarAndRows) {
  Tensor out;
  const Tensor t = Make<int32_t>(TensorShape({2, 2}), {1, 2, 3, 4});
  const Tensor e = Make<int32_t>(TensorShape({2, 2}), {-1, -2, -3, -4});
  ASSERT_TRUE(
      RunKernel(
          SelectNode("Select", DT_INT32),
          {Make<bool>(TensorShape({2, 2}), {true, false, false, true}), t, e},
          &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 2}), {1, -2, -3, 4});
  ASSERT_TRUE(RunKernel(SelectNode("Select", DT_INT32),
                        {Scalar<bool>(false), t, e}, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 2}), {-1, -2, -3, -4});
  ASSERT_TRUE(RunKernel(SelectNode("Select", DT_INT32),
                        {Vec<bool>({false, true}), t, e}, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 2}), {-1, -2, 3, 4});
  ASSERT_TRUE(RunKernel(SelectNode("Select", DT_STRING),
                        {Vec<bool>({true, false}), Vec<std::string>({"a", "b"}),
                         Vec<std::string>({"c", "d"})},
                        &out)
                  .ok());
  ExpectTensor<std::string>(out, TensorShape({2}), {"a", "d"});
}

TEST(SelectTest, Errors) {
  Tensor out;
  const Tensor t = Make<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  ExpectError(RunKernel(SelectNode("Select", DT_FLOAT),
                        {Scalar<bool>(true), t, Vec<float>({1, 2})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"'then' and 'else' must have the same size", "[2,2] vs. [2]",
               "{{node sel}}"});
  ExpectError(RunKernel(SelectNode("Select", DT_FLOAT),
                        {Vec<bool>({true, false, true}), t, t}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Number of batches of 'then' must match size of 'cond'",
               "{{node sel}}"});
  ExpectError(
      RunKernel(SelectNode("Select", DT_FLOAT),
                {Make<bool>(TensorShape({1, 2}), {true, false}), t, t}, &out),
      absl::StatusCode::kInvalidArgument,
      {"'cond' and 'then' must have the same size", "{{node sel}}"});
}

TEST(SelectV2Test, BroadcastsAllThree) {
  Tensor out;
  ASSERT_TRUE(RunKernel(SelectNode("SelectV2", DT_FLOAT),
                        {Make<bool>(TensorShape({2, 1}), {true, false}),
                         Make<float>(TensorShape({1, 3}), {1, 2, 3}),
                         Scalar<float>(-1)},
                        &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {1, 2, 3, -1, -1, -1});
  // Condition broadcast along the last axis of a 3-D then/else.
  const Tensor t = Make<int64_t>(TensorShape({2, 1, 2}), {1, 2, 3, 4});
  const Tensor e = Make<int64_t>(TensorShape({1, 3, 1}), {10, 20, 30});
  ASSERT_TRUE(RunKernel(SelectNode("SelectV2", DT_INT64),
                        {Vec<bool>({true, false}), t, e}, &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({2, 3, 2}),
                        {1, 10, 1, 20, 1, 30, 3, 10, 3, 20, 3, 30});
  ASSERT_TRUE(
      RunKernel(SelectNode("SelectV2", DT_FLOAT),
                {Scalar<bool>(true), Scalar<float>(1), Scalar<float>(2)}, &out)
          .ok());
  ExpectTensor<float>(out, TensorShape({}), {1});
  ExpectError(RunKernel(SelectNode("SelectV2", DT_FLOAT, "sv2"),
                        {Vec<bool>({true, false, true}),
                         Make<float>(TensorShape({2, 2}), {1, 2, 3, 4}),
                         Scalar<float>(0)},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"must be broadcastable", "[3]", "[2,2]", "{{node sv2}}"});
}

}  // namespace
}  // namespace stepflow
