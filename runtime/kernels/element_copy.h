// Copying runs of elements between tensors of one dtype, whatever the dtype
// (numbers, bool, strings, resource handles, variants): what kernels that
// only move data (TensorArray, TensorList, stacks) share.
#ifndef STEPFLOW_RUNTIME_KERNELS_ELEMENT_COPY_H_
#define STEPFLOW_RUNTIME_KERNELS_ELEMENT_COPY_H_

#include <cstdint>

#include "runtime/framework/tensor.h"

namespace stepflow {

// Copies `n` elements of `src` starting at flat index `src_offset` to `dst`
// starting at `dst_offset`. Requires equal dtypes and both ranges inside
// their tensors (the caller checks shapes); `src` and `dst` may share a
// buffer only if the ranges do not overlap. False for a dtype that has no
// element storage (DT_INVALID).
bool CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_ELEMENT_COPY_H_
