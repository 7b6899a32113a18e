// Adagrad updates: ApplyAdagrad, ApplyAdagradV2 (with epsilon), their
// sparse forms (SparseApplyAdagrad, SparseApplyAdagradV2, one row of var
// per index) and the Resource* forms of all four, for half, bfloat16,
// float, double, complex64 and complex128.
//
//   accum = accum + grad^2                       (when update_slots)
//   var   = var - lr * grad / sqrt(accum)        (Adagrad)
//   var   = var - lr * grad / (sqrt(accum) + epsilon)   (AdagradV2)
//
// Variables are found and locked by UpdateVariables (training_op_helpers.h,
// which states the error contract). Sparse forms check every index before
// updating anything; a repeated index updates its row once per occurrence,
// in order.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/training_op_helpers.h"

namespace stepflow {
namespace {

template <typename T, bool kEpsilon, bool kSparse>
class ApplyAdagradOp : public OpKernel {
 public:
  explicit ApplyAdagradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &update_slots_));
  }

  void Compute(OpKernelContext* ctx) override {
    {
      // Inputs: var, accum, lr, [epsilon,] grad[, indices].
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0, 1}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      Tensor& accum = vars.tensor(1);
      const Tensor& lr = ctx->input(2);
      OP_REQUIRES_OK(ctx, RequireScalar(*this, lr, "lr"));
      T epsilon(0);
      if (kEpsilon) {
        const Tensor& eps = ctx->input(3);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, eps, "epsilon"));
        epsilon = eps.scalar<T>();
      }
      const int grad_index = kEpsilon ? 4 : 3;
      const Tensor& grad = ctx->input(grad_index);
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, accum, "accum"));
      const T l = lr.scalar<T>();
      if (!kSparse) {
        OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "grad"));
        Update(var.flat<T>(), accum.flat<T>(), grad.flat<T>(), l, epsilon);
      } else {
        std::vector<int64_t> rows;
        OP_REQUIRES_OK(ctx,
                       ValidateSparseUpdate(*this, var, grad,
                                            ctx->input(grad_index + 1), &rows));
        auto v2 = var.shaped_to<T, 2>();
        auto a2 = accum.shaped_to<T, 2>();
        auto g2 = grad.shaped_to<T, 2>();
        for (size_t i = 0; i < rows.size(); ++i) {
          Update(v2.template chip<0>(rows[i]), a2.template chip<0>(rows[i]),
                 g2.template chip<0>(static_cast<int64_t>(i)), l, epsilon);
        }
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  template <typename V, typename A, typename G>
  void Update(V v, A a, G g, T lr, T epsilon) const {
    if (update_slots_) a += g.square();
    if (kEpsilon) {
      v -= (g * g.constant(lr)) / (a.sqrt() + a.constant(epsilon));
    } else {
      v -= g * g.constant(lr) * a.rsqrt();
    }
  }

  bool update_slots_ = true;
};

#define SF_REGISTER_ONE(NAME, T, EPS)                                  \
  REGISTER_KERNEL_BUILDER(                                             \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ApplyAdagradOp<T, EPS, false>);                                  \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Resource" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyAdagradOp<T, EPS, false>);                                  \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Sparse" NAME)                                              \
          .Device(DEVICE_CPU)                                          \
          .TypeConstraint<T>("T")                                      \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),           \
      ApplyAdagradOp<T, EPS, true>);                                   \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("ResourceSparse" NAME)                                      \
          .Device(DEVICE_CPU)                                          \
          .TypeConstraint<T>("T")                                      \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),           \
      ApplyAdagradOp<T, EPS, true>);
#define SF_REGISTER_ADAGRAD(T)              \
  SF_REGISTER_ONE("ApplyAdagrad", T, false) \
  SF_REGISTER_ONE("ApplyAdagradV2", T, true)
SF_CALL_FLOAT_TYPES(SF_REGISTER_ADAGRAD)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_ADAGRAD)
#undef SF_REGISTER_ADAGRAD
#undef SF_REGISTER_ONE

}  // namespace
}  // namespace stepflow
