// Shape functions of the string ops (TensorFlow's string_ops). Each
// follows ShapeInferenceFn's contract (op.h); errors are InvalidArgument
// in TensorFlow's words. The element-wise string ops (StringLower,
// AsString, StringToNumber, ...) use UnchangedShape and ReduceJoin uses
// ReductionShape (common_shape_fns.h).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_STRING_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_STRING_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// Scalars broadcast; every other input of known rank must agree.
absl::Status StringJoinShape(InferenceContext* c);
// A scalar; the template must hold one placeholder per input.
absl::Status StringFormatShape(InferenceContext* c);
// Input 0's shape; the inputs after it (pattern, rewrite) are scalars.
absl::Status RegexShape(InferenceContext* c);
// pos and len of one shape, broadcast against input.
absl::Status SubstrShape(InferenceContext* c);
// A vector of strings split by a scalar separator: a sparse matrix's
// indices [?, 2], values [?] and dense shape [2].
absl::Status StringSplitShape(InferenceContext* c);
// row_splits [num_elements + 1], then vectors of one unknown length.
absl::Status UnicodeDecodeShape(InferenceContext* c);
// [num_splits - 1] strings from flat values and their row splits.
absl::Status UnicodeEncodeShape(InferenceContext* c);
// PrintV2: the formatted string it prints must be a scalar.
absl::Status PrintV2Shape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_STRING_SHAPE_FNS_H_
