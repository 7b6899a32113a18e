// Shape functions of element-wise ops beyond the binary broadcast ones:
// Betainc (three inputs, scalars broadcast) and BroadcastArgs (the shape
// of a broadcast). Each follows ShapeInferenceFn's contract (op.h) and
// TensorFlow's function for that op.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_ELEMENTWISE_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_ELEMENTWISE_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// The non-scalar inputs merged (a scalar input broadcasts).
absl::Status BetaincShape(InferenceContext* c);
// Two shape vectors in, a vector as long as the longer out.
absl::Status BroadcastArgsShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_ELEMENTWISE_SHAPE_FNS_H_
