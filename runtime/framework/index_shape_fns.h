// Shape functions of the ops that gather, scatter, stitch or select
// elements by index: GatherNd, ScatterNd, TensorScatter*, DynamicStitch,
// ListDiff, NthElement, UniqueV2, UniqueWithCounts (TensorFlow's
// array_ops.cc and data_flow_ops.cc functions of the same ops). Each
// follows ShapeInferenceFn's contract (op.h): TensorFlow's output shapes
// and InvalidArgument refusals.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_INDEX_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_INDEX_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status GatherNdShape(InferenceContext* c);
// ScatterNd: the shape input 2 holds, checked against indices and updates.
absl::Status ScatterNdShape(InferenceContext* c);
// TensorScatter{Update,Add,Sub,Min,Max}: input 0's shape, checked.
absl::Status TensorScatterShape(InferenceContext* c);
// Checks indices and updates against `output` (TensorFlow's
// ScatterNdShapeHelper) and, for a tensor (not resource) input 0, sets
// output 0 to `output`.
absl::Status ScatterNdShapeHelper(InferenceContext* c, ShapeHandle indices,
                                  ShapeHandle updates, ShapeHandle output);
// [max index + 1 when every index is constant] + data's inner shape.
absl::Status DynamicStitchShape(InferenceContext* c);
absl::Status ListDiffShape(InferenceContext* c);
// Input 0 without its last dimension, which must exceed n.
absl::Status NthElementShape(InferenceContext* c);
absl::Status UniqueV2Shape(InferenceContext* c);
absl::Status UniqueWithCountsShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_INDEX_SHAPE_FNS_H_
