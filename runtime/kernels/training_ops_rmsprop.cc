// RMSProp updates: ApplyRMSProp, ApplyCenteredRMSProp, their sparse forms
// (SparseApplyRMSProp, SparseApplyCenteredRMSProp, one row of var per index)
// and the ResourceApply*/ResourceSparseApply* forms of all four, for half,
// bfloat16 (dense forms only), float, double, complex64 and complex128.
//
//   ms  = ms + (grad^2 - ms) * (1 - rho)
//   mg  = mg + (grad - mg) * (1 - rho)                      (centered only)
//   mom = mom * momentum + lr * grad / sqrt(ms + epsilon)   (plain)
//   mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon)  (centered)
//   var = var - mom
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

template <typename T>
class ApplyRMSPropOp : public OpKernel {
 public:
  explicit ApplyRMSPropOp(OpKernelConstruction* ctx, bool centered, bool sparse)
      : OpKernel(ctx), centered_(centered), sparse_(sparse) {}

  void Compute(OpKernelContext* ctx) override {
    {
      // Variables: var, [mg,] ms, mom; then lr, rho, momentum, epsilon,
      // grad[, indices].
      const int nvars = centered_ ? 4 : 3;
      UpdateVariables vars;
      if (centered_) {
        OP_REQUIRES_OK(
            ctx, vars.Acquire(ctx, {0, 1, 2, 3}, DataTypeToEnum<T>::value));
      } else {
        OP_REQUIRES_OK(ctx,
                       vars.Acquire(ctx, {0, 1, 2}, DataTypeToEnum<T>::value));
      }
      Tensor& var = vars.tensor(0);
      Tensor* mg = centered_ ? &vars.tensor(1) : nullptr;
      Tensor& ms = vars.tensor(nvars - 2);
      Tensor& mom = vars.tensor(nvars - 1);
      static constexpr const char* kScalars[] = {"lr", "rho", "momentum",
                                                 "epsilon"};
      T s[4];
      for (int i = 0; i < 4; ++i) {
        const Tensor& t = ctx->input(nvars + i);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, t, kScalars[i]));
        s[i] = t.scalar<T>();
      }
      const Tensor& grad = ctx->input(nvars + 4);
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, ms, "ms"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, mom, "mom"));
      if (centered_) {
        OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, *mg, "mg"));
      }
      const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
      const T one_minus_rho = T(1) - rho;
      if (!sparse_) {
        OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "grad"));
        Update(var.flat<T>(), mg == nullptr ? ms.flat<T>() : mg->flat<T>(),
               ms.flat<T>(), mom.flat<T>(), grad.flat<T>(), lr, one_minus_rho,
               momentum, epsilon);
      } else {
        std::vector<int64_t> rows;
        OP_REQUIRES_OK(ctx, ValidateSparseUpdate(*this, var, grad,
                                                 ctx->input(nvars + 5), &rows));
        auto v2 = var.shaped_to<T, 2>();
        auto ms2 = ms.shaped_to<T, 2>();
        auto mom2 = mom.shaped_to<T, 2>();
        auto g2 = grad.shaped_to<T, 2>();
        for (size_t i = 0; i < rows.size(); ++i) {
          const int64_t r = rows[i];
          if (mg != nullptr) {
            auto mg2 = mg->shaped_to<T, 2>();
            Update(v2.template chip<0>(r), mg2.template chip<0>(r),
                   ms2.template chip<0>(r), mom2.template chip<0>(r),
                   g2.template chip<0>(static_cast<int64_t>(i)), lr,
                   one_minus_rho, momentum, epsilon);
          } else {
            Update(v2.template chip<0>(r), ms2.template chip<0>(r),
                   ms2.template chip<0>(r), mom2.template chip<0>(r),
                   g2.template chip<0>(static_cast<int64_t>(i)), lr,
                   one_minus_rho, momentum, epsilon);
          }
        }
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  // One update over matching views (whole tensors or one row each). `mg`
  // is only read or written when centered_.
  template <typename V, typename MG, typename MS, typename MOM, typename G>
  void Update(V v, MG mg, MS ms, MOM mom, G g, T lr, T one_minus_rho,
              T momentum, T epsilon) const {
    ms += (g.square() - ms) * ms.constant(one_minus_rho);
    if (centered_) {
      mg += (g - mg) * mg.constant(one_minus_rho);
      mom = mom * mom.constant(momentum) +
            (g * g.constant(lr)) /
                (ms - mg.square() + ms.constant(epsilon)).sqrt();
    } else {
      mom = mom * mom.constant(momentum) +
            (g * g.constant(lr)) / (ms + ms.constant(epsilon)).sqrt();
    }
    v -= mom;
  }

  const bool centered_;
  const bool sparse_;
};

template <typename T, bool kCentered, bool kSparse>
class RMSPropKernel : public ApplyRMSPropOp<T> {
 public:
  explicit RMSPropKernel(OpKernelConstruction* ctx)
      : ApplyRMSPropOp<T>(ctx, kCentered, kSparse) {}
};

#define SF_REGISTER_DENSE(NAME, T, CENTERED)                           \
  REGISTER_KERNEL_BUILDER(                                             \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      RMSPropKernel<T, CENTERED, false>);                              \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Resource" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      RMSPropKernel<T, CENTERED, false>);
#define SF_REGISTER_SPARSE(NAME, T, CENTERED)                \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("Sparse" NAME)                                    \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      RMSPropKernel<T, CENTERED, true>);                     \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("ResourceSparse" NAME)                            \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      RMSPropKernel<T, CENTERED, true>);
#define SF_REGISTER_RMSPROP(T)                \
  SF_REGISTER_DENSE("ApplyRMSProp", T, false) \
  SF_REGISTER_DENSE("ApplyCenteredRMSProp", T, true)
#define SF_REGISTER_SPARSE_RMSPROP(T)          \
  SF_REGISTER_SPARSE("ApplyRMSProp", T, false) \
  SF_REGISTER_SPARSE("ApplyCenteredRMSProp", T, true)
SF_CALL_FLOAT_TYPES(SF_REGISTER_RMSPROP)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_RMSPROP)
// The sparse forms have no bfloat16 kernel in TensorFlow.
SF_REGISTER_SPARSE_RMSPROP(float)
SF_REGISTER_SPARSE_RMSPROP(double)
SF_REGISTER_SPARSE_RMSPROP(::stepflow::half)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_SPARSE_RMSPROP)
#undef SF_REGISTER_SPARSE_RMSPROP
#undef SF_REGISTER_RMSPROP
#undef SF_REGISTER_SPARSE
#undef SF_REGISTER_DENSE

}  // namespace
}  // namespace stepflow
