// Shape functions of the tf.Example parsing ops (TensorFlow's
// parsing_ops): ParseExample, ParseExampleV2 and ParseSingleExample. A
// sparse feature gives indices [?, rank], values [?] and a dense shape
// [rank], rank being the input's plus one; a dense feature the input's
// shape followed by its dense_shapes entry (whose first dimension alone
// may be unknown: a variable-length feature); a ragged feature values [?]
// and row splits [num_examples + 1]. Each follows ShapeInferenceFn's
// contract (op.h); inconsistent attrs and inputs of the wrong rank are
// InvalidArgument in TensorFlow's words.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_PARSING_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_PARSING_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status ParseExampleShape(InferenceContext* c);
absl::Status ParseExampleV2Shape(InferenceContext* c);
absl::Status ParseSingleExampleShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_PARSING_SHAPE_FNS_H_
