// TensorProto <-> Tensor conversion.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_UTIL_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_UTIL_H_

#include "absl/status/status.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// Decodes `proto` into `*out`. Values come from tensor_content when it is
// non-empty (its size must equal elements * element size), otherwise from the
// typed *_val field for the dtype: an empty field means zeros; fewer values
// than elements means the last value repeats; more values than elements is an
// error. Errors are InvalidArgument naming the dtype/shape/counts, and
// ResourceExhausted when `allocator` refuses the tensor (checked before
// any element is written). Never crashes on malformed input.
absl::Status TensorFromProto(Allocator* allocator, const TensorProto& proto,
                             Tensor* out);
// The same from cpu_allocator() (unbudgeted: for clients and tools).
absl::Status TensorFromProto(const TensorProto& proto, Tensor* out);

// OK if TensorToProto can encode `t`; Unimplemented for DT_VARIANT, which
// has no TensorProto encoding here (a variant cannot leave its process).
absl::Status CheckEncodable(const Tensor& t);

// Encodes `t` (CheckEncodable first: a variant encodes as its dtype and
// shape only). With `use_tensor_content`, numeric values go into
// tensor_content (compact, what TensorFlow writes for large tensors);
// otherwise into the typed *_val fields. Strings always use string_val.
void TensorToProto(const Tensor& t, TensorProto* proto,
                   bool use_tensor_content = true);

// Element-wise equality of dtype, shape and values (NaN != NaN).
bool TensorsEqual(const Tensor& a, const Tensor& b);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_UTIL_H_
