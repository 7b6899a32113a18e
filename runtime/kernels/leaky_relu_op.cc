// LeakyRelu(features; alpha) = features > 0 ? features : alpha * features
// and LeakyReluGrad(gradients, features; alpha) = features > 0 ? gradients
// : alpha * gradients, element-wise (alpha rounded to T first). The
// gradient's inputs must have one shape (InvalidArgument naming the node
// otherwise). Floating types only, as TensorFlow's OpDef allows.
#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace {

// kGrad selects LeakyReluGrad: the selected value is then the gradient
// (input 0) and the test is on the features (input 1).
template <typename T, bool kGrad>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    alpha_ = T(alpha);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& v = ctx->input(0);
    const Tensor& x = ctx->input(kGrad ? 1 : 0);
    OP_REQUIRES(ctx, v.shape() == x.shape(),
                NodeInvalidArgument(
                    ctx, type_string(), " inputs must have the same shape: ",
                    v.shape().DebugString(), " vs. ", x.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, v.shape(), &out));
    const int64_t n = v.NumElements();
    if (n == 0) return;
    cwise::ConstArrayMap<T> value(v.base<T>(), n);
    cwise::ConstArrayMap<T> f(x.base<T>(), n);
    cwise::ArrayMap<T>(out->base<T>(), n) =
        (f > T(0)).select(value, value * alpha_);
  }

 private:
  T alpha_;
};

#define SF_REGISTER_LEAKY_RELU(T)                                      \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      LeakyReluOp<T, false>);                                          \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("LeakyReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      LeakyReluOp<T, true>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_LEAKY_RELU)
#undef SF_REGISTER_LEAKY_RELU

}  // namespace
}  // namespace stepflow
