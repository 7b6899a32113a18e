// Range(start, limit, delta): [start, start+delta, ...) up to (excluding)
// limit. Each input is a scalar or a one-element vector (as TensorFlow
// accepts); types are TensorFlow's CPU set (half, bfloat16, float, double,
// int32, int64). Errors (InvalidArgument naming the node): other shapes,
// delta == 0, delta pointing away from limit, non-finite float bounds; huge
// outputs are ResourceExhausted.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    static const char* const kNames[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) {
      const TensorShape& shape = ctx->input(i).shape();
      const bool scalar_like =
          shape.dims() == 0 || (shape.dims() == 1 && shape.dim_size(0) == 1);
      OP_REQUIRES(
          ctx, scalar_like,
          NodeInvalidArgument(ctx, kNames[i], " must be a scalar, not shape ",
                              shape.DebugString()));
    }
    const T start = ctx->input(0).base<T>()[0];
    const T limit = ctx->input(1).base<T>()[0];
    const T delta = ctx->input(2).base<T>()[0];
    OP_REQUIRES(ctx, delta != T(0),
                NodeInvalidArgument(ctx, "Requires delta != 0: ", Str(delta)));
    if (delta > T(0)) {
      OP_REQUIRES(
          ctx, start <= limit,
          NodeInvalidArgument(ctx, "Requires start <= limit when delta > 0: ",
                              Str(start), "/", Str(limit)));
    } else {
      OP_REQUIRES(
          ctx, start >= limit,
          NodeInvalidArgument(ctx, "Requires start >= limit when delta < 0: ",
                              Str(start), "/", Str(limit)));
    }
    int64_t size = 0;
    if constexpr (std::is_integral<T>::value) {
      // |limit - start| and |delta| without signed overflow.
      const uint64_t diff =
          delta > T(0)
              ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
              : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
      const uint64_t step = delta > T(0)
                                ? static_cast<uint64_t>(delta)
                                : uint64_t{0} - static_cast<uint64_t>(delta);
      const uint64_t n = diff / step + (diff % step != 0 ? 1 : 0);
      OP_REQUIRES(ctx, n <= static_cast<uint64_t>(INT64_MAX),
                  NodeInvalidArgument(ctx, "Range has too many elements"));
      size = static_cast<int64_t>(n);
    } else {
      const double s = static_cast<double>(start);
      const double l = static_cast<double>(limit);
      const double d = static_cast<double>(delta);
      OP_REQUIRES(ctx, std::isfinite(s) && std::isfinite(l) && std::isfinite(d),
                  NodeInvalidArgument(ctx,
                                      "Requires start, limit and delta to "
                                      "be finite: ",
                                      s, "/", l, "/", d));
      const double n = std::ceil(std::abs((l - s) / d));
      OP_REQUIRES(ctx, n < 9.0e18,
                  NodeInvalidArgument(ctx, "Range has too many elements"));
      size = static_cast<int64_t>(n);
    }
    TensorShape shape({size});
    OP_REQUIRES_OK(ctx,
                   CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* o = out->base<T>();
    if constexpr (std::is_integral<T>::value) {
      // Exact values; unsigned arithmetic cannot overflow undefinedly.
      const uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(start));
      const uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(delta));
      for (int64_t i = 0; i < size; ++i) {
        o[i] = static_cast<T>(
            static_cast<int64_t>(s + static_cast<uint64_t>(i) * d));
      }
    } else {
      T val = start;
      for (int64_t i = 0; i < size; ++i) {
        o[i] = val;
        val += delta;
      }
    }
  }

 private:
  static std::string Str(T v) {
    if constexpr (std::is_integral<T>::value) {
      return absl::StrCat(static_cast<int64_t>(v));
    } else {
      return absl::StrCat(static_cast<double>(v));
    }
  }
};

#define SF_REGISTER_RANGE(T) \
  REGISTER_KERNEL_BUILDER(   \
      Name("Range").Device(DEVICE_CPU).TypeConstraint<T>("Tidx"), RangeOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_RANGE)
SF_REGISTER_RANGE(int32_t)
SF_REGISTER_RANGE(int64_t)
#undef SF_REGISTER_RANGE

}  // namespace
}  // namespace stepflow
