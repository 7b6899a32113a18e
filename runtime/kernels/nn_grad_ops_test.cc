// Activations (Relu6, Elu, Softplus, LogSoftmax), their gradient ops
// (ReluGrad, Relu6Grad, EluGrad, SoftplusGrad), BiasAddGrad, the softmax
// cross-entropy losses and L2Loss: hand-computed values, gradients
// checked against finite differences of the forward ops, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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
using test::RunKernel;
using test::RunKernelOkOutput;
using test::Scalar;
using test::TestNode;
using test::TypedNode;
using test::Values;
using test::Vec;

TEST(ActivationTest, ForwardValues) {
  ExpectTensor<float>(RunKernelOkOutput(TypedNode("Relu6", 1, DT_FLOAT),
                                        {Vec<float>({-1, 3, 7})}),
                      TensorShape({3}), {0, 3, 6});
  ExpectTensor<int32_t>(RunKernelOkOutput(TypedNode("Relu6", 1, DT_INT32),
                                          {Vec<int32_t>({-4, 5, 60})}),
                        TensorShape({3}), {0, 5, 6});
  ExpectTensorNear<double>(RunKernelOkOutput(TypedNode("Elu", 1, DT_DOUBLE),
                                             {Vec<double>({-1, 0, 2})}),
                           TensorShape({3}), {std::exp(-1.0) - 1, 0, 2}, 1e-12);
  // Softplus is exact at the extremes instead of overflowing.
  ExpectTensorNear<float>(
      RunKernelOkOutput(TypedNode("Softplus", 1, DT_FLOAT),
                        {Vec<float>({0, 100, -100, 1, 10000})}),
      TensorShape({5}),
      {std::log(2.0), 100, std::exp(-100.0), std::log1p(std::exp(1.0)), 10000},
      1e-6);
  ExpectTensorNear<half>(RunKernelOkOutput(TypedNode("Softplus", 1, DT_HALF),
                                           {Vec<half>({half(0.f)})}),
                         TensorShape({1}), {std::log(2.0)}, 1e-3);
}

TEST(ActivationTest, LogSoftmax) {
  const Tensor logits =
      Make<double>(TensorShape({2, 3}), {1, 2, 3, 0, 0, 1000});
  const Tensor out =
      RunKernelOkOutput(TypedNode("LogSoftmax", 1, DT_DOUBLE), {logits});
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  ExpectTensorNear<double>(out, TensorShape({2, 3}),
                           {1 - lse, 2 - lse, 3 - lse, -1000, -1000, 0}, 1e-9);
  // exp(LogSoftmax) == Softmax.
  const Tensor sm =
      RunKernelOkOutput(TypedNode("Softmax", 1, DT_DOUBLE), {logits});
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(std::exp(out.base<double>()[i]), sm.base<double>()[i], 1e-12);
  }
  std::vector<Tensor> outs;
  ExpectError(RunKernel(TypedNode("LogSoftmax", 1, DT_FLOAT, "ls"),
                        {Scalar<float>(1)}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"logits must have >= 1 dimension", "{{node ls}}"});
}

// Each activation gradient against central differences of its forward op.
TEST(ActivationGradTest, MatchesFiniteDifferences) {
  // Features away from the kinks at 0 and 6.
  const Tensor x =
      Make<double>(TensorShape({2, 3}), {-2.5, -0.7, 0.4, 1.3, 5.2, 7.5});
  const std::vector<double> dy = {0.3, -1.1, 0.8, 2.0, -0.4, 1.7};
  const Tensor g = Make<double>(TensorShape({2, 3}), dy);
  struct Case {
    const char* forward;
    const char* grad;
    bool grad_takes_outputs;  // EluGrad takes the forward outputs.
  };
  for (const Case& c :
       {Case{"Relu", "ReluGrad", false}, Case{"Relu6", "Relu6Grad", false},
        Case{"Elu", "EluGrad", true},
        Case{"Softplus", "SoftplusGrad", false}}) {
    SCOPED_TRACE(c.forward);
    const NodeDef fwd = TypedNode(c.forward, 1, DT_DOUBLE);
    const Tensor second =
        c.grad_takes_outputs ? RunKernelOkOutput(fwd, {x}) : x;
    const Tensor grad =
        RunKernelOkOutput(TypedNode(c.grad, 2, DT_DOUBLE), {g, second});
    const std::vector<double> numeric =
        test::NumericGradient(test::KernelForward(fwd), {x}, 0, dy);
    test::ExpectAllClose(Values<double>(grad), numeric, 1e-6);
  }
}

