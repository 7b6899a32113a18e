// Gradients of the neural-network ops: activations, softmax and the
// softmax losses, bias addition, L2 loss, 2-D convolution and pooling.
// Formulas and gradient ops are TensorFlow's.
#include <vector>

#include "runtime/c/c_api.h"
#include "runtime/c/gradient_builder.h"
#include "runtime/c/gradient_registry.h"

namespace stepflow {
namespace c_api {
namespace {

// G(dy, x): the activation gradient ops that take the features.
template <const char* kGradOp>
void FeaturesGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                  Outputs* dx) {
  *dx = {b.Op(kGradOp, {dy[0], OpInput(op, 0)},
              [op](TF_OperationDescription* d) { CopyAttr(op, "alpha", d); })};
}
constexpr char kReluGrad[] = "ReluGrad";
constexpr char kRelu6Grad[] = "Relu6Grad";
constexpr char kSoftplusGrad[] = "SoftplusGrad";
constexpr char kLeakyReluGrad[] = "LeakyReluGrad";

void EluGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {b.Op("EluGrad", {dy[0], OpOutput(op, 0)})};
}

void SoftmaxGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                 Outputs* dx) {
  // (dy - sum(dy * y, -1, keep_dims)) * y.
  TF_Output y = OpOutput(op, 0);
  TF_Output last = b.ConstInt32({-1}, true);
  TF_Output inner = b.Sum(b.Mul(dy[0], y), last, true);
  *dx = {b.Mul(b.Sub(dy[0], inner), y)};
}

void LogSoftmaxGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                    Outputs* dx) {
  // dy - sum(dy, -1, keep_dims) * exp(y).
  TF_Output last = b.ConstInt32({-1}, true);
  TF_Output softmax = b.Op("Exp", {OpOutput(op, 0)});
  *dx = {b.Sub(dy[0], b.Mul(b.Sum(dy[0], last, true), softmax))};
}

// The per-example loss gradient as a column to scale the backprop output.
TF_Output LossColumn(GradBuilder& b, TF_Output dloss) {
  return b.Op("ExpandDims", {dloss, b.ConstInt32({-1}, true)});
}

void SoftmaxCrossEntropyGrad(GradBuilder& b, TF_Operation* op,
                             const Outputs& dy, Outputs* dx) {
  TF_Output column = LossColumn(b, dy[0]);
  TF_Output dlogits = b.Mul(column, OpOutput(op, 1));
  TF_Output dlabels =
      b.Mul(column, b.Neg(b.Op("LogSoftmax", {OpInput(op, 0)})));
  *dx = {dlogits, dlabels};
}

void SparseSoftmaxCrossEntropyGrad(GradBuilder& b, TF_Operation* op,
                                   const Outputs& dy, Outputs* dx) {
  *dx = {b.Mul(LossColumn(b, dy[0]), OpOutput(op, 1)), NoGradient()};
}

void BiasAddGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                 Outputs* dx) {
  TF_Output bias = b.Op(
      "BiasAddGrad", {dy[0]},
      [op](TF_OperationDescription* d) { CopyAttr(op, "data_format", d); });
  *dx = {dy[0], bias};
}

void L2LossGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  *dx = {b.Mul(OpInput(op, 0), dy[0])};
}

void CopyConvAttrs(TF_Operation* op, TF_OperationDescription* d) {
  for (const char* name : {"strides", "padding", "data_format", "dilations",
                           "explicit_paddings", "use_cudnn_on_gpu"}) {
    CopyAttr(op, name, d);
  }
}

void Conv2DGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  TF_Output input = OpInput(op, 0), filter = OpInput(op, 1);
  auto attrs = [op](TF_OperationDescription* d) { CopyConvAttrs(op, d); };
  *dx = {b.Op("Conv2DBackpropInput", {b.Shape(input), filter, dy[0]}, attrs),
         b.Op("Conv2DBackpropFilter", {input, b.Shape(filter), dy[0]}, attrs)};
}

void CopyPoolAttrs(TF_Operation* op, TF_OperationDescription* d) {
  for (const char* name :
       {"ksize", "strides", "padding", "data_format", "explicit_paddings"}) {
    CopyAttr(op, name, d);
  }
}

void MaxPoolGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                 Outputs* dx) {
  *dx = {b.Op("MaxPoolGrad", {OpInput(op, 0), OpOutput(op, 0), dy[0]},
              [op](TF_OperationDescription* d) { CopyPoolAttrs(op, d); })};
}

void AvgPoolGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                 Outputs* dx) {
  *dx = {b.Op("AvgPoolGrad", {b.Shape(OpInput(op, 0)), dy[0]},
              [op](TF_OperationDescription* d) { CopyPoolAttrs(op, d); })};
}

REGISTER_GRADIENT("Relu", FeaturesGrad<kReluGrad>);
REGISTER_GRADIENT("Relu6", FeaturesGrad<kRelu6Grad>);
REGISTER_GRADIENT("Softplus", FeaturesGrad<kSoftplusGrad>);
REGISTER_GRADIENT("LeakyRelu", FeaturesGrad<kLeakyReluGrad>);
REGISTER_GRADIENT("Elu", EluGrad);
REGISTER_GRADIENT("Softmax", SoftmaxGrad);
REGISTER_GRADIENT("LogSoftmax", LogSoftmaxGrad);
REGISTER_GRADIENT("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyGrad);
REGISTER_GRADIENT("SparseSoftmaxCrossEntropyWithLogits",
                  SparseSoftmaxCrossEntropyGrad);
REGISTER_GRADIENT("BiasAdd", BiasAddGrad);
REGISTER_GRADIENT("L2Loss", L2LossGrad);
REGISTER_GRADIENT("Conv2D", Conv2DGrad);
REGISTER_GRADIENT("MaxPool", MaxPoolGrad);
REGISTER_GRADIENT("AvgPool", AvgPoolGrad);

}  // namespace
}  // namespace c_api
}  // namespace stepflow
