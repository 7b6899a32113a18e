// Proximal updates: ApplyProximalGradientDescent (dense), the sparse forms
// SparseApplyProximalGradientDescent and SparseApplyProximalAdagrad (one
// row of var per index) and the Resource* forms of all three, for float
// and double (TensorFlow's CPU kernels).
//
//   ProximalGradientDescent: rate = alpha
//   ProximalAdagrad:         accum += grad^2;  rate = lr / sqrt(accum)
//   p   = var - rate * grad
//   var = sign(p) * max(|p| - rate * l1, 0) / (1 + rate * l2)   (l1 > 0)
//   var = p / (1 + rate * l2)                                    (else)
//
// Variables are found and locked by UpdateVariables (training_op_helpers.h,
// which states the error contract). Sparse forms check every index before
// updating anything; a repeated index updates its row once per occurrence,
// in order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/training_op_helpers.h"

namespace stepflow {
namespace {

// The proximal step on `n` elements: `v` (var), `a` (accum, unused
// without kAdagrad), `g` (grad); `base_rate` is alpha or lr.
template <bool kAdagrad, typename T>
void ProximalStep(T* v, T* a, const T* g, int64_t n, T base_rate, T l1, T l2) {
  for (int64_t i = 0; i < n; ++i) {
    T rate = base_rate;
    if (kAdagrad) {
      a[i] += g[i] * g[i];
      rate = base_rate / std::sqrt(a[i]);
    }
    const T prox = v[i] - rate * g[i];
    const T denom = T(1) + rate * l2;
    if (l1 > T(0)) {
      const T shrunk = std::max(std::abs(prox) - rate * l1, T(0));
      const T sign = prox > T(0) ? T(1) : (prox < T(0) ? T(-1) : T(0));
      v[i] = sign * shrunk / denom;
    } else {
      v[i] = prox / denom;
    }
  }
}

// Inputs: var, [accum,] rate, l1, l2, grad[, indices].
template <typename T, bool kAdagrad, bool kSparse>
class ApplyProximalOp : public OpKernel {
 public:
  explicit ApplyProximalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      if (kAdagrad) {
        OP_REQUIRES_OK(ctx,
                       vars.Acquire(ctx, {0, 1}, DataTypeToEnum<T>::value));
      } else {
        OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0}, DataTypeToEnum<T>::value));
      }
      const int first = kAdagrad ? 2 : 1;
      static constexpr const char* kNames[] = {kAdagrad ? "lr" : "alpha", "l1",
                                               "l2"};
      T s[3];
      for (int k = 0; k < 3; ++k) {
        const Tensor& t = ctx->input(first + k);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, t, kNames[k]));
        s[k] = t.scalar<T>();
      }
      Tensor& var = vars.tensor(0);
      Tensor* accum = kAdagrad ? &vars.tensor(1) : &var;
      if (kAdagrad) {
        OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, *accum, "accum"));
      }
      const Tensor& grad = ctx->input(first + 3);
      if (!kSparse) {
        OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "delta"));
        ProximalStep<kAdagrad>(var.base<T>(), accum->base<T>(), grad.base<T>(),
                               var.NumElements(), s[0], s[1], s[2]);
      } else {
        std::vector<int64_t> rows;
        OP_REQUIRES_OK(ctx, ValidateSparseUpdate(*this, var, grad,
                                                 ctx->input(first + 4), &rows));
        const int64_t width =
            var.dim_size(0) == 0 ? 0 : var.NumElements() / var.dim_size(0);
        for (size_t i = 0; i < rows.size(); ++i) {
          ProximalStep<kAdagrad>(var.base<T>() + rows[i] * width,
                                 accum->base<T>() + rows[i] * width,
                                 grad.base<T>() + i * width, width, s[0], s[1],
                                 s[2]);
        }
      }
    }
    ForwardVarRef(ctx);
  }
};

#define SF_REGISTER_DENSE(NAME, T, ADAGRAD)                            \
  REGISTER_KERNEL_BUILDER(                                             \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ApplyProximalOp<T, ADAGRAD, false>);                             \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Resource" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyProximalOp<T, ADAGRAD, false>);
#define SF_REGISTER_SPARSE(NAME, T, ADAGRAD)                 \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("Sparse" NAME)                                    \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ApplyProximalOp<T, ADAGRAD, true>);                    \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("ResourceSparse" NAME)                            \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ApplyProximalOp<T, ADAGRAD, true>);
#define SF_REGISTER_PROXIMAL(T)                                \
  SF_REGISTER_DENSE("ApplyProximalGradientDescent", T, false)  \
  SF_REGISTER_SPARSE("ApplyProximalGradientDescent", T, false) \
  SF_REGISTER_SPARSE("ApplyProximalAdagrad", T, true)
SF_REGISTER_PROXIMAL(float)
SF_REGISTER_PROXIMAL(double)
#undef SF_REGISTER_PROXIMAL
#undef SF_REGISTER_SPARSE
#undef SF_REGISTER_DENSE

}  // namespace
}  // namespace stepflow
