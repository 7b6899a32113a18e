// Reading the `paddings` input of the padding ops (Pad, PadV2, MirrorPad,
// MirrorPadGrad): an int32/int64 matrix of shape [rank(input), 2].
#ifndef STEPFLOW_RUNTIME_KERNELS_PAD_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_PAD_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// Fills `pads` with (before_0, after_0, before_1, ...). InvalidArgument
// naming the node when `paddings` is not an [input.dims(), 2] matrix.
absl::Status ReadPaddings(const OpKernel& kernel, const Tensor& input,
                          const Tensor& paddings, std::vector<int64_t>* pads);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_PAD_UTIL_H_
