// Typed wrappers for the ops the runtime has kernels for, in the spirit of
// TensorFlow's generated C++ ops. Each adds one node to the scope's graph
// (named after the op type unless the scope says WithOpName) and returns
// its output(s); errors go to the scope's status (client/scope.h) and the
// result is then invalid.
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
//   auto w = ops::Variable(root.WithOpName("w"), {}, DT_FLOAT);
//   auto y = ops::Add(root, ops::Mul(root, w, x), ops::Const(root, 1.0f));
//
// Anything else registered can be built with Scope::AddOp.
#ifndef STEPFLOW_RUNTIME_CLIENT_OPS_H_
#define STEPFLOW_RUNTIME_CLIENT_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/client/graph.h"
#include "runtime/client/scope.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace client {
namespace ops {

// Constants and inputs.
Output Const(const Scope& scope, const Tensor& value);
Output Const(const Scope& scope, float value);
Output Const(const Scope& scope, int32_t value);
// A float tensor of `shape` (row-major values; sizes must agree).
Output Const(const Scope& scope, const std::vector<float>& values,
             const std::vector<int64_t>& shape);
Output Placeholder(const Scope& scope, DataType dtype);

// Element-wise math (NumPy broadcasting).
Output Identity(const Scope& scope, Output x);
Output Add(const Scope& scope, Output x, Output y);
Output AddV2(const Scope& scope, Output x, Output y);
Output Sub(const Scope& scope, Output x, Output y);
Output Mul(const Scope& scope, Output x, Output y);
Output RealDiv(const Scope& scope, Output x, Output y);
Output Neg(const Scope& scope, Output x);
Output Square(const Scope& scope, Output x);
Output Exp(const Scope& scope, Output x);
Output Log(const Scope& scope, Output x);
Output Tanh(const Scope& scope, Output x);
Output Sigmoid(const Scope& scope, Output x);
Output AddN(const Scope& scope, const std::vector<Output>& inputs);
Output Cast(const Scope& scope, Output x, DataType to);

// Reductions over `axes` (an int32 tensor).
Output Sum(const Scope& scope, Output x, Output axes, bool keep_dims = false);
Output Mean(const Scope& scope, Output x, Output axes, bool keep_dims = false);

// Neural-network ops.
Output MatMul(const Scope& scope, Output a, Output b, bool transpose_a = false,
              bool transpose_b = false);
Output BiasAdd(const Scope& scope, Output value, Output bias);
Output Relu(const Scope& scope, Output x);
Output Softmax(const Scope& scope, Output logits);
// Outputs: 0 = per-example loss, 1 = backprop.
Operation SoftmaxCrossEntropyWithLogits(const Scope& scope, Output logits,
                                        Output labels);

// Shapes.
Output Shape(const Scope& scope, Output x);
Output Reshape(const Scope& scope, Output x, Output shape);
Output Fill(const Scope& scope, Output dims, Output value);
Output ZerosLike(const Scope& scope, Output x);

// Random (seed/seed2 as TensorFlow; both 0 = draw from the session's Env).
Output RandomUniform(const Scope& scope, Output shape, DataType dtype,
                     int64_t seed = 0, int64_t seed2 = 0);
Output RandomStandardNormal(const Scope& scope, Output shape, DataType dtype,
                            int64_t seed = 0, int64_t seed2 = 0);

// Variables (ref form, TF 1.x VariableV2) and their updates.
Output Variable(const Scope& scope, const std::vector<int64_t>& shape,
                DataType dtype);
Output Assign(const Scope& scope, Output ref, Output value);
Output AssignAdd(const Scope& scope, Output ref, Output value);
Output AssignSub(const Scope& scope, Output ref, Output value);
Output ApplyGradientDescent(const Scope& scope, Output var, Output alpha,
                            Output delta);

// Grouping: a NoOp depending on `ops` (tf.group).
Operation NoOp(const Scope& scope);
Operation Group(const Scope& scope, const std::vector<Operation>& ops);

}  // namespace ops
}  // namespace client
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_CLIENT_OPS_H_
