// Shape functions of the pooling ops beyond AvgPool (MaxPool with its
// explicit paddings and NCHW_VECT_C, MaxPoolV2, the argmax and
// second-order gradient forms, the 3-D pools), of the 3-D convolutions and
// of LRN's gradient, as TensorFlow's nn_ops.cc and common_shape_fns.cc give
// them. Each follows ShapeInferenceFn's contract (op.h): TensorFlow's
// output shapes and InvalidArgument refusals. MaxPoolShape is declared in
// common_shape_fns.h.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_POOLING_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_POOLING_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// ksize and strides from inputs 1 and 2 (unknown shape when not constant).
absl::Status MaxPoolV2Shape(InferenceContext* c);
// Output and argmax both MaxPool's output.
absl::Status MaxPoolWithArgmaxShape(InferenceContext* c);
// MaxPool's output, with orig_input ~ grad and orig_output ~ output.
absl::Status MaxPoolGradGradShape(InferenceContext* c);
absl::Status MaxPoolGradGradV2Shape(InferenceContext* c);
// MaxPool3D, AvgPool3D (NDHWC or NCDHW).
absl::Status Pool3DShape(InferenceContext* c);
absl::Status MaxPool3DGradGradShape(InferenceContext* c);
absl::Status Conv3DShape(InferenceContext* c);
// Output 0 is the shape input `input` holds, of rank 5 (AvgPool3DGrad,
// Conv3DBackprop{Input,Filter}V2).
absl::Status ShapeFromInputTensorRank5(InferenceContext* c, int input);
// LRNGrad: the three rank-4 inputs merged.
absl::Status LRNGradShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_POOLING_SHAPE_FNS_H_
