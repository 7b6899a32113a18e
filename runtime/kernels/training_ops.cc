// Optimizer update kernels: ApplyGradientDescent, ApplyMomentum, ApplyAdam
// and their ResourceApply* forms, for half, bfloat16, float, double,
// complex64 and complex128 (as in TensorFlow).
//
// The variables an op updates (var, accum, m, v) arrive as refs or as
// resource handles and are locked for the update by UpdateVariables
// (training_op_helpers.h, which also states the error contract).
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/training_op_helpers.h"

namespace stepflow {
namespace {

// var -= alpha * delta
template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      const Tensor& alpha = ctx->input(1);
      const Tensor& delta = ctx->input(2);
      OP_REQUIRES_OK(ctx, RequireScalar(*this, alpha, "alpha"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, delta, "delta"));
      auto v = var.flat<T>();
      auto d = delta.flat<T>();
      v -= d * d.constant(alpha.scalar<T>());
    }
    ForwardVarRef(ctx);
  }
};

// accum = accum * momentum + grad
// var -= lr * accum                                (plain)
// var -= lr * grad + lr * momentum * accum         (Nesterov)
template <typename T>
class ApplyMomentumOp : public OpKernel {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0, 1}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      Tensor& accum = vars.tensor(1);
      const Tensor& lr = ctx->input(2);
      const Tensor& grad = ctx->input(3);
      const Tensor& momentum = ctx->input(4);
      OP_REQUIRES_OK(ctx, RequireScalar(*this, lr, "lr"));
      OP_REQUIRES_OK(ctx, RequireScalar(*this, momentum, "momentum"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, accum, "accum"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "grad"));
      auto v = var.flat<T>();
      auto a = accum.flat<T>();
      auto g = grad.flat<T>();
      const T l = lr.scalar<T>();
      const T m = momentum.scalar<T>();
      a = a * a.constant(m) + g;
      if (use_nesterov_) {
        v -= g * g.constant(l) + a * a.constant(m * l);
      } else {
        v -= a * a.constant(l);
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  bool use_nesterov_ = false;
};

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
// m += (grad - m) * (1 - beta1)
// v += (grad^2 - v) * (1 - beta2)
// var -= lr_t * m / (sqrt(v) + epsilon)                          (plain)
// var -= lr_t * (beta1 * m + (1 - beta1) * grad) / (sqrt(v) + epsilon)
//                                                                (Nesterov)
template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx,
                     vars.Acquire(ctx, {0, 1, 2}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      Tensor& m_t = vars.tensor(1);
      Tensor& v_t = vars.tensor(2);
      static constexpr const char* kScalars[] = {
          "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
      T s[6];
      for (int i = 0; i < 6; ++i) {
        const Tensor& t = ctx->input(3 + i);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, t, kScalars[i]));
        s[i] = t.scalar<T>();
      }
      const Tensor& grad = ctx->input(9);
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, m_t, "m"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, v_t, "v"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "grad"));
      const T one(1);
      const T beta1_power = s[0], beta2_power = s[1], lr = s[2];
      const T beta1 = s[3], beta2 = s[4], epsilon = s[5];
      const T lr_t = static_cast<T>(
          lr * static_cast<T>(Eigen::numext::sqrt(one - beta2_power)) /
          (one - beta1_power));
      auto w = var.flat<T>();
      auto m = m_t.flat<T>();
      auto v = v_t.flat<T>();
      auto g = grad.flat<T>();
      m += (g - m) * m.constant(one - beta1);
      v += (g.square() - v) * v.constant(one - beta2);
      if (use_nesterov_) {
        w -= ((g * g.constant(one - beta1) + m * m.constant(beta1)) *
              g.constant(lr_t)) /
             (v.sqrt() + v.constant(epsilon));
      } else {
        w -= (m * m.constant(lr_t)) / (v.sqrt() + v.constant(epsilon));
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  bool use_nesterov_ = false;
};

#define SF_REGISTER_TRAINING(T)                                                \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ApplyGradientDescentOp<T>);                                              \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyGradientDescent")                 \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T"),                         \
                          ApplyGradientDescentOp<T>);                          \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      ApplyMomentumOp<T>);                                                     \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResourceApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyMomentumOp<T>);                                                     \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),             \
      ApplyAdamOp<T>);                                                         \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      ApplyAdamOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_TRAINING)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_TRAINING)
#undef SF_REGISTER_TRAINING

}  // namespace
}  // namespace stepflow
