// Shape functions of the scatter updates of variables (TensorFlow's
// state_ops and resource_variable_ops): Scatter*/ScatterNd* on ref
// variables and ResourceScatter*/ResourceScatterNd* on resource variables
// (whose shape is the handle's handle data). Each follows
// ShapeInferenceFn's contract (op.h): a ref update's output 0 is the
// variable's shape; `updates` is checked against `indices` and the
// variable; errors are InvalidArgument in TensorFlow's words.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_STATE_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_STATE_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// updates (unless a scalar) must be indices.shape + ref.shape[1:].
absl::Status ScatterUpdateShape(InferenceContext* c);
// The same against a resource variable (and its "dtype" attr).
absl::Status ResourceScatterUpdateShape(InferenceContext* c);
// updates must be indices.shape[:-1] + ref.shape[indices.shape[-1]:]
// (ref: the handle data's shape when input 0 carries any, as for a
// resource, else input 0's shape).
absl::Status ScatterNdUpdateShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_STATE_SHAPE_FNS_H_
