// Sum/Mean/Prod: fixed cases, a naive reference over many shapes and axis
// sets, dtypes and errors.
#include <algorithm>
#include <cmath>
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
using test::RunReduction;
using test::TestNode;
using test::Vec;

const Tensor& M23() {
  static const Tensor* t =
      new Tensor(Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}));
  return *t;
}

TEST(ReductionOpsTest, SumAxes) {
  Tensor out;
  ASSERT_TRUE(RunReduction("Sum", M23(), Vec<int32_t>({0}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {5, 7, 9});
  ASSERT_TRUE(
      RunReduction("Sum", M23(), test::Scalar<int32_t>(1), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {6, 15});
  ASSERT_TRUE(RunReduction("Sum", M23(), Vec<int64_t>({-1}), true, &out).ok());
  ExpectTensor<float>(out, TensorShape({2, 1}), {6, 15});
  ASSERT_TRUE(
      RunReduction("Sum", M23(), Vec<int32_t>({0, 1}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({}), {21});
  ASSERT_TRUE(
      RunReduction("Sum", M23(), Vec<int32_t>({1, 0}), true, &out).ok());
  ExpectTensor<float>(out, TensorShape({1, 1}), {21});
  ASSERT_TRUE(RunReduction("Sum", M23(), Vec<int32_t>({}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
}

TEST(ReductionOpsTest, MeanAndProd) {
  Tensor out;
  ASSERT_TRUE(RunReduction("Mean", M23(), Vec<int32_t>({0}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {2.5, 3.5, 4.5});
  ASSERT_TRUE(RunReduction("Prod", M23(), Vec<int32_t>({1}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {6, 120});
  // Integer mean truncates toward zero and does not overflow the type.
  ASSERT_TRUE(RunReduction("Mean", Vec<int8_t>({100, 100, -1}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<int8_t>(out, TensorShape({}), {66});
  ASSERT_TRUE(RunReduction("Mean", Vec<int32_t>({-3, 0}), Vec<int32_t>({0}),
                           false, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {-1});
}

TEST(ReductionOpsTest, IntegerSumWraps) {
  Tensor out;
  ASSERT_TRUE(RunReduction("Sum", Vec<int8_t>({100, 100}), Vec<int32_t>({0}),
                           false, &out)
                  .ok());
  ExpectTensor<int8_t>(out, TensorShape({}), {-56});
  ASSERT_TRUE(RunReduction("Prod", Vec<uint16_t>({65535, 65535}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<uint16_t>(out, TensorShape({}), {1});
}

TEST(ReductionOpsTest, EmptyReductions) {
  Tensor out;
  const Tensor empty = Make<float>(TensorShape({0, 2}), {});
  ASSERT_TRUE(RunReduction("Sum", empty, Vec<int32_t>({0}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {0, 0});
  ASSERT_TRUE(RunReduction("Prod", empty, Vec<int32_t>({0}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {1, 1});
  ASSERT_TRUE(RunReduction("Mean", empty, Vec<int32_t>({0}), false, &out).ok());
  EXPECT_TRUE(std::isnan(test::Values<float>(out)[0]));
  ASSERT_TRUE(RunReduction("Sum", empty, Vec<int32_t>({1}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({0}), {});
  ASSERT_TRUE(RunReduction("Mean", Make<int32_t>(TensorShape({0}), {}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {0});
}

TEST(ReductionOpsTest, HalfAndComplex) {
  Tensor out;
  std::vector<half> v(1000, half(0.1f));
  ASSERT_TRUE(
      RunReduction("Sum", Vec<half>(v), Vec<int32_t>({0}), false, &out).ok());
  // Accumulated in float: close to 100 (a half accumulator would stall).
  test::ExpectTensorNear<half>(out, TensorShape({}), {100.0}, 0.2);
  ASSERT_TRUE(RunReduction("Prod", Vec<complex64>({{0, 1}, {0, 1}}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<complex64>(out, TensorShape({}), {complex64(-1, 0)});
}

// A NaN among the reduced elements makes Max and Min NaN, as in
// TensorFlow (found by the random-graph differential), along the last axis
// (folded) and along the first (element-wise).
TEST(ReductionOpsTest, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x(DT_FLOAT, TensorShape({2, 3}));
  const float v[] = {1, nan, -2, 4, 5, 6};
  for (int i = 0; i < 6; ++i) x.flat<float>()(i) = v[i];
  for (const char* op : {"Max", "Min"}) {
    Tensor out;
    ASSERT_TRUE(RunReduction(op, x, Vec<int32_t>({1}), false, &out).ok());
    EXPECT_TRUE(std::isnan(out.flat<float>()(0))) << op;
    EXPECT_FALSE(std::isnan(out.flat<float>()(1))) << op;
    ASSERT_TRUE(RunReduction(op, x, Vec<int32_t>({0}), false, &out).ok());
    EXPECT_FALSE(std::isnan(out.flat<float>()(0))) << op;
    EXPECT_TRUE(std::isnan(out.flat<float>()(1))) << op;
    EXPECT_FALSE(std::isnan(out.flat<float>()(2))) << op;
  }
}

TEST(ReductionOpsTest, Errors) {
  Tensor out;
  ExpectError(RunReduction("Sum", M23(), Vec<int32_t>({2}), false, &out, "sum"),
              absl::StatusCode::kInvalidArgument,
              {"Invalid reduction dimension (2 for input with 2 dimension(s)",
               "{{node sum}}"});
  ExpectError(
      RunReduction("Mean", M23(), Vec<int64_t>({-3}), false, &out, "mean"),
      absl::StatusCode::kInvalidArgument,
      {"Invalid reduction dimension", "{{node mean}}"});
  ExpectError(RunReduction("Sum", test::Scalar<float>(1), Vec<int32_t>({0}),
                           false, &out, "s"),
              absl::StatusCode::kInvalidArgument, {"{{node s}}"});
  ExpectError(
      RunReduction("Sum", M23(), Vec<int32_t>({0, 0}), false, &out, "s2"),
      absl::StatusCode::kInvalidArgument,
      {"duplicate dimension: 0", "{{node s2}}"});
  // Axes of any rank are read in order (as in TensorFlow).
  ASSERT_TRUE(RunReduction("Sum", M23(),
                           Make<int32_t>(TensorShape({1, 1}), {0}), false, &out)
                  .ok());
  EXPECT_EQ(out.shape(), TensorShape({3}));
}

// Naive reference over shapes up to rank 4 and every axis subset.
TEST(ReductionOpsTest, MatchesNaiveReference) {
  const std::vector<std::vector<int64_t>> shapes = {
      {5}, {2, 3}, {3, 1, 4}, {2, 3, 4}, {2, 1, 3, 2}, {1, 4, 1, 3}};
  for (const auto& dims : shapes) {
    const TensorShape shape(absl::MakeConstSpan(dims));
    const int rank = shape.dims();
    std::vector<double> values(shape.num_elements());
    for (size_t i = 0; i < values.size(); ++i) values[i] = (i * 37 % 11) - 4.5;
    const Tensor x = Make<double>(shape, values);
    for (int mask = 0; mask < (1 << rank); ++mask) {
      std::vector<int32_t> axes;
      for (int d = 0; d < rank; ++d) {
        if (mask & (1 << d)) axes.push_back(d - ((d % 2) ? rank : 0));
      }
      // Expected: accumulate by output index.
      std::vector<int64_t> out_dims;
      for (int d = 0; d < rank; ++d) {
        out_dims.push_back((mask & (1 << d)) ? 1 : dims[d]);
      }
      int64_t out_n = 1;
      for (int64_t d : out_dims) out_n *= d;
      std::vector<double> sum(out_n, 0), prod(out_n, 1);
      std::vector<int64_t> idx(rank, 0);
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t rem = i, o = 0;
        for (int d = rank - 1; d >= 0; --d) {
          idx[d] = rem % dims[d];
          rem /= dims[d];
        }
        for (int d = 0; d < rank; ++d) {
          o = o * out_dims[d] + ((mask & (1 << d)) ? 0 : idx[d]);
        }
        sum[o] += values[i];
        prod[o] *= values[i];
      }
      const int64_t count = shape.num_elements() / out_n;
      std::vector<double> mean(sum);
      for (double& m : mean) m /= count;
      Tensor out;
      const Tensor axes_t = Vec<int32_t>(axes);
      ASSERT_TRUE(RunReduction("Sum", x, axes_t, true, &out).ok());
      test::ExpectTensorNear<double>(
          out, TensorShape(absl::MakeConstSpan(out_dims)), sum, 1e-9);
      ASSERT_TRUE(RunReduction("Prod", x, axes_t, true, &out).ok());
      const std::vector<double> got = test::Values<double>(out);
      ASSERT_EQ(got.size(), prod.size());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], prod[i], 1e-9 * std::max(1.0, std::abs(prod[i])));
      }
      ASSERT_TRUE(RunReduction("Mean", x, axes_t, false, &out).ok());
      EXPECT_EQ(out.NumElements(), out_n);
      test::ExpectTensorNear<double>(out, out.shape(), mean, 1e-9);
    }
  }
}

}  // namespace
}  // namespace stepflow
