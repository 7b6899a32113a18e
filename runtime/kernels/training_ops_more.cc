// More optimizer updates, on ref (Apply*) and resource (ResourceApply*)
// variables: Adadelta, AdaMax, ProximalAdagrad, Ftrl and FtrlV2 (and
// their sparse forms SparseApplyFtrl(V2), one row of var per index).
//
//   Adadelta:  accum = rho * accum + (1 - rho) * grad^2
//              update = sqrt(accum_update + eps) / sqrt(accum + eps) * grad
//              var -= lr * update
//              accum_update = rho * accum_update + (1 - rho) * update^2
//   AdaMax:    m += (grad - m) * (1 - beta1);  v = max(beta2 * v, |grad|)
//              var -= lr / (1 - beta1_power) * m / (v + epsilon)
//   ProximalAdagrad: accum += grad^2;  a = lr / sqrt(accum)
//              p = var - a * grad
//              var = sign(p) * max(|p| - a * l1, 0) / (1 + a * l2)  (l1 > 0)
//              var = p / (1 + a * l2)                                (else)
//   Ftrl(V2):  g' = grad + 2 * l2_shrinkage * var (V2; grad for Ftrl)
//              n = accum + grad^2
//              linear += g' - (n^-lr_power - accum^-lr_power) / lr * var
//              var = |linear| > l1 ? (l1 * sign(linear) - linear) /
//                                    (n^-lr_power / lr + 2 * l2) : 0
//              accum = n
//              (multiply_linear_by_lr scales linear's update and l1 by lr)
//
// Variables are found and locked by UpdateVariables (training_op_helpers.h,
// which states the error contract); hyper-parameters must be scalars and
// gradients have the variable's shape (InvalidArgument naming the node).
#include <initializer_list>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/training_op_helpers.h"

namespace stepflow {
namespace {

// Acquires `n` variables at inputs 0..n-1.
absl::Status AcquireFirst(OpKernelContext* ctx, int n, DataType dtype,
                          UpdateVariables* vars) {
  switch (n) {
    case 2:
      return vars->Acquire(ctx, {0, 1}, dtype);
    default:
      return vars->Acquire(ctx, {0, 1, 2}, dtype);
  }
}

// The shared frame: lock the variables, read the named scalar inputs,
// check shapes, then run Rule::Apply on flat views.
template <typename T, typename Rule>
class UpdateOp : public OpKernel {
 public:
  explicit UpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (Rule::kHasMultiplyAttr) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("multiply_linear_by_lr", &by_lr_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, AcquireFirst(ctx, Rule::kNumVars,
                                       DataTypeToEnum<T>::value, &vars));
      std::vector<T> s;
      for (size_t i = 0; i < Rule::kScalars.size(); ++i) {
        const Tensor& t = ctx->input(Rule::kScalars[i].first);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, t, Rule::kScalars[i].second));
        s.push_back(t.scalar<T>());
      }
      const Tensor& grad = ctx->input(Rule::kGrad);
      static constexpr const char* kSlotNames[] = {"var", "slot 1", "slot 2"};
      for (int k = 1; k < Rule::kNumVars; ++k) {
        OP_REQUIRES_OK(ctx, RequireSameShape(*this, vars.tensor(0),
                                             vars.tensor(k), kSlotNames[k]));
      }
      OP_REQUIRES_OK(ctx,
                     RequireSameShape(*this, vars.tensor(0), grad, "grad"));
      Rule::template Apply<T>(&vars, grad.flat<T>(), s, by_lr_);
    }
    ForwardVarRef(ctx);
  }

 private:
  bool by_lr_ = false;
};

struct Adadelta {
  static constexpr int kNumVars = 3;
  static constexpr int kGrad = 6;
  static constexpr bool kHasMultiplyAttr = false;
  static inline const std::vector<std::pair<int, const char*>> kScalars = {
      {3, "lr"}, {4, "rho"}, {5, "epsilon"}};
  template <typename T, typename G>
  static void Apply(UpdateVariables* vars, G g, const std::vector<T>& s, bool) {
    auto var = vars->tensor(0).flat<T>();
    auto accum = vars->tensor(1).flat<T>();
    auto accum_update = vars->tensor(2).flat<T>();
    const T lr = s[0], rho = s[1], eps = s[2];
    accum = accum * accum.constant(rho) + g.square() * g.constant(T(1) - rho);
    auto update = (accum_update + accum_update.constant(eps)).sqrt() *
                  (accum + accum.constant(eps)).rsqrt() * g;
    var -= update * update.constant(lr);
    accum_update = accum_update * accum_update.constant(rho) +
                   update.square() * update.constant(T(1) - rho);
  }
};

