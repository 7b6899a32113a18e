// Shape functions of the TensorList ops (TensorFlow's list_ops). A list is
// a scalar DT_VARIANT whose handle data is one ShapeAndType: the shape
// every element is known to have and the element dtype. Ops that make or
// change a list set their output's handle data; ops that read one take
// the element shape from the handle data, merged with their own
// `element_shape` input. Each follows ShapeInferenceFn's contract (op.h);
// errors are InvalidArgument in TensorFlow's words (a list read or pushed
// with another element dtype, element shapes that cannot merge).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_LIST_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_LIST_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status TensorListReserveShape(InferenceContext* c);
absl::Status TensorListFromTensorShape(InferenceContext* c);
absl::Status TensorListPushBackShape(InferenceContext* c);
absl::Status TensorListPopBackShape(InferenceContext* c);
absl::Status TensorListSetItemShape(InferenceContext* c);
absl::Status TensorListGetItemShape(InferenceContext* c);
absl::Status TensorListStackShape(InferenceContext* c);
absl::Status TensorListElementShapeShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_LIST_SHAPE_FNS_H_
