// What kernels that only move data (TensorArray, TensorList, stacks) share:
// copying runs of elements between tensors of one dtype, whatever the dtype
// (numbers, bool, strings, resource handles, variants), zero-filling, and
// merging partial element shapes.
#ifndef STEPFLOW_RUNTIME_KERNELS_ELEMENT_COPY_H_
#define STEPFLOW_RUNTIME_KERNELS_ELEMENT_COPY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

// Copies `n` elements of `src` starting at flat index `src_offset` to `dst`
// starting at `dst_offset`. Requires equal dtypes and both ranges inside
// their tensors (the caller checks shapes); `src` and `dst` may share a
// buffer only if the ranges do not overlap. False for a dtype that has no
// element storage (DT_INVALID).
bool CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n);

// Sets every element of `t` to its dtype's zero (numbers, bool, empty
// variants). False for dtypes with no zero here (strings, resources), as
// TensorFlow's zero-filling refuses them.
bool SetZeros(Tensor* t);

// The most general shape both describe; InvalidArgument ("Incompatible
// shapes during merge") when they disagree.
absl::Status MergePartialShapes(const PartialTensorShape& a,
                                const PartialTensorShape& b,
                                PartialTensorShape* out);

// The TensorShape of a fully defined `p`.
TensorShape ToTensorShape(const PartialTensorShape& p);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_ELEMENT_COPY_H_
