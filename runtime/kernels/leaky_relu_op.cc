// LeakyRelu(features; alpha) = features > 0 ? features : alpha * features
// and LeakyReluGrad(gradients, features; alpha) = features > 0 ? gradients
// : alpha * gradients, element-wise (alpha rounded to T first). The
// gradient's inputs must have one shape (InvalidArgument naming the node
// otherwise). Floating types only, as TensorFlow's OpDef allows.
#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace {

template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    alpha_ = T(alpha);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    const int64_t n = x.NumElements();
    if (n == 0) return;
    cwise::ConstArrayMap<T> f(x.base<T>(), n);
    cwise::ArrayMap<T>(out->base<T>(), n) = (f > T(0)).select(f, f * alpha_);
  }

 private:
  T alpha_;
};

template <typename T>
class LeakyReluGradOp : public OpKernel {
 public:
  explicit LeakyReluGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    alpha_ = T(alpha);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == x.shape(),
                NodeInvalidArgument(
                    ctx, type_string(), " inputs must have the same shape: ",
                    g.shape().DebugString(), " vs. ", x.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, g.shape(), &out));
    const int64_t n = g.NumElements();
    if (n == 0) return;
    cwise::ConstArrayMap<T> grad(g.base<T>(), n);
    cwise::ConstArrayMap<T> f(x.base<T>(), n);
    cwise::ArrayMap<T>(out->base<T>(), n) =
        (f > T(0)).select(grad, grad * alpha_);
  }

 private:
  T alpha_;
};

#define SF_REGISTER_LEAKY_RELU(T)                                      \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      LeakyReluOp<T>);                                                 \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("LeakyReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      LeakyReluGradOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_LEAKY_RELU)
#undef SF_REGISTER_LEAKY_RELU

}  // namespace
}  // namespace stepflow
