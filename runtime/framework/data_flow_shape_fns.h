// Shape functions of the TensorArray and Stack ops (TensorFlow's
// data_flow_ops). A TensorArray handle is a resource vector of two whose
// handle data, when the element shape is known (fully, or because the
// elements are declared identical), is that element shape and dtype;
// reads, gathers, writes and scatters use and check it. Each follows
// ShapeInferenceFn's contract (op.h); errors are InvalidArgument in
// TensorFlow's words.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_DATA_FLOW_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_DATA_FLOW_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status TensorArrayShape(InferenceContext* c);
absl::Status TensorArrayGradShape(InferenceContext* c);
absl::Status TensorArrayGradWithShapeShape(InferenceContext* c);
absl::Status TensorArrayReadShape(InferenceContext* c);
absl::Status TensorArrayWriteShape(InferenceContext* c);
absl::Status TensorArrayGatherShape(InferenceContext* c);
absl::Status TensorArrayScatterShape(InferenceContext* c);
absl::Status TensorArrayConcatShape(InferenceContext* c);
absl::Status TensorArraySplitShape(InferenceContext* c);
absl::Status TensorArraySizeShape(InferenceContext* c);
// TensorArrayCloseV3 and StackCloseV2: input 0 is a handle, a vector of
// two.
absl::Status CloseHandleShape(InferenceContext* c);
// StackV2's handle, a resource vector of two.
absl::Status StackShape(InferenceContext* c);
// StackPushV2 passes its element (input 1) through.
absl::Status StackPushShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_DATA_FLOW_SHAPE_FNS_H_