TEST(ActivationGradTest, HandValuesAndShapeErrors) {
  ExpectTensor<float>(
      RunKernelOkOutput(TypedNode("ReluGrad", 2, DT_FLOAT),
                        {Vec<float>({5, 5, 5}), Vec<float>({-1, 0, 2})}),
      TensorShape({3}), {0, 0, 5});
  ExpectTensor<int32_t>(RunKernelOkOutput(TypedNode("Relu6Grad", 2, DT_INT32),
                                          {Vec<int32_t>({5, 5, 5, 5}),
                                           Vec<int32_t>({-1, 3, 6, 9})}),
                        TensorShape({4}), {0, 5, 0, 0});
  ExpectTensorNear<float>(
      RunKernelOkOutput(TypedNode("EluGrad", 2, DT_FLOAT),
                        {Vec<float>({2, 2}), Vec<float>({-0.5f, 3})}),
      TensorShape({2}), {1, 2}, 1e-6);
  std::vector<Tensor> outs;
  for (const char* op : {"ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad"}) {
    ExpectError(
        RunKernel(TypedNode(op, 2, DT_FLOAT, "act_grad"),
                  {Make<float>(TensorShape({2, 2}), {1, 2, 3, 4}),
                   Vec<float>({1, 2, 3, 4})},
                  &outs),
        absl::StatusCode::kInvalidArgument,
        {"must have the same shape: [2,2] vs. [4]", "{{node act_grad}}"});
  }
}

