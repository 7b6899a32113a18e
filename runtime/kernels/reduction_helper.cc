#include "runtime/kernels/reduction_helper.h"

#include "runtime/kernels/kernel_util.h"

namespace stepflow {

absl::Status ReductionPlan::Init(const OpKernel& kernel,
                                 const TensorShape& input,
                                 const std::vector<int64_t>& axes,
                                 bool keep_dims) {
  const int rank = input.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    int64_t a = 0;
    if (!NormalizeAxis(axis, rank, &a)) {
      return NodeInvalidArgument(kernel, "Invalid reduction dimension (", axis,
                                 " for input with ", rank, " dimension(s)");
    }
    if (reduced[a]) {
      return NodeInvalidArgument(
          kernel,
          "Invalid reduction arguments: Axes contains duplicate dimension: ",
          a);
    }
    reduced[a] = true;
  }
  input_elements_ = input.num_elements();
  output_shape_.Clear();
  reduce_count_ = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      reduce_count_ *= input.dim_size(d);
      if (keep_dims) output_shape_.AddDim(1);
    } else {
      output_shape_.AddDim(input.dim_size(d));
    }
  }
  // Merge groups, skipping size-1 dims.
  sizes_.clear();
  std::vector<bool> group_reduced;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim_size(d);
    if (size == 1) continue;
    if (!sizes_.empty() && group_reduced.back() == reduced[d]) {
      sizes_.back() *= size;
    } else {
      sizes_.push_back(size);
      group_reduced.push_back(reduced[d]);
    }
  }
  const int k = static_cast<int>(sizes_.size());
  last_reduced_ = k > 0 && group_reduced[k - 1];
  out_strides_.assign(k, 0);
  int64_t stride = 1;
  for (int g = k - 1; g >= 0; --g) {
    if (!group_reduced[g]) {
      out_strides_[g] = stride;
      stride *= sizes_[g];
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