struct AdaMax {
  static constexpr int kNumVars = 3;
  static constexpr int kGrad = 8;
  static constexpr bool kHasMultiplyAttr = false;
  static inline const std::vector<std::pair<int, const char*>> kScalars = {
      {3, "beta1_power"},
      {4, "lr"},
      {5, "beta1"},
      {6, "beta2"},
      {7, "epsilon"}};
  template <typename T, typename G>
  static void Apply(UpdateVariables* vars, G g, const std::vector<T>& s, bool) {
    auto var = vars->tensor(0).flat<T>();
    auto m = vars->tensor(1).flat<T>();
    auto v = vars->tensor(2).flat<T>();
    const T beta1_power = s[0], lr = s[1], beta1 = s[2], beta2 = s[3],
            eps = s[4];
    m += (g - m) * m.constant(T(1) - beta1);
    v = (v * v.constant(beta2)).cwiseMax(g.abs());
    var -=
        var.constant(lr / (T(1) - beta1_power)) * (m / (v + v.constant(eps)));
  }
};

struct ProximalAdagrad {
  static constexpr int kNumVars = 2;
  static constexpr int kGrad = 5;
  static constexpr bool kHasMultiplyAttr = false;
  static inline const std::vector<std::pair<int, const char*>> kScalars = {
      {2, "lr"}, {3, "l1"}, {4, "l2"}};
  template <typename T, typename G>
  static void Apply(UpdateVariables* vars, G g, const std::vector<T>& s, bool) {
    auto var = vars->tensor(0).flat<T>();
    auto accum = vars->tensor(1).flat<T>();
    const T lr = s[0], l1 = s[1], l2 = s[2];
    accum += g.square();
    auto rate = accum.constant(lr) * accum.rsqrt();
    auto prox = var - g * rate;
    if (l1 > T(0)) {
      var = prox.sign() *
            (prox.abs() - rate * rate.constant(l1))
                .cwiseMax(rate.constant(T(0))) /
            (var.constant(T(1)) + var.constant(l2) * rate);
    } else {
      var = prox / (var.constant(T(1)) + var.constant(l2) * rate);
    }
  }
};

// One Ftrl(V2) step on maps of equal length: `s` holds lr, l1, l2,
// [l2_shrinkage,] lr_power.
template <bool kV2, typename T, typename M, typename G>
void FtrlStep(M var, M accum, M linear, G g, const std::vector<T>& s,
              bool by_lr) {
  const T lr = s[0], l1 = s[1], l2 = s[2];
  const T shrink = kV2 ? s[3] : T(0);
  const T lr_power = kV2 ? s[4] : s[3];
  Eigen::Tensor<T, 1, Eigen::RowMajor> new_accum = accum + g.square();
  Eigen::Tensor<T, 1, Eigen::RowMajor> gs = g;
  if (kV2) gs = g + var * var.constant(T(2) * shrink);
  Eigen::Tensor<T, 1, Eigen::RowMajor> sigma_num, new_pow;
  if (lr_power == T(-0.5)) {
    new_pow = new_accum.sqrt();
    sigma_num = new_pow - accum.sqrt();
  } else {
    new_pow = new_accum.pow(-lr_power);
    sigma_num = new_pow - accum.pow(-lr_power);
  }
  if (by_lr) {
    linear += gs * gs.constant(lr) - sigma_num * var;
  } else {
    linear += gs - sigma_num / sigma_num.constant(lr) * var;
  }
  const T l1_eff = by_lr ? l1 * lr : l1;
  Eigen::Tensor<T, 1, Eigen::RowMajor> y;
  if (by_lr) {
    y = new_pow + new_pow.constant(T(2) * l2 * lr);
  } else {
    y = new_pow / new_pow.constant(lr) + new_pow.constant(T(2) * l2);
  }
  auto x = linear.sign() * linear.constant(l1_eff) - linear;
  var = (linear.abs() > linear.constant(l1_eff))
            .select(x / y, var.constant(T(0)));
  accum = new_accum;
}

template <bool kV2>
struct Ftrl {
  static constexpr int kNumVars = 3;
  static constexpr int kGrad = 3;
  static constexpr bool kHasMultiplyAttr = true;
  static inline const std::vector<std::pair<int, const char*>> kScalars =
      kV2 ? std::vector<std::pair<int, const char*>>{{4, "lr"},
                                                     {5, "l1"},
                                                     {6, "l2"},
                                                     {7, "l2_shrinkage"},
                                                     {8, "lr_power"}}
          : std::vector<std::pair<int, const char*>>{
                {4, "lr"}, {5, "l1"}, {6, "l2"}, {7, "lr_power"}};
  template <typename T, typename G>
  static void Apply(UpdateVariables* vars, G g, const std::vector<T>& s,
                    bool by_lr) {
    FtrlStep<kV2>(vars->tensor(0).flat<T>(), vars->tensor(1).flat<T>(),
                  vars->tensor(2).flat<T>(), g, s, by_lr);
  }
};

