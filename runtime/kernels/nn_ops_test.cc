// BiasAdd, Relu, ReluGrad/Relu6Grad, Softmax.
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
using test::RunKernel;
using test::TestNode;
using test::Vec;

TEST(BiasAddOpTest, Nhwc) {
  Tensor out;
  ASSERT_TRUE(RunKernel(TestNode("b", "BiasAdd").Inputs(2).Attr("T", DT_FLOAT),
                        {Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                         Vec<float>({10, 20, 30})},
                        &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {11, 22, 33, 14, 25, 36});
}

TEST(BiasAddOpTest, Nchw) {
  Tensor out;
  ASSERT_TRUE(RunKernel(TestNode("b", "BiasAdd")
                            .Inputs(2)
                            .Attr("T", DT_INT32)
                            .Attr("data_format", "NCHW"),
                        {Make<int32_t>(TensorShape({1, 2, 2}), {1, 2, 3, 4}),
                         Vec<int32_t>({10, 100})},
                        &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({1, 2, 2}), {11, 12, 103, 104});
}

TEST(BiasAddOpTest, Errors) {
  Tensor out;
  const NodeDef def = TestNode("bias", "BiasAdd").Inputs(2).Attr("T", DT_FLOAT);
  ExpectError(RunKernel(def, {Vec<float>({1, 2}), Vec<float>({1, 2})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Input tensor must be at least 2D: [2]", "{{node bias}}"});
  ExpectError(RunKernel(def,
                        {Make<float>(TensorShape({1, 2}), {1, 2}),
                         Make<float>(TensorShape({1, 2}), {1, 2})},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"Biases must be 1D: [1,2]", "{{node bias}}"});
  ExpectError(
      RunKernel(def,
                {Make<float>(TensorShape({1, 2}), {1, 2}), Vec<float>({1})},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"Must provide as many biases", "[1] vs. [1,2]", "{{node bias}}"});
}

TEST(ReluOpTest, Values) {
  Tensor out;
  ASSERT_TRUE(RunKernel(TestNode("r", "Relu").Inputs(1).Attr("T", DT_FLOAT),
                        {Vec<float>({-1, 0, 2.5})}, &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({3}), {0, 0, 2.5});
  ASSERT_TRUE(RunKernel(TestNode("r", "Relu").Inputs(1).Attr("T", DT_INT64),
                        {Vec<int64_t>({-7, 7})}, &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({2}), {0, 7});
}

// ReluGrad / Relu6Grad are gradients * mask, as TensorFlow computes them:
// the mask passes the gradient where the feature is in the open range, and
// a non-finite gradient where it is not gives NaN (0 * inf), not 0.
TEST(ReluGradOpTest, MaskTimesGradientLikeTensorFlow) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor out;
  ASSERT_TRUE(
      RunKernel(TestNode("g", "ReluGrad").Inputs(2).Attr("T", DT_FLOAT),
                {Vec<float>({3, 4, 5, inf}), Vec<float>({-1, 0, 2, -2})}, &out)
          .ok());
  const float* v = out.flat<float>().data();
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_EQ(v[1], 0.0f);  // Not positive: the feature 0 blocks it.
  EXPECT_EQ(v[2], 5.0f);
  EXPECT_TRUE(std::isnan(v[3]));
  ASSERT_TRUE(
      RunKernel(TestNode("g", "Relu6Grad").Inputs(2).Attr("T", DT_FLOAT),
                {Vec<float>({3, 4, 5}), Vec<float>({0.5f, 6, 7})}, &out)
          .ok());
  ExpectTensor<float>(out, TensorShape({3}), {3, 0, 0});
  ASSERT_TRUE(RunKernel(TestNode("g", "ReluGrad").Inputs(2).Attr("T", DT_INT32),
                        {Vec<int32_t>({3, 4}), Vec<int32_t>({-1, 9})}, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({2}), {0, 4});
}

TEST(SoftmaxOpTest, RowsSumToOne) {
  Tensor out;
  ASSERT_TRUE(RunKernel(TestNode("s", "Softmax").Inputs(1).Attr("T", DT_DOUBLE),
                        {Make<double>(TensorShape({2, 3}), {1, 2, 3, 0, 0, 0})},
                        &out)
                  .ok());
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0);
  const double sum = e1 + e2 + e3;
  test::ExpectTensorNear<double>(
      out, TensorShape({2, 3}),
      {e1 / sum, e2 / sum, e3 / sum, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-12);
}

TEST(SoftmaxOpTest, StableForLargeLogitsAndHalf) {
  Tensor out;
  ASSERT_TRUE(RunKernel(TestNode("s", "Softmax").Inputs(1).Attr("T", DT_FLOAT),
                        {Vec<float>({1000, 1000})}, &out)
                  .ok());
  test::ExpectTensorNear<float>(out, TensorShape({2}), {0.5, 0.5}, 1e-6);
  ASSERT_TRUE(
      RunKernel(TestNode("s", "Softmax").Inputs(1).Attr("T", DT_HALF),
                {Vec<half>({half(0.0f), half(0.0f), half(0.0f), half(0.0f)})},
                &out)
          .ok());
  test::ExpectTensorNear<half>(out, TensorShape({4}), {0.25, 0.25, 0.25, 0.25},
                               1e-3);
}

TEST(SoftmaxOpTest, ScalarIsRejected) {
  Tensor out;
  ExpectError(RunKernel(TestNode("sm", "Softmax").Inputs(1).Attr("T", DT_FLOAT),
                        {test::Scalar<float>(1)}, &out),
              absl::StatusCode::kInvalidArgument,
              {"logits must have >= 1 dimension", "{{node sm}}"});
}

}  // namespace
}  // namespace stepflow
