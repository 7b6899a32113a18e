// Shape functions of image ops: contrast adjustment, crop-and-resize, the
// resize gradients and non-max suppression (TensorFlow's image_ops.cc
// functions of the same ops). Each follows ShapeInferenceFn's contract
// (op.h): TensorFlow's output shapes and InvalidArgument refusals.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_IMAGE_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_IMAGE_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// Output 0 is [batch, size[0], size[1], channels], `size_input` an int32
// 2-vector (unknown sizes when not constant).
absl::Status SetOutputToSizedImage(InferenceContext* c, DimensionHandle batch,
                                   int size_input, DimensionHandle channels);

absl::Status AdjustContrastv2Shape(InferenceContext* c);
// [num_boxes, crop_size[0], crop_size[1], depth].
absl::Status CropAndResizeShape(InferenceContext* c);
// ResizeBilinearGrad: the original image's shape (input 1).
absl::Status ResizeBilinearGradShape(InferenceContext* c);
// ResizeNearestNeighborGrad: the gradient with the size input's H and W.
absl::Status ResizeNearestNeighborGradShape(InferenceContext* c);
// NonMaxSuppressionV3: selected indices, a vector of unknown length.
absl::Status NonMaxSuppressionV3Shape(InferenceContext* c);
// V4 adds valid_outputs; with pad_to_max_output_size the length is
// max_output_size.
absl::Status NonMaxSuppressionV4Shape(InferenceContext* c);
// V5 (soft NMS) adds the selected scores.
absl::Status NonMaxSuppressionV5Shape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_IMAGE_SHAPE_FNS_H_
