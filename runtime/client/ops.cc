#include "runtime/client/ops.h"

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace client {
namespace ops {
namespace {

Output First(const Operation& op) {
  return op.valid() ? op.output(0) : Output();
}

Output Unary(const Scope& scope, const char* op, Output x) {
  return First(scope.AddOp(op, {x}, {}));
}

Output Binary(const Scope& scope, const char* op, Output x, Output y) {
  return First(scope.AddOp(op, {x, y}, {}));
}

Output Random(const Scope& scope, const char* op, Output shape, DataType dtype,
              int64_t seed, int64_t seed2) {
  return First(scope.AddOp(op, {shape},
                           {{"dtype", AttrType(dtype)},
                            {"seed", AttrInt(seed)},
                            {"seed2", AttrInt(seed2)}}));
}

}  // namespace

Output Const(const Scope& scope, const Tensor& value) {
  return First(scope.AddOp(
      "Const", {},
      {{"dtype", AttrType(value.dtype())}, {"value", AttrTensor(value)}}));
}
Output Const(const Scope& scope, float value) {
  return Const(scope, Tensor::Scalar<float>(value));
}
Output Const(const Scope& scope, int32_t value) {
  return Const(scope, Tensor::Scalar<int32_t>(value));
}
Output Const(const Scope& scope, const std::vector<float>& values,
             const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d < 0 ? 0 : d;
  if (n != static_cast<int64_t>(values.size())) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("Const: ", values.size(),
                     " values do not fill a shape of ", n, " elements")));
    return Output();
  }
  TensorShape tensor_shape;
  absl::Status st = TensorShape::BuildTensorShape(shape, &tensor_shape);
  if (!st.ok()) {
    scope.UpdateStatus(st);
    return Output();
  }
  Tensor t(DT_FLOAT, tensor_shape);
  float* data = t.base<float>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return Const(scope, t);
}
Output Placeholder(const Scope& scope, DataType dtype) {
  return First(scope.AddOp("Placeholder", {}, {{"dtype", AttrType(dtype)}}));
}

Output Identity(const Scope& s, Output x) { return Unary(s, "Identity", x); }
Output Add(const Scope& s, Output x, Output y) {
  return Binary(s, "Add", x, y);
}
Output AddV2(const Scope& s, Output x, Output y) {
  return Binary(s, "AddV2", x, y);
}
Output Sub(const Scope& s, Output x, Output y) {
  return Binary(s, "Sub", x, y);
}
Output Mul(const Scope& s, Output x, Output y) {
  return Binary(s, "Mul", x, y);
}
Output RealDiv(const Scope& s, Output x, Output y) {
  return Binary(s, "RealDiv", x, y);
}
Output Neg(const Scope& s, Output x) { return Unary(s, "Neg", x); }
Output Square(const Scope& s, Output x) { return Unary(s, "Square", x); }
Output Exp(const Scope& s, Output x) { return Unary(s, "Exp", x); }
Output Log(const Scope& s, Output x) { return Unary(s, "Log", x); }
Output Tanh(const Scope& s, Output x) { return Unary(s, "Tanh", x); }
Output Sigmoid(const Scope& s, Output x) { return Unary(s, "Sigmoid", x); }
Output AddN(const Scope& s, const std::vector<Output>& inputs) {
  return First(s.AddOp("AddN", inputs, {}));
}
Output Cast(const Scope& s, Output x, DataType to) {
  return First(s.AddOp("Cast", {x}, {{"DstT", AttrType(to)}}));
}

Output Sum(const Scope& s, Output x, Output axes, bool keep_dims) {
  return First(s.AddOp("Sum", {x, axes}, {{"keep_dims", AttrBool(keep_dims)}}));
}
Output Mean(const Scope& s, Output x, Output axes, bool keep_dims) {
  return First(
      s.AddOp("Mean", {x, axes}, {{"keep_dims", AttrBool(keep_dims)}}));
}

Output MatMul(const Scope& s, Output a, Output b, bool transpose_a,
              bool transpose_b) {
  return First(s.AddOp("MatMul", {a, b},
                       {{"transpose_a", AttrBool(transpose_a)},
                        {"transpose_b", AttrBool(transpose_b)}}));
}
Output BiasAdd(const Scope& s, Output value, Output bias) {
  return Binary(s, "BiasAdd", value, bias);
}
Output Relu(const Scope& s, Output x) { return Unary(s, "Relu", x); }
Output Softmax(const Scope& s, Output logits) {
  return Unary(s, "Softmax", logits);
}
Operation SoftmaxCrossEntropyWithLogits(const Scope& s, Output logits,
                                        Output labels) {
  return s.AddOp("SoftmaxCrossEntropyWithLogits", {logits, labels}, {});
}

Output Shape(const Scope& s, Output x) { return Unary(s, "Shape", x); }
Output Reshape(const Scope& s, Output x, Output shape) {
  return Binary(s, "Reshape", x, shape);
}
Output Fill(const Scope& s, Output dims, Output value) {
  return Binary(s, "Fill", dims, value);
}
Output ZerosLike(const Scope& s, Output x) { return Unary(s, "ZerosLike", x); }

Output RandomUniform(const Scope& s, Output shape, DataType dtype, int64_t seed,
                     int64_t seed2) {
  return Random(s, "RandomUniform", shape, dtype, seed, seed2);
}
Output RandomStandardNormal(const Scope& s, Output shape, DataType dtype,
                            int64_t seed, int64_t seed2) {
  return Random(s, "RandomStandardNormal", shape, dtype, seed, seed2);
}

Output Variable(const Scope& s, const std::vector<int64_t>& shape,
                DataType dtype) {
  return First(
      s.AddOp("VariableV2", {},
              {{"shape", AttrShape(shape)}, {"dtype", AttrType(dtype)}}));
}
Output Assign(const Scope& s, Output ref, Output value) {
  return Binary(s, "Assign", ref, value);
}
Output AssignAdd(const Scope& s, Output ref, Output value) {
  return Binary(s, "AssignAdd", ref, value);
}
Output AssignSub(const Scope& s, Output ref, Output value) {
  return Binary(s, "AssignSub", ref, value);
}
Output ApplyGradientDescent(const Scope& s, Output var, Output alpha,
                            Output delta) {
  return First(s.AddOp("ApplyGradientDescent", {var, alpha, delta}, {}));
}

Operation NoOp(const Scope& s) { return s.AddOp("NoOp", {}, {}); }
Operation Group(const Scope& s, const std::vector<Operation>& ops) {
  return NoOp(s.WithControlDependencies(ops));
}

}  // namespace ops
}  // namespace client
}  // namespace stepflow
