// Bincount(arr, size, weights) and DenseBincount(input, size, weights;
// binary_output): histograms of non-negative integers over [0, size).
//
// Bincount flattens `arr` (int32, any shape) and returns bins[size] where
// bins[v] is the count of v in arr, or the sum of the weights at its
// positions when `weights` is non-empty (it must then hold as many elements
// as arr). DenseBincount takes a rank-0, 1 or 2 `input` (int32 or int64);
// rank 2 counts each row separately into output[rows, size]. `weights`
// must then be empty or of input's shape; binary_output writes 1 for every
// value present instead of a count or sum. Values >= size are ignored;
// weights are summed in input order.
// Errors (InvalidArgument naming the node): non-scalar or negative size,
// a negative value in the input, weights of the wrong size or shape,
// input of rank above 2 (DenseBincount).
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// Reads the scalar `size` input (int32 or int64) and checks it.
absl::Status ReadBinCount(OpKernelContext* ctx, const Tensor& size_tensor,
                          int64_t* size) {
  if (size_tensor.dims() != 0) {
    return NodeInvalidArgument(ctx, "Shape must be rank 0 but is rank ",
                               size_tensor.dims());
  }
  *size = size_tensor.dtype() == DT_INT64 ? size_tensor.scalar<int64_t>()
                                          : size_tensor.scalar<int32_t>();
  if (*size < 0) {
    return NodeInvalidArgument(ctx, "size (", *size, ") must be non-negative");
  }
  return absl::OkStatus();
}

// Adds row `values` (n of them) into `bins` (size entries). With `weights`
// null each value counts 1; with `binary` the bin is set to 1. Returns
// false on a negative value.
template <typename T, typename Index>
bool AccumulateRow(const Index* values, const T* weights, int64_t n,
                   int64_t size, bool binary, T* bins) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v < 0) return false;
    if (v >= size) continue;
    if (binary) {
      bins[v] = T(1);
    } else {
      bins[v] += weights == nullptr ? T(1) : weights[i];
    }
  }
  return true;
}

template <typename T>
class BincountOp : public OpKernel {
 public:
  explicit BincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& arr = ctx->input(0);
    const Tensor& weights = ctx->input(2);
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadBinCount(ctx, ctx->input(1), &size));
    const int64_t n = arr.NumElements();
    OP_REQUIRES(ctx, weights.NumElements() == 0 || weights.NumElements() == n,
                NodeInvalidArgument(
                    ctx, "Input indices and weights must have the same size."));
    const TensorShape shape({size});
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, weights.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* bins = out->base<T>();
    for (int64_t i = 0; i < size; ++i) bins[i] = T(0);
    const T* w = weights.NumElements() == 0 ? nullptr : weights.base<T>();
    OP_REQUIRES(ctx,
                AccumulateRow<T>(arr.base<int32_t>(), w, n, size,
                                 /*binary=*/false, bins),
                NodeInvalidArgument(ctx, "Input arr must be non-negative!"));
  }
};

template <typename T, typename Index>
class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_output_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& weights = ctx->input(2);
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadBinCount(ctx, ctx->input(1), &size));
    OP_REQUIRES(ctx, input.dims() <= 2,
                NodeInvalidArgument(ctx, "Shape must be at most rank 2 but is ",
                                    "rank ", input.dims()));
    OP_REQUIRES(
        ctx, weights.NumElements() == 0 || weights.shape() == input.shape(),
        NodeInvalidArgument(
            ctx,
            "`weights` must be the same shape as `arr` or a length-0 "
            "`Tensor`, in which case it acts as all weights equal to 1. "
            "Received ",
            weights.shape().DebugString()));
    const int64_t rows = input.dims() == 2 ? input.dim_size(0) : 1;
    const TensorShape shape =
        input.dims() == 2 ? TensorShape({rows, size}) : TensorShape({size});
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, weights.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* bins = out->base<T>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) bins[i] = T(0);
    const int64_t cols =
        input.dims() == 2 ? input.dim_size(1) : input.NumElements();
    const Index* values = input.base<Index>();
    const T* w = weights.NumElements() == 0 ? nullptr : weights.base<T>();
    for (int64_t r = 0; r < rows; ++r) {
      OP_REQUIRES(
          ctx,
          AccumulateRow<T>(values + r * cols, w == nullptr ? w : w + r * cols,
                           cols, size, binary_output_, bins + r * size),
          NodeInvalidArgument(ctx, "Input arr must be non-negative!"));
    }
  }

 private:
  bool binary_output_ = false;
};

#define SF_REGISTER_BINCOUNT(T)                                   \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("Bincount").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BincountOp<T>);                                             \
  REGISTER_KERNEL_BUILDER(Name("DenseBincount")                   \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<int32_t>("Tidx"),   \
                          DenseBincountOp<T, int32_t>);           \
  REGISTER_KERNEL_BUILDER(Name("DenseBincount")                   \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<int64_t>("Tidx"),   \
                          DenseBincountOp<T, int64_t>);
SF_REGISTER_BINCOUNT(int32_t)
SF_REGISTER_BINCOUNT(int64_t)
SF_REGISTER_BINCOUNT(float)
SF_REGISTER_BINCOUNT(double)
#undef SF_REGISTER_BINCOUNT

}  // namespace
}  // namespace stepflow
