// Shape functions of function calls and of the runtime's own ops that
// stand for a function's arguments, results and cross-device transfers
// (TensorFlow's functional_ops, function_ops and sendrecv_ops). Each
// follows ShapeInferenceFn's contract (op.h).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_FUNCTION_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_FUNCTION_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// _Arg: the shape its "_output_shapes" attr records (for a resource,
// "_handle_shapes" and "_handle_dtypes", which also give the handle
// data), else unknown. InvalidArgument for an attr present but empty.
absl::Status ArgShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_FUNCTION_SHAPE_FNS_H_
