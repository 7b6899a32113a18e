// Shape functions of the ops that rearrange a tensor's elements between
// dimensions: SpaceToBatch(ND), BatchToSpace(ND), SpaceToDepth,
// DepthToSpace, Bitcast, MirrorPadGrad, ReverseSequence, Roll
// (TensorFlow's array_ops.cc and manip_ops.cc functions of the same ops).
// Each follows ShapeInferenceFn's contract (op.h): TensorFlow's output
// shapes and InvalidArgument refusals.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_LAYOUT_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_LAYOUT_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status SpaceToBatchShape(InferenceContext* c);    // block_size attr
absl::Status SpaceToBatchNDShape(InferenceContext* c);  // block_shape input
absl::Status BatchToSpaceShape(InferenceContext* c);
absl::Status BatchToSpaceNDShape(InferenceContext* c);
absl::Status SpaceToDepthShape(InferenceContext* c);
absl::Status DepthToSpaceShape(InferenceContext* c);
absl::Status BitcastShape(InferenceContext* c);
absl::Status MirrorPadGradShape(InferenceContext* c);
absl::Status ReverseSequenceShape(InferenceContext* c);
absl::Status RollShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_LAYOUT_SHAPE_FNS_H_
