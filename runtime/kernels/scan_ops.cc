// Cumsum and Cumprod(x, axis; exclusive, reverse): running sums and
// products along one axis. exclusive: each output excludes its own element
// (the first is the identity, 0 or 1); reverse: the scan runs from the end.
// Accumulates in float for half/bfloat16; integers wrap. Errors
// (InvalidArgument naming the node): non-scalar axis, axis outside [-rank,
// rank) (so scalars cannot be scanned).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// The accumulator type of a scan over T: float for 16-bit floats, an
// unsigned type at least as wide as int for integers (so products wrap
// instead of overflowing a promoted int).
template <typename T, typename = void>
struct ScanAccum {
  using type = typename AccumType<T>::type;
};
template <typename T>
struct ScanAccum<T, std::enable_if_t<std::is_integral<T>::value>> {
  using type = std::make_unsigned_t<
      std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
};

// kProduct selects Cumprod.
template <typename T, bool kProduct>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                NodeInvalidArgument(ctx, "ScanOp: axis must be a scalar, not ",
                                    axis_t.shape().DebugString()));
    std::vector<int64_t> axis_v;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axis_t, &axis_v));
    const int rank = input.dims();
    int64_t axis = 0;
    OP_REQUIRES(
        ctx, NormalizeAxis(axis_v[0], rank, &axis),
        NodeInvalidArgument(ctx,
                            "ScanOp: Expected scan axis in the "
                            "range [",
                            -rank, ", ", rank, "), but got ", axis_v[0]));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) {
      inner *= input.dim_size(d);
    }
    const int64_t n = input.dim_size(static_cast<int>(axis));

    using A = typename ScanAccum<T>::type;
    using AArray = Eigen::Array<A, Eigen::Dynamic, 1>;
    using TArray = Eigen::Array<T, Eigen::Dynamic, 1>;
    const T* in = input.base<T>();
    T* o = out->base<T>();
    if (inner == 1) {  // Scalar loop: no per-element Eigen maps.
      for (int64_t b = 0; b < outer; ++b) {
        A acc(kProduct ? 1 : 0);
        for (int64_t step = 0; step < n; ++step) {
          const int64_t j = b * n + (reverse_ ? n - 1 - step : step);
          const A v = static_cast<A>(in[j]);
          if (exclusive_) o[j] = static_cast<T>(acc);
          if constexpr (kProduct) {
            acc = static_cast<A>(acc * v);
          } else {
            acc += v;
          }
          if (!exclusive_) o[j] = static_cast<T>(acc);
        }
      }
      return;
    }
    AArray acc(inner);
    for (int64_t b = 0; b < outer; ++b) {
      acc.setConstant(A(kProduct ? 1 : 0));
      for (int64_t step = 0; step < n; ++step) {
        const int64_t j = reverse_ ? n - 1 - step : step;
        const int64_t off = (b * n + j) * inner;
        Eigen::Map<const TArray> row(in + off, inner);
        Eigen::Map<TArray> dst(o + off, inner);
        if (exclusive_) dst = acc.template cast<T>();
        if constexpr (kProduct) {
          acc *= row.template cast<A>();
        } else {
          acc += row.template cast<A>();
        }
        if (!exclusive_) dst = acc.template cast<T>();
      }
    }
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

#define SF_REGISTER_SCAN(T)                                      \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("Cumsum").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ScanOp<T, false>);                                         \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("Cumprod").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ScanOp<T, true>);
SF_CALL_NUMBER_TYPES(SF_REGISTER_SCAN)
#undef SF_REGISTER_SCAN

}  // namespace
}  // namespace stepflow
