// ReductionPlan: turns (input shape, reduction axes, keep_dims) into the
// output shape and a compact loop structure for reduction kernels.
//
// Size-1 dims are dropped and adjacent dims with the same role (reduced or
// kept) merged, leaving alternating groups such as [kept, reduced] or
// [reduced, kept, reduced]. ForEachChunk then walks the input in contiguous
// chunks (the last group), telling the kernel where each chunk's result goes
// in the output. Kernels accumulate chunk results with vectorised Eigen
// expressions.
//
// Errors from Init (InvalidArgument naming the node): an axis outside
// [-rank, rank), or the same dimension named twice (also as d and d - rank),
// as in TensorFlow.
// Value type; thread-compatible.
#ifndef STEPFLOW_RUNTIME_KERNELS_REDUCTION_HELPER_H_
#define STEPFLOW_RUNTIME_KERNELS_REDUCTION_HELPER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

class ReductionPlan {
 public:
  absl::Status Init(const OpKernel& kernel, const TensorShape& input,
                    const std::vector<int64_t>& axes, bool keep_dims);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t input_elements() const { return input_elements_; }
  int64_t output_elements() const { return output_shape_.num_elements(); }
  // How many input elements fold into each output element.
  int64_t reduce_count() const { return reduce_count_; }
  // Whether the innermost group is reduced (chunks fold to one value) or
  // kept (chunks combine element-wise into a run of the output).
  bool last_group_reduced() const { return last_reduced_; }

  // Calls fn(in_offset, out_offset, chunk_length) for each contiguous input
  // chunk, in order. For a reduced last group the chunk folds into output
  // element out_offset; for a kept one it combines element-wise into
  // output[out_offset, out_offset + chunk_length). Not called for empty
  // inputs.
  template <typename Fn>
  void ForEachChunk(Fn&& fn) const {
    if (input_elements_ == 0) return;
    const int k = static_cast<int>(sizes_.size());
    if (k == 0) {
      fn(0, 0, 1);
      return;
    }
    const int64_t chunk = sizes_[k - 1];
    std::vector<int64_t> idx(k, 0);
    int64_t out = 0;
    for (int64_t in = 0; in < input_elements_; in += chunk) {
      fn(in, out, chunk);
      for (int g = k - 2; g >= 0; --g) {
        if (++idx[g] < sizes_[g]) {
          out += out_strides_[g];
          break;
        }
        out -= out_strides_[g] * (sizes_[g] - 1);
        idx[g] = 0;
      }
    }
  }

 private:
  TensorShape output_shape_;
  int64_t input_elements_ = 0;
  int64_t reduce_count_ = 1;
  bool last_reduced_ = false;
  std::vector<int64_t> sizes_;        // Merged groups.
  std::vector<int64_t> out_strides_;  // 0 for reduced groups.
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_REDUCTION_HELPER_H_
