// Shape functions of the optimizer updates (TensorFlow's training_ops),
// one per optimizer, each serving its dense and sparse forms on ref and on
// resource variables (the form is read from the OpDef: a sparse update has
// an `indices` input, a resource one takes DT_RESOURCE handles). Each
// follows ShapeInferenceFn's contract (op.h):
//  - the variable and its slots merge into one shape: a ref input's shape,
//    or for a resource the shape its handle data records (unknown without
//    it);
//  - scalar hyper-parameters must be scalars;
//  - a ref update's `grad` merges with the variable (a sparse one's grad
//    rows with the variable's rows, indices a vector as long as grad);
//    as in TensorFlow, a resource update's grad is not checked;
//  - a ref update's output 0 is the merged shape.
// Errors are InvalidArgument in TensorFlow's words.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_TRAINING_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_TRAINING_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status ApplyGradientDescentShape(InferenceContext* c);
absl::Status ApplyProximalGradientDescentShape(InferenceContext* c);
absl::Status ApplyMomentumShape(InferenceContext* c);
absl::Status ApplyAdamShape(InferenceContext* c);
absl::Status ApplyAdaMaxShape(InferenceContext* c);
absl::Status ApplyAdadeltaShape(InferenceContext* c);
absl::Status ApplyAdagradShape(InferenceContext* c);
absl::Status ApplyAdagradV2Shape(InferenceContext* c);
absl::Status ApplyProximalAdagradShape(InferenceContext* c);
absl::Status ApplyRMSPropShape(InferenceContext* c);
absl::Status ApplyCenteredRMSPropShape(InferenceContext* c);
// ApplyFtrl and ApplyFtrlV2 (TensorFlow checks the first four scalars
// after grad only).
absl::Status ApplyFtrlShape(InferenceContext* c);
// TensorFlow registers ResourceApplyProximalAdagrad with its ref-variable
// reading: a handle without handle data stands for a scalar variable.
absl::Status ResourceApplyProximalAdagradShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_TRAINING_SHAPE_FNS_H_
