// ArgMax / ArgMin: the index of the largest / smallest value along the axis
// given by the scalar `dimension` input (negative counts from the end). The
// first index wins on ties. Output dtype is the output_type attr (int32 or
// int64); T is a real number type or bool (false < true). Errors
// (InvalidArgument naming the node): non-scalar dimension, axis out of range
// (including any axis of a scalar), empty reduction axis.
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T, bool kMax>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    OP_REQUIRES(ctx, dim_t.dims() == 0,
                NodeInvalidArgument(ctx,
                                    "dim must be a scalar, but received "
                                    "tensor of shape: ",
                                    dim_t.shape().DebugString()));
    std::vector<int64_t> dim_v;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, dim_t, &dim_v));
    const int rank = input.dims();
    int64_t axis = 0;
    OP_REQUIRES(
        ctx, NormalizeAxis(dim_v[0], rank, &axis),
        NodeInvalidArgument(ctx, "Expected dimension in the range [", -rank,
                            ", ", rank, "), but got ", dim_v[0]));
    const int64_t n = input.dim_size(static_cast<int>(axis));
    OP_REQUIRES(ctx, n > 0,
                NodeInvalidArgument(ctx, "Reduction axis ", dim_v[0],
                                    " is empty in shape ",
                                    input.shape().DebugString()));
    TensorShape shape;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      shape.AddDim(input.dim_size(d));
      if (d < axis) {
        outer *= input.dim_size(d);
      } else {
        inner *= input.dim_size(d);
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    if (out->dtype() == DT_INT32) {
      Run<int32_t>(input.base<T>(), outer, n, inner, out->base<int32_t>());
    } else {
      Run<int64_t>(input.base<T>(), outer, n, inner, out->base<int64_t>());
    }
  }

 private:
  static bool Better(const T& a, const T& b) { return kMax ? a > b : a < b; }

  template <typename I>
  static void Run(const T* in, int64_t outer, int64_t n, int64_t inner,
                  I* out) {
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    using IArray = Eigen::Array<I, Eigen::Dynamic, 1>;
    if (inner == 1) {
      for (int64_t o = 0; o < outer; ++o) {
        const T* row = in + o * n;
        int64_t best = 0;
        for (int64_t j = 1; j < n; ++j) {
          if (Better(row[j], row[best])) best = j;
        }
        out[o] = static_cast<I>(best);
      }
      return;
    }
    Array best(inner);
    for (int64_t o = 0; o < outer; ++o) {
      const T* slab = in + o * n * inner;
      Eigen::Map<IArray> idx(out + o * inner, inner);
      best = Eigen::Map<const Array>(slab, inner);
      idx.setZero();
      for (int64_t j = 1; j < n; ++j) {
        Eigen::Map<const Array> row(slab + j * inner, inner);
        const auto better = kMax ? (row > best).eval() : (row < best).eval();
        idx = better.select(IArray::Constant(inner, static_cast<I>(j)), idx);
        best = better.select(row, best);
      }
    }
  }
};

#define SF_REGISTER_ARG(T)                                      \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("ArgMax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ArgOp<T, true>);                                          \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("ArgMin").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ArgOp<T, false>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_ARG)
SF_REGISTER_ARG(bool)
#undef SF_REGISTER_ARG

}  // namespace
}  // namespace stepflow
