// Shape functions of the segment reductions and bin counts (TensorFlow's
// math_ops.cc functions of the same ops). Each follows ShapeInferenceFn's
// contract (op.h): TensorFlow's output shapes and InvalidArgument refusals.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_SEGMENT_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_SEGMENT_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// Segment{Sum,Mean,Prod,Min,Max}: [?] + data.shape[1:].
absl::Status SegmentReductionShape(InferenceContext* c);
// UnsortedSegment*: [num_segments] + data.shape[rank(segment_ids):].
absl::Status UnsortedSegmentReductionShape(InferenceContext* c);
// Bincount: [size].
absl::Status BincountShape(InferenceContext* c);
// DenseBincount: [size] or [batch, size].
absl::Status DenseBincountShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_SEGMENT_SHAPE_FNS_H_