TEST(BiasAddGradTest, SumsAllButChannel) {
  ExpectTensor<float>(
      RunKernelOkOutput(TypedNode("BiasAddGrad", 1, DT_FLOAT),
                        {Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6})}),
      TensorShape({3}), {5, 7, 9});
  ExpectTensor<int32_t>(
      RunKernelOkOutput(
          TestNode("b", "BiasAddGrad")
              .Inputs(1)
              .Attr("T", DT_INT32)
              .Attr("data_format", "NCHW"),
          {Make<int32_t>(TensorShape({2, 2, 2}), {1, 2, 3, 4, 5, 6, 7, 8})}),
      TensorShape({2}), {14, 22});
  ExpectTensorNear<half>(
      RunKernelOkOutput(TypedNode("BiasAddGrad", 1, DT_HALF),
                        {Make<half>(TensorShape({3, 1}),
                                    {half(0.5f), half(0.25f), half(1.f)})}),
      TensorShape({1}), {1.75}, 0);
  ExpectTensor<float>(RunKernelOkOutput(TypedNode("BiasAddGrad", 1, DT_FLOAT),
                                        {Make<float>(TensorShape({0, 2}), {})}),
                      TensorShape({2}), {0, 0});
  std::vector<Tensor> outs;
  ExpectError(RunKernel(TypedNode("BiasAddGrad", 1, DT_FLOAT, "bag"),
                        {Vec<float>({1, 2})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Input tensor must be at least 2D: [2]", "{{node bag}}"});
}

TEST(BiasAddGradTest, IsTheGradientOfBiasAdd) {
  const Tensor value = Make<double>(TensorShape({2, 3, 2}),
                                    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  std::vector<double> dy(12);
  for (int i = 0; i < 12; ++i) dy[i] = 0.1 * i - 0.5;
  const Tensor g = Make<double>(TensorShape({2, 3, 2}), dy);
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    const int64_t channels = std::string(format) == "NHWC" ? 2 : 3;
    const Tensor bias = Vec<double>(std::vector<double>(channels, 0.5));
    const NodeDef fwd = TestNode("b", "BiasAdd")
                            .Inputs(2)
                            .Attr("T", DT_DOUBLE)
                            .Attr("data_format", format);
    const Tensor grad = RunKernelOkOutput(TestNode("bg", "BiasAddGrad")
                                              .Inputs(1)
                                              .Attr("T", DT_DOUBLE)
                                              .Attr("data_format", format),
                                          {g});
    const std::vector<double> numeric =
        test::NumericGradient(test::KernelForward(fwd), {value, bias}, 1, dy);
    test::ExpectAllClose(Values<double>(grad), numeric, 1e-6);
  }
}

NodeDef Xent(DataType t = DT_DOUBLE, const std::string& name = "xent") {
  return TypedNode("SoftmaxCrossEntropyWithLogits", 2, t, name);
}

NodeDef SparseXent(DataType t, DataType labels,
                   const std::string& name = "sxent") {
  return TestNode(name, "SparseSoftmaxCrossEntropyWithLogits")
      .Inputs(2)
      .Attr("T", t)
      .Attr("Tlabels", labels);
}

TEST(SoftmaxXentTest, LossAndBackprop) {
  const Tensor logits = Make<double>(TensorShape({2, 3}), {1, 2, 3, 0, 0, 0});
  const Tensor labels =
      Make<double>(TensorShape({2, 3}), {0, 0, 1, 0.5, 0.5, 0});
  std::vector<Tensor> outs;
  ASSERT_TRUE(RunKernel(Xent(), {logits, labels}, &outs).ok());
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  ExpectTensorNear<double>(outs[0], TensorShape({2}), {lse - 3, std::log(3.0)},
                           1e-12);
  const double p1 = std::exp(1 - lse), p2 = std::exp(2 - lse),
               p3 = std::exp(3 - lse);
  ExpectTensorNear<double>(
      outs[1], TensorShape({2, 3}),
      {p1, p2, p3 - 1, 1.0 / 3 - 0.5, 1.0 / 3 - 0.5, 1.0 / 3}, 1e-12);
  // Large logits: no overflow.
  ASSERT_TRUE(RunKernel(Xent(DT_FLOAT),
                        {Make<float>(TensorShape({1, 2}), {1000, 0}),
                         Make<float>(TensorShape({1, 2}), {0, 1})},
                        &outs)
                  .ok());
  ExpectTensorNear<float>(outs[0], TensorShape({1}), {1000}, 1e-3);
}

TEST(SoftmaxXentTest, BackpropMatchesFiniteDifferences) {
  const Tensor logits =
      Make<double>(TensorShape({3, 4}),
                   {0.1, -1.2, 2.0, 0.5, 1.0, 1.0, 1.0, 1.0, -3, 0.2, 0.7, 4});
  const Tensor labels =
      Make<double>(TensorShape({3, 4}),
                   {0.1, 0.2, 0.3, 0.4, 0, 1, 0, 0, 0.25, 0.25, 0.25, 0.25});
  std::vector<Tensor> outs;
  ASSERT_TRUE(RunKernel(Xent(), {logits, labels}, &outs).ok());
  const std::vector<double> numeric = test::NumericGradient(
      test::KernelForward(Xent(), 0), {logits, labels}, 0, {1, 1, 1});
  test::ExpectAllClose(Values<double>(outs[1]), numeric, 1e-6);
}

TEST(SoftmaxXentTest, BroadcastsLabelsAndLogits) {
  // Labels [1, 3] shared by both rows.
  const Tensor logits = Make<double>(TensorShape({2, 3}), {1, 2, 3, 3, 2, 1});
  const Tensor row = Make<double>(TensorShape({1, 3}), {0, 0, 1});
  const Tensor full = Make<double>(TensorShape({2, 3}), {0, 0, 1, 0, 0, 1});
  std::vector<Tensor> b, f;
  ASSERT_TRUE(RunKernel(Xent(), {logits, row}, &b).ok());
  ASSERT_TRUE(RunKernel(Xent(), {logits, full}, &f).ok());
  EXPECT_EQ(Values<double>(b[0]), Values<double>(f[0]));
  EXPECT_EQ(Values<double>(b[1]), Values<double>(f[1]));
  EXPECT_EQ(b[1].shape(), TensorShape({2, 3}));
  // Logits [1, 3] against labels [2, 3].
  ASSERT_TRUE(RunKernel(Xent(),
                        {Make<double>(TensorShape({1, 3}), {1, 2, 3}), full},
                        &b)
                  .ok());
  EXPECT_EQ(b[0].shape(), TensorShape({2}));
  EXPECT_EQ(b[0].base<double>()[0], b[0].base<double>()[1]);
}

TEST(SoftmaxXentTest, Errors) {
  std::vector<Tensor> outs;
  ExpectError(RunKernel(Xent(DT_FLOAT),
                        {Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                         Make<float>(TensorShape({2, 2}), {1, 0, 1, 0})},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"logits and labels must be broadcastable",
               "logits_size=[2,3] labels_size=[2,2]", "{{node xent}}"});
  ExpectError(RunKernel(Xent(DT_FLOAT),
                        {Vec<float>({1, 2}), Vec<float>({0, 1})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"must be either 2-dimensional", "{{node xent}}"});
}

TEST(SparseSoftmaxXentTest, MatchesDenseWithOneHotLabels) {
  const Tensor logits =
      Make<double>(TensorShape({3, 4}),
                   {0.1, -1.2, 2.0, 0.5, 1.0, 1.0, 1.0, 1.0, -3, 0.2, 0.7, 4});
  const Tensor onehot =
      Make<double>(TensorShape({3, 4}), {0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1});
  std::vector<Tensor> dense, sparse32, sparse64;
  ASSERT_TRUE(RunKernel(Xent(), {logits, onehot}, &dense).ok());
  ASSERT_TRUE(RunKernel(SparseXent(DT_DOUBLE, DT_INT32),
                        {logits, Vec<int32_t>({2, 0, 3})}, &sparse32)
                  .ok());
  ASSERT_TRUE(RunKernel(SparseXent(DT_DOUBLE, DT_INT64),
                        {logits, Vec<int64_t>({2, 0, 3})}, &sparse64)
                  .ok());
  for (const auto* s : {&sparse32, &sparse64}) {
    test::ExpectAllClose(Values<double>((*s)[0]), Values<double>(dense[0]),
                         1e-12);
    test::ExpectAllClose(Values<double>((*s)[1]), Values<double>(dense[1]),
                         1e-12);
  }
  // Backprop against finite differences of the sparse loss itself.
  const std::vector<double> numeric = test::NumericGradient(
      test::KernelForward(SparseXent(DT_DOUBLE, DT_INT32), 0),
      {logits, Vec<int32_t>({2, 0, 3})}, 0, {1, 1, 1});
  test::ExpectAllClose(Values<double>(sparse32[1]), numeric, 1e-6);
  // float and half compute.
  ASSERT_TRUE(
      RunKernel(SparseXent(DT_HALF, DT_INT64),
                {Make<half>(TensorShape({1, 2}), {half(0.f), half(0.f)}),
                 Vec<int64_t>({1})},
                &sparse64)
          .ok());
  ExpectTensorNear<half>(sparse64[0], TensorShape({1}), {std::log(2.0)}, 1e-3);
}

TEST(SparseSoftmaxXentTest, OutOfRangeLabelNamesNode) {
  std::vector<Tensor> outs;
  const Tensor logits =
      Make<float>(TensorShape({3, 3}), std::vector<float>(9, 0));
  ExpectError(RunKernel(SparseXent(DT_FLOAT, DT_INT64, "loss_op"),
                        {logits, Vec<int64_t>({1, 5, 2})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Received a label value of 5 which is outside the valid range "
               "of [0, 3)",
               "Label values: 1 5 2", "{{node loss_op}}"});
  ExpectError(RunKernel(SparseXent(DT_FLOAT, DT_INT32, "loss_op"),
                        {logits, Vec<int32_t>({-1, 0, 0})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Received a label value of -1", "{{node loss_op}}"});
}

TEST(SparseSoftmaxXentTest, ShapeErrors) {
  std::vector<Tensor> outs;
  const NodeDef def = SparseXent(DT_FLOAT, DT_INT32);
  ExpectError(RunKernel(def, {Vec<float>({1, 2}), Vec<int32_t>({0})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"logits must be 2-D, but got shape [2]", "{{node sxent}}"});
  ExpectError(RunKernel(def,
                        {Make<float>(TensorShape({1, 2}), {1, 2}),
                         Make<int32_t>(TensorShape({1, 1}), {0})},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"labels must be 1-D, but got shape [1,1]", "{{node sxent}}"});
  ExpectError(RunKernel(def,
                        {Make<float>(TensorShape({2, 2}), {1, 2, 3, 4}),
                         Vec<int32_t>({0})},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"must have the same first dimension", "{{node sxent}}"});
  ExpectError(
      RunKernel(def,
                {Make<float>(TensorShape({2, 0}), {}), Vec<int32_t>({0, 0})},
                &outs),
      absl::StatusCode::kInvalidArgument,
      {"Must have at least one class", "{{node sxent}}"});
  ASSERT_TRUE(RunKernel(def,
                        {Make<float>(TensorShape({0, 3}), {}),
                         Make<int32_t>(TensorShape({0}), {})},
                        &outs)
                  .ok());
  ExpectTensor<float>(outs[0], TensorShape({0}), {});
}

TEST(L2LossTest, Values) {
  ExpectTensor<float>(
      RunKernelOkOutput(TypedNode("L2Loss", 1, DT_FLOAT),
                        {Make<float>(TensorShape({2, 2}), {1, 2, 3, 4})}),
      TensorShape({}), {15});
  ExpectTensor<double>(RunKernelOkOutput(TypedNode("L2Loss", 1, DT_DOUBLE),
                                         {Make<double>(TensorShape({0}), {})}),
                       TensorShape({}), {0});
  ExpectTensorNear<bfloat16>(
      RunKernelOkOutput(TypedNode("L2Loss", 1, DT_BFLOAT16),
                        {Vec<bfloat16>({bfloat16(2.f), bfloat16(2.f)})}),
      TensorShape({}), {4}, 0);
  std::vector<Tensor> outs;
  EXPECT_FALSE(
      RunKernel(TypedNode("L2Loss", 1, DT_INT32), {Vec<int32_t>({1})}, &outs)
          .ok());
}

}  // namespace
}  // namespace stepflow
