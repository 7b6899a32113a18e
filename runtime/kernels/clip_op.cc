// ClipByValue(t, clip_value_min, clip_value_max) = max(min(t, max), min)
// element-wise, where each bound is a scalar or has t's shape (anything
// else is InvalidArgument naming the node). min is applied last, so where
// min > max the result is min. min/max follow std::min/std::max: a NaN in
// t stays NaN, a NaN bound leaves the value as it is. Complex values are
// clipped component by component (real and imaginary parts separately),
// as TensorFlow's vectorised CPU kernel does.
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace {

template <typename R>
R Clip(R v, R lo, R hi) {
  const R a = hi < v ? hi : v;
  return a < lo ? lo : a;
}

template <typename T>
T ClipValue(T v, T lo, T hi) {
  if constexpr (std::is_same<T, complex64>::value ||
                std::is_same<T, complex128>::value) {
    return T(Clip(v.real(), lo.real(), hi.real()),
             Clip(v.imag(), lo.imag(), hi.imag()));
  } else {
    return Clip(v, lo, hi);
  }
}

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  explicit ClipByValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    const bool lo_scalar = lo.dims() == 0;
    const bool hi_scalar = hi.dims() == 0;
    OP_REQUIRES(
        ctx,
        (lo_scalar || lo.shape() == t.shape()) &&
            (hi_scalar || hi.shape() == t.shape()),
        NodeInvalidArgument(
            ctx,
            "clip_value_min and clip_value_max must be either of the same "
            "shape as input, or a scalar. input shape: ",
            t.shape().DebugString(),
            "clip_value_min shape: ", lo.shape().DebugString(),
            "clip_value_max shape: ", hi.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, t.shape(), &out));
    const int64_t n = t.NumElements();
    const T* in = t.base<T>();
    const T* lp = lo.base<T>();
    const T* hp = hi.base<T>();
    T* o = out->base<T>();
    const int64_t ls = lo_scalar ? 0 : 1;
    const int64_t hs = hi_scalar ? 0 : 1;
    for (int64_t i = 0; i < n; ++i)
      o[i] = ClipValue(in[i], lp[i * ls], hp[i * hs]);
  }
};

#define SF_REGISTER_CLIP(T)                                          \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ClipByValueOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_CLIP)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_CLIP)
SF_REGISTER_CLIP(int8_t)
SF_REGISTER_CLIP(int16_t)
SF_REGISTER_CLIP(int32_t)
SF_REGISTER_CLIP(int64_t)
SF_REGISTER_CLIP(uint8_t)
SF_REGISTER_CLIP(uint16_t)
#undef SF_REGISTER_CLIP

}  // namespace
}  // namespace stepflow
