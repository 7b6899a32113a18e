// Shape functions of the checkpoint ops (TensorFlow's io_ops): Restore,
// RestoreSlice and RestoreV2 read their outputs' shapes from constant
// "<full shape> <slice>" specs, and the file-name helpers. Each follows
// ShapeInferenceFn's contract (op.h); errors are InvalidArgument in
// TensorFlow's words (a malformed spec is refused as TensorFlow refuses
// it).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_IO_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_IO_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

absl::Status RestoreShape(InferenceContext* c);
absl::Status RestoreSliceShape(InferenceContext* c);
absl::Status RestoreV2Shape(InferenceContext* c);
// Save (filename, tensor_names, data...), SaveSlices and SaveV2 (a
// prefix, names, shape_and_slices, tensors...): a scalar file name or
// prefix and one name (and spec) per tensor.
absl::Status SaveShape(InferenceContext* c);
absl::Status SaveSlicesShape(InferenceContext* c);
// MergeV2Checkpoints: a vector of prefixes and a scalar destination.
absl::Status MergeV2CheckpointsShape(InferenceContext* c);
// A scalar file name from scalar inputs (ShardedFilename, ShardedFilespec).
absl::Status ScalarInputsScalarOutputShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_IO_SHAPE_FNS_H_
