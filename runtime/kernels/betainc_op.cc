// Betainc(a, b, x): the regularized incomplete beta function I_x(a, b),
// element-wise, with Eigen's betainc (the implementation TensorFlow's CPU
// kernel evaluates). a, b and x are each a scalar or share one shape; the
// output has that shape. Inconsistent shapes are InvalidArgument naming
// the node; arguments outside the domain give NaN.
#include "runtime/kernels/cwise_ops_common.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace stepflow {
namespace {

template <typename T>
class BetaincOp : public OpKernel {
 public:
  explicit BetaincOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    const Tensor& x = ctx->input(2);
    const Tensor* shaped = &a;
    for (const auto& [t, name] :
         {std::pair<const Tensor*, const char*>{&b, "b"}, {&x, "x"}}) {
      if (t->dims() == 0) continue;
      if (shaped->dims() == 0) {
        shaped = t;
        continue;
      }
      OP_REQUIRES(
          ctx, t->shape() == shaped->shape(),
          NodeInvalidArgument(
              ctx, "Shapes of ", shaped == &a ? "a" : "b", " and ", name,
              " are inconsistent: ", shaped->shape().DebugString(), " vs. ",
              t->shape().DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shaped->shape(), &out));
    const int64_t n = out->NumElements();
    const T* ap = a.base<T>();
    const T* bp = b.base<T>();
    const T* xp = x.base<T>();
    const int64_t as = a.dims() == 0 ? 0 : 1;
    const int64_t bs = b.dims() == 0 ? 0 : 1;
    const int64_t xs = x.dims() == 0 ? 0 : 1;
    T* o = out->base<T>();
    for (int64_t i = 0; i < n; ++i) {
      o[i] = Eigen::numext::betainc(ap[i * as], bp[i * bs], xp[i * xs]);
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Betainc").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    BetaincOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("Betainc").Device(DEVICE_CPU).TypeConstraint<double>("T"),
    BetaincOp<double>);

}  // namespace
}  // namespace stepflow
