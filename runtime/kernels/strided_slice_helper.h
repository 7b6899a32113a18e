// Strided-slice spec resolution, as TensorFlow's StridedSlice defines it.
//
// The op's begin/end/strides vectors form a "sparse" spec that may contain
// one ellipsis (ellipsis_mask bit), new axes (new_axis_mask) and shrunk
// indices (shrink_axis_mask: take one element and drop the dim). It is
// expanded to one (begin, end, stride) per input dim ("dense"); begin_mask /
// end_mask bits mean "from the start / to the end" in the stride's
// direction; out-of-range begin/end clamp. The result is the processing
// shape (one size per input dim), per-dim begin and stride, and the final
// output shape (new axes added, shrunk dims removed).
//
// Errors (InvalidArgument naming the node): spec vectors not 1-D of equal
// length, more than one ellipsis, a zero stride, a spec with more dims than
// the input, a shrunk index out of bounds.
#ifndef STEPFLOW_RUNTIME_KERNELS_STRIDED_SLICE_HELPER_H_
#define STEPFLOW_RUNTIME_KERNELS_STRIDED_SLICE_HELPER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

struct StridedSliceMasks {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};

struct StridedSliceSpec {
  // One entry per input dim.
  std::vector<int64_t> begin;
  std::vector<int64_t> stride;
  std::vector<int64_t> processing_dims;
  TensorShape final_shape;
  // True when the slice selects the whole input in order (the output can
  // share the input's buffer).
  bool is_identity = false;
};

absl::Status ResolveStridedSlice(const OpKernel& kernel,
                                 const TensorShape& input,
                                 const std::vector<int64_t>& begin,
                                 const std::vector<int64_t>& end,
                                 const std::vector<int64_t>& strides,
                                 const StridedSliceMasks& masks,
                                 StridedSliceSpec* spec);

// Reads the five mask attrs (absent ones stay 0).
absl::Status ReadStridedSliceMasks(OpKernelConstruction* ctx,
                                   StridedSliceMasks* masks);

// Reads the begin/end/strides inputs (1-D of equal length, int32/int64) and
// resolves them against `input` (ResolveStridedSlice).
absl::Status ResolveStridedSliceInputs(const OpKernel& kernel,
                                       const TensorShape& input,
                                       const Tensor& begin, const Tensor& end,
                                       const Tensor& strides,
                                       const StridedSliceMasks& masks,
                                       StridedSliceSpec* spec);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_STRIDED_SLICE_HELPER_H_
