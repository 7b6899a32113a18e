#include "runtime/kernels/pad_util.h"

#include "runtime/kernels/kernel_util.h"

namespace stepflow {

absl::Status ReadPaddings(const OpKernel& kernel, const Tensor& input,
                          const Tensor& paddings, std::vector<int64_t>* pads) {
  if (paddings.dims() != 2 || paddings.dim_size(1) != 2) {
    return NodeInvalidArgument(kernel,
                               "paddings must be a matrix with 2 columns: ",
                               paddings.shape().DebugString());
  }
  if (paddings.dim_size(0) != input.dims()) {
    return NodeInvalidArgument(
        kernel, "The first dimension of paddings must be the rank of inputs",
        paddings.shape().DebugString(), " ", input.shape().DebugString());
  }
  return IndexTensorToVector(kernel, paddings, pads);
}

}  // namespace stepflow
