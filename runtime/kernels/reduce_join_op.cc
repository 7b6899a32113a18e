// ReduceJoin: joins the strings along the `reduction_indices` dims with
// `separator`, in row-major order of the reduced dims taken in the reverse
// of their order in `reduction_indices` ([0, 1] on a matrix joins
// column by column, [1, 0] row by row); those dims are
// dropped, or kept with size 1 when keep_dims. No indices joins nothing
// (each string is its own result); a reduced dim of size 0 gives "".
//
// Errors: an index outside [-rank, rank) is OutOfRange, a repeated one
// InvalidArgument, both naming the node.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    const int rank = input.dims();
    std::vector<bool> reduced(rank, false);
    // The reduced dims, in the reverse of their order in the indices.
    std::vector<int> reduced_dims;
    const int32_t* ax = axes.base<const int32_t>();
    for (int64_t i = 0; i < axes.NumElements(); ++i) {
      const int32_t a = ax[i];
      OP_REQUIRES(ctx, a >= -rank && a < rank,
                  NodeError(absl::StatusCode::kOutOfRange, *this,
                            "Invalid reduction dimension ", a,
                            " for input with ", rank, " dimension(s)"));
      const int d = a < 0 ? a + rank : a;
      OP_REQUIRES(
          ctx, !reduced[d],
          NodeInvalidArgument(ctx, "Duplicate reduction dimension ", a));
      reduced[d] = true;
      reduced_dims.insert(reduced_dims.begin(), d);
    }
    // Row-major strides of the input; the kept and reduced dims.
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * input.dim_size(d + 1);
    }
    std::vector<int> kept_dims;
    TensorShape out_shape;
    int64_t join_count = 1;
    for (int d = 0; d < rank; ++d) {
      if (reduced[d]) {
        join_count *= input.dim_size(d);
        if (keep_dims_) out_shape.AddDim(1);
      } else {
        kept_dims.push_back(d);
        out_shape.AddDim(input.dim_size(d));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const std::string* src = input.base<const std::string>();
    std::string* dst = out->base<std::string>();
    const std::vector<int64_t> join_offsets =
        Offsets(input, strides, reduced_dims, join_count);
    const std::vector<int64_t> out_offsets =
        Offsets(input, strides, kept_dims, out->NumElements());
    for (int64_t o = 0; o < out->NumElements(); ++o) {
      std::string& s = dst[o];
      for (int64_t j = 0; j < join_count; ++j) {
        if (j > 0) s += separator_;
        s += src[out_offsets[o] + join_offsets[j]];
      }
    }
  }

 private:
  // The input offsets of the `count` index tuples over `dims`, in
  // row-major order.
  static std::vector<int64_t> Offsets(const Tensor& input,
                                      const std::vector<int64_t>& strides,
                                      const std::vector<int>& dims,
                                      int64_t count) {
    std::vector<int64_t> out(count, 0);
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t offset = 0;
    for (int64_t k = 0; k < count; ++k) {
      out[k] = offset;
      for (int j = static_cast<int>(dims.size()) - 1; j >= 0; --j) {
        const int d = dims[j];
        offset += strides[d];
        if (++idx[j] < input.dim_size(d)) break;
        offset -= strides[d] * idx[j];
        idx[j] = 0;
      }
    }
    return out;
  }

  bool keep_dims_ = false;
  std::string separator_;
};

REGISTER_KERNEL_BUILDER(Name("ReduceJoin").Device(DEVICE_CPU), ReduceJoinOp);

}  // namespace
}  // namespace stepflow
