// Max/Min/All/Any reductions, ArgMax/ArgMin and Cumsum: hand-computed
// values, a naive reference for Max/Min over many axis sets, dtypes,
// empty inputs and errors.
#include <gtest/gtest.h>

#include <algorithm>
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
using test::RunReduction;
using test::Scalar;
using test::TestNode;
using test::Vec;

TEST(MaxMinTest, AxesAndKeepDims) {
  const Tensor x = Make<float>(TensorShape({2, 3}), {1, 5, 3, 4, 2, 6});
  Tensor out;
  ASSERT_TRUE(RunReduction("Max", x, Vec<int32_t>({0}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({3}), {4, 5, 6});
  ASSERT_TRUE(RunReduction("Max", x, Scalar<int64_t>(-1), true, &out).ok());
  ExpectTensor<float>(out, TensorShape({2, 1}), {5, 6});
  ASSERT_TRUE(RunReduction("Min", x, Vec<int32_t>({1}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {1, 2});
  ASSERT_TRUE(RunReduction("Min", x, Vec<int32_t>({0, 1}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({}), {1});
  ASSERT_TRUE(RunReduction("Max", x, Vec<int32_t>({}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {1, 5, 3, 4, 2, 6});
  ASSERT_TRUE(RunReduction("Max", Vec<int32_t>({-5, -2, -9}), Vec<int32_t>({0}),
                           false, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {-2});
  ASSERT_TRUE(RunReduction("Min", Vec<uint8_t>({7, 200, 3}), Vec<int32_t>({0}),
                           false, &out)
                  .ok());
  ExpectTensor<uint8_t>(out, TensorShape({}), {3});
  ASSERT_TRUE(RunReduction("Max", Vec<half>({half(1.5f), half(-2.f)}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensorNear<half>(out, TensorShape({}), {1.5}, 0);
}

TEST(MaxMinTest, MatchesNaiveReference3D) {
  // x[a][b][c] = pseudo-random values in [-50, 50).
  const int A = 3, B = 4, C = 5;
  std::vector<int64_t> v(A * B * C);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int64_t>((i * 37 + 11) % 100) - 50;
  }
  const Tensor x = Make<int64_t>(TensorShape({A, B, C}), v);
  const std::vector<std::vector<int32_t>> axis_sets = {
      {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}, {-1, 0}};
  for (const auto& axes : axis_sets) {
    bool red[3] = {false, false, false};
    for (int32_t a : axes) red[a < 0 ? a + 3 : a] = true;
    std::vector<int64_t> dims;
    for (int d = 0; d < 3; ++d) {
      dims.push_back(red[d] ? 1 : std::vector<int64_t>{A, B, C}[d]);
    }
    std::vector<int64_t> want_max(dims[0] * dims[1] * dims[2],
                                  std::numeric_limits<int64_t>::lowest());
    std::vector<int64_t> want_min(want_max.size(),
                                  std::numeric_limits<int64_t>::max());
    for (int a = 0; a < A; ++a) {
      for (int b = 0; b < B; ++b) {
        for (int c = 0; c < C; ++c) {
          const int64_t o =
              ((red[0] ? 0 : a) * dims[1] + (red[1] ? 0 : b)) * dims[2] +
              (red[2] ? 0 : c);
          want_max[o] = std::max(want_max[o], v[(a * B + b) * C + c]);
          want_min[o] = std::min(want_min[o], v[(a * B + b) * C + c]);
        }
      }
    }
    Tensor out;
    ASSERT_TRUE(RunReduction("Max", x, Vec<int32_t>(axes), true, &out).ok());
    ExpectTensor<int64_t>(out, TensorShape(absl::MakeConstSpan(dims)),
                          want_max);
    ASSERT_TRUE(RunReduction("Min", x, Vec<int32_t>(axes), true, &out).ok());
    ExpectTensor<int64_t>(out, TensorShape(absl::MakeConstSpan(dims)),
                          want_min);
  }
}

TEST(MaxMinTest, EmptyReductionGivesIdentity) {
  Tensor out;
  const Tensor empty = Make<float>(TensorShape({2, 0}), {});
  ASSERT_TRUE(RunReduction("Max", empty, Vec<int32_t>({1}), false, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}),
                      {-std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()});
  ASSERT_TRUE(RunReduction("Min", Make<int32_t>(TensorShape({0}), {}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}),
                        {std::numeric_limits<int32_t>::max()});
}

TEST(MaxMinTest, Errors) {
  Tensor out;
  const Tensor x = Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectError(RunReduction("Max", x, Vec<int32_t>({2}), false, &out, "mx"),
              absl::StatusCode::kInvalidArgument,
              {"Invalid reduction dimension", "{{node mx}}"});
  ExpectError(RunReduction("Min", x, Vec<int32_t>({1, -1}), false, &out, "mn"),
              absl::StatusCode::kInvalidArgument,
              {"duplicate dimension: 1", "{{node mn}}"});
  // Complex numbers are not ordered: no kernel.
  EXPECT_FALSE(RunReduction("Max", Vec<complex64>({{1, 0}}), Vec<int32_t>({0}),
                            false, &out)
                   .ok());
}

TEST(AllAnyTest, Values) {
  const Tensor x =
      Make<bool>(TensorShape({2, 3}), {true, true, false, true, true, true});
  Tensor out;
  ASSERT_TRUE(RunReduction("All", x, Vec<int32_t>({1}), false, &out).ok());
  ExpectTensor<bool>(out, TensorShape({2}), {false, true});
  ASSERT_TRUE(RunReduction("All", x, Vec<int32_t>({0}), true, &out).ok());
  ExpectTensor<bool>(out, TensorShape({1, 3}), {true, true, false});
  ASSERT_TRUE(RunReduction("Any", x, Vec<int64_t>({0, 1}), false, &out).ok());
  ExpectTensor<bool>(out, TensorShape({}), {true});
  const Tensor none =
      Make<bool>(TensorShape({2, 2}), {false, false, true, false});
  ASSERT_TRUE(RunReduction("Any", none, Scalar<int32_t>(-1), false, &out).ok());
  ExpectTensor<bool>(out, TensorShape({2}), {false, true});
  ASSERT_TRUE(RunReduction("All", Make<bool>(TensorShape({0}), {}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({}), {true});
  ASSERT_TRUE(RunReduction("Any", Make<bool>(TensorShape({0}), {}),
                           Vec<int32_t>({0}), false, &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({}), {false});
  ExpectError(RunReduction("Any", x, Vec<int32_t>({-3}), false, &out, "any"),
              absl::StatusCode::kInvalidArgument,
              {"Invalid reduction dimension", "{{node any}}"});
}

absl::Status Arg(const std::string& op, const Tensor& x, const Tensor& dim,
                 DataType output_type, Tensor* out,
                 const std::string& name = "arg") {
  std::vector<Tensor> outs;
  absl::Status s = test::RunKernel(TestNode(name, op)
                                       .Inputs(2)
                                       .Attr("T", x.dtype())
                                       .Attr("Tidx", dim.dtype())
                                       .Attr("output_type", output_type),
                                   {x, dim}, &outs);
  if (!outs.empty()) *out = outs[0];
  return s;
}

TEST(ArgMaxMinTest, Values) {
  const Tensor x = Make<float>(TensorShape({2, 3}), {1, 5, 5, 7, 2, 7});
  Tensor out;
  ASSERT_TRUE(Arg("ArgMax", x, Scalar<int32_t>(1), DT_INT64, &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2}), {1, 0});  // First max wins.
  ASSERT_TRUE(Arg("ArgMax", x, Scalar<int32_t>(0), DT_INT32, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {1, 0, 1});
  ASSERT_TRUE(Arg("ArgMin", x, Scalar<int64_t>(-1), DT_INT64, &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2}), {0, 1});
  ASSERT_TRUE(Arg("ArgMin", x, Scalar<int32_t>(0), DT_INT64, &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({3}), {0, 1, 0});
  // Middle axis of a 3-D tensor (vectorised path).
  const Tensor y = Make<int32_t>(TensorShape({2, 3, 2}),
                                 {1, 9, 8, 2, 3, 9, 0, 0, -1, 4, 5, 4});
  ASSERT_TRUE(Arg("ArgMax", y, Scalar<int32_t>(1), DT_INT64, &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2, 2}), {1, 0, 2, 1});
  ASSERT_TRUE(Arg("ArgMin", y, Scalar<int32_t>(1), DT_INT64, &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2, 2}), {0, 1, 1, 0});
  ASSERT_TRUE(Arg("ArgMax", Vec<half>({half(1.f), half(3.f)}),
                  Scalar<int32_t>(0), DT_INT32, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {1});
}

TEST(ArgMaxMinTest, Errors) {
  Tensor out;
  const Tensor x = Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectError(
      Arg("ArgMax", x, Scalar<int32_t>(2), DT_INT64, &out, "am"),
      absl::StatusCode::kInvalidArgument,
      {"Expected dimension in the range [-2, 2), but got 2", "{{node am}}"});
  ExpectError(
      Arg("ArgMax", Scalar<float>(1), Scalar<int32_t>(0), DT_INT64, &out, "am"),
      absl::StatusCode::kInvalidArgument,
      {"Expected dimension in the range [0, 0)", "{{node am}}"});
  ExpectError(Arg("ArgMin", Make<float>(TensorShape({2, 0}), {}),
                  Scalar<int32_t>(1), DT_INT64, &out, "am"),
              absl::StatusCode::kInvalidArgument,
              {"Reduction axis 1 is empty in shape [2,0]", "{{node am}}"});
  ExpectError(Arg("ArgMax", x, Vec<int32_t>({0}), DT_INT64, &out, "am"),
              absl::StatusCode::kInvalidArgument,
              {"dim must be a scalar", "{{node am}}"});
  // Reducing a non-empty axis of a tensor with other zero dims is fine.
  ASSERT_TRUE(Arg("ArgMax", Make<float>(TensorShape({0, 3}), {}),
                  Scalar<int32_t>(1), DT_INT64, &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({0}), {});
}

absl::Status Cumsum(const Tensor& x, const Tensor& axis, bool exclusive,
                    bool reverse, Tensor* out, const std::string& name = "cs") {
  std::vector<Tensor> outs;
  absl::Status s = test::RunKernel(TestNode(name, "Cumsum")
                                       .Inputs(2)
                                       .Attr("T", x.dtype())
                                       .Attr("Tidx", axis.dtype())
                                       .Attr("exclusive", exclusive)
                                       .Attr("reverse", reverse),
                                   {x, axis}, &outs);
  if (!outs.empty()) *out = outs[0];
  return s;
}

TEST(CumsumTest, ExclusiveAndReverse) {
  const Tensor x = Vec<float>({1, 2, 3, 4});
  Tensor out;
  ASSERT_TRUE(Cumsum(x, Scalar<int32_t>(0), false, false, &out).ok());
  ExpectTensor<float>(out, TensorShape({4}), {1, 3, 6, 10});
  ASSERT_TRUE(Cumsum(x, Scalar<int32_t>(0), true, false, &out).ok());
  ExpectTensor<float>(out, TensorShape({4}), {0, 1, 3, 6});
  ASSERT_TRUE(Cumsum(x, Scalar<int32_t>(0), false, true, &out).ok());
  ExpectTensor<float>(out, TensorShape({4}), {10, 9, 7, 4});
  ASSERT_TRUE(Cumsum(x, Scalar<int64_t>(-1), true, true, &out).ok());
  ExpectTensor<float>(out, TensorShape({4}), {9, 7, 4, 0});
}

TEST(CumsumTest, AxesAndTypes) {
  const Tensor m = Make<int32_t>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  Tensor out;
  ASSERT_TRUE(Cumsum(m, Scalar<int32_t>(0), false, false, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 3}), {1, 2, 3, 5, 7, 9});
  ASSERT_TRUE(Cumsum(m, Scalar<int32_t>(1), false, false, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 3}), {1, 3, 6, 4, 9, 15});
  ASSERT_TRUE(Cumsum(m, Scalar<int32_t>(0), true, true, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 3}), {4, 5, 6, 0, 0, 0});
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  ASSERT_TRUE(
      Cumsum(Vec<int32_t>({max32, 1}), Scalar<int32_t>(0), false, false, &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({2}),
                        {max32, std::numeric_limits<int32_t>::min()});
  ASSERT_TRUE(Cumsum(Vec<complex64>({{1, 1}, {2, -1}}), Scalar<int32_t>(0),
                     false, false, &out)
                  .ok());
  ExpectTensor<complex64>(out, TensorShape({2}), {{1, 1}, {3, 0}});
  ASSERT_TRUE(Cumsum(Make<float>(TensorShape({0, 2}), {}), Scalar<int32_t>(1),
                     false, false, &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({0, 2}), {});
}

TEST(CumsumTest, Errors) {
  Tensor out;
  ExpectError(
      Cumsum(Vec<float>({1, 2}), Scalar<int32_t>(1), false, false, &out),
      absl::StatusCode::kInvalidArgument,
      {"Expected scan axis in the range [-1, 1), but got 1", "{{node cs}}"});
  ExpectError(Cumsum(Scalar<float>(1), Scalar<int32_t>(0), false, false, &out),
              absl::StatusCode::kInvalidArgument,
              {"Expected scan axis in the range [0, 0)", "{{node cs}}"});
  ExpectError(Cumsum(Vec<float>({1, 2}), Vec<int32_t>({0}), false, false, &out),
              absl::StatusCode::kInvalidArgument,
              {"axis must be a scalar, not [1]", "{{node cs}}"});
}

}  // namespace
}  // namespace stepflow