// SparseApplyFtrl(V2): var, accum, linear, grad, indices, then the
// scalars, which must be in range (InvalidArgument naming the node: lr > 0,
// or >= 0 with multiply_linear_by_lr; l1, l2, l2_shrinkage >= 0; lr_power
// <= 0); each index updates its row of the three variables once, in
// order, after every index is checked.
template <typename T, bool kV2>
class SparseFtrlOp : public OpKernel {
 public:
  explicit SparseFtrlOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("multiply_linear_by_lr", &by_lr_));
  }

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx,
                     vars.Acquire(ctx, {0, 1, 2}, DataTypeToEnum<T>::value));
      std::vector<T> s;
      for (const auto& [index, what] : Ftrl<kV2>::kScalars) {
        const Tensor& t = ctx->input(index + 1);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, t, what));
        s.push_back(t.scalar<T>());
      }
      OP_REQUIRES_OK(ctx, CheckSparseFtrlScalars(s));
      Tensor& var = vars.tensor(0);
      OP_REQUIRES_OK(ctx,
                     RequireSameShape(*this, var, vars.tensor(1), "accum"));
      OP_REQUIRES_OK(ctx,
                     RequireSameShape(*this, var, vars.tensor(2), "linear"));
      const Tensor& grad = ctx->input(3);
      std::vector<int64_t> rows;
      OP_REQUIRES_OK(
          ctx, ValidateSparseUpdate(*this, var, grad, ctx->input(4), &rows));
      using Row = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>>;
      using ConstRow =
          Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor>>;
      const int64_t width =
          var.dim_size(0) == 0 ? 0 : var.NumElements() / var.dim_size(0);
      for (size_t i = 0; i < rows.size(); ++i) {
        const int64_t at = rows[i] * width;
        FtrlStep<kV2>(Row(var.base<T>() + at, width),
                      Row(vars.tensor(1).base<T>() + at, width),
                      Row(vars.tensor(2).base<T>() + at, width),
                      ConstRow(grad.base<T>() + i * width, width), s, by_lr_);
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  // The ranges the sparse forms require (the dense forms check none).
  absl::Status CheckSparseFtrlScalars(const std::vector<T>& s) const {
    const T lr = s[0], l1 = s[1], l2 = s[2], lr_power = s.back();
    if (!(lr > T(0) || (by_lr_ && lr >= T(0)))) {
      return NodeInvalidArgument(*this,
                                 "lr is not a positive scalar (or zero if "
                                 "multiply_linear_by_lr is set): []");
    }
    if (!(l1 >= T(0))) {
      return NodeInvalidArgument(
          *this, "l1 regularization strength is not a non-negative scalar: []");
    }
    if (!(l2 >= T(0))) {
      return NodeInvalidArgument(
          *this, "l2 regularization strength is not a non-negative scalar: []");
    }
    if (kV2 && !(s[3] >= T(0))) {
      return NodeInvalidArgument(*this,
                                 "l2 shrinkage regularization strength is not "
                                 "a non-negative scalar: []");
    }
    if (!(lr_power <= T(0))) {
      return NodeInvalidArgument(*this,
                                 "lr_power is not a non-positive scalar: []");
    }
    return absl::OkStatus();
  }

  bool by_lr_ = false;
};

#define SF_REGISTER_RULE(NAME, RULE, T)                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      UpdateOp<T, RULE>);                                              \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Resource" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      UpdateOp<T, RULE>);
// TensorFlow's CPU kernels: Adadelta for the float and complex types,
// AdaMax for half, float and double, ProximalAdagrad for float and double,
// Ftrl(V2) and their sparse forms for the float types.
#define SF_REGISTER_ADADELTA(T) SF_REGISTER_RULE("ApplyAdadelta", Adadelta, T)
#define SF_REGISTER_SPARSE_FTRL(NAME, T, V2)                 \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(NAME)                                             \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      SparseFtrlOp<T, V2>);
#define SF_REGISTER_FTRL(T)                                    \
  SF_REGISTER_RULE("ApplyFtrl", Ftrl<false>, T)                \
  SF_REGISTER_RULE("ApplyFtrlV2", Ftrl<true>, T)               \
  SF_REGISTER_SPARSE_FTRL("SparseApplyFtrl", T, false)         \
  SF_REGISTER_SPARSE_FTRL("ResourceSparseApplyFtrl", T, false) \
  SF_REGISTER_SPARSE_FTRL("SparseApplyFtrlV2", T, true)        \
  SF_REGISTER_SPARSE_FTRL("ResourceSparseApplyFtrlV2", T, true)
SF_CALL_FLOAT_TYPES(SF_REGISTER_ADADELTA)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_ADADELTA)
SF_CALL_FLOAT_TYPES(SF_REGISTER_FTRL)
SF_REGISTER_RULE("ApplyAdaMax", AdaMax, ::stepflow::half)
SF_REGISTER_RULE("ApplyAdaMax", AdaMax, float)
SF_REGISTER_RULE("ApplyAdaMax", AdaMax, double)
SF_REGISTER_RULE("ApplyProximalAdagrad", ProximalAdagrad, float)
SF_REGISTER_RULE("ApplyProximalAdagrad", ProximalAdagrad, double)
#undef SF_REGISTER_FTRL
#undef SF_REGISTER_SPARSE_FTRL
#undef SF_REGISTER_ADADELTA
#undef SF_REGISTER_RULE

}  // namespace
}  // namespace stepflow
