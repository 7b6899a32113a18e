// Activations Relu6, Elu, Softplus, Selu, Softsign and the gradient ops
// ReluGrad, Relu6Grad, EluGrad, SoftplusGrad, SeluGrad, SoftsignGrad. Gradient
// ops take (gradients, features) — EluGrad and SeluGrad take (gradients,
// outputs) — of one shape; a shape mismatch is InvalidArgument naming the node.
//   Relu6(x) = min(max(x, 0), 6)      Relu6Grad = g * (0 < f < 6)
//   ReluGrad = g * (f > 0)
//   Elu(x) = x < 0 ? exp(x) - 1 : x   EluGrad = o < 0 ? g * (o + 1) : g
//   Softplus(x) = log(1 + exp(x)), evaluated without overflow
//   SoftplusGrad = g / (1 + exp(-f))
//   Selu(x) = x < 0 ? scale * alpha * (exp(x) - 1) : scale * x
//   SeluGrad = o < 0 ? g * (o + scale * alpha) : g * scale
//   Softsign(x) = x / (|x| + 1)       SoftsignGrad = g / (|f| + 1)^2
// with Selu's fixed scale = 1.0507009873554805 and
// alpha = 1.6732632423543772 (TensorFlow's constants).
#include <cmath>
#include <limits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct SameType : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
};

template <typename T>
struct Relu6Fn : SameType<T> {
  template <class X>
  static auto Expr(const X& x) {
    return x.max(T(0)).min(T(6));
  }
};

template <typename T>
struct EluFn : SameType<T> {
  template <class X>
  static auto Expr(const X& x) {
    return (x < T(0)).select(x.expm1(), x);
  }
};

// Above -threshold, log(1 + exp(x)) == x to machine precision; below
// threshold it equals exp(x); in between log1p(exp(x)) is exact enough
// and cannot overflow.
template <typename T>
struct SoftplusFn : SameType<T> {
  template <class X>
  static auto Expr(const X& x) {
    const T threshold =
        T(std::log(static_cast<float>(Eigen::NumTraits<T>::epsilon())) + 2.0f);
    return (x > -threshold)
        .select(x, (x < threshold).select(x.exp(), x.exp().log1p()));
  }
};

// The gradient times a 0/1 mask, as TensorFlow computes it (so a NaN or
// infinite gradient where the feature is not positive gives NaN). A
// product, not a select: Eigen cannot vectorise select, and a per-element
// branch on the sign of the features mispredicts half the time.
template <typename T>
struct ReluGradFn : SameType<T> {
  template <class G, class F>
  static auto Expr(const G& g, const F& f) {
    return g * (f > T(0)).template cast<T>();
  }
};

template <typename T>
struct Relu6GradFn : SameType<T> {
  template <class G, class F>
  static auto Expr(const G& g, const F& f) {
    return g * (f > T(0) && f < T(6)).template cast<T>();
  }
};

template <typename T>
struct EluGradFn : SameType<T> {
  template <class G, class O>
  static auto Expr(const G& g, const O& o) {
    return (o < T(0)).select(g * (o + T(1)), g);
  }
};

template <typename T>
struct SoftplusGradFn : SameType<T> {
  template <class G, class F>
  static auto Expr(const G& g, const F& f) {
    return g / (T(1) + (-f).exp());
  }
};

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

template <typename T>
struct SeluFn : SameType<T> {
  template <class X>
  static auto Expr(const X& x) {
    return (x < T(0)).select(T(kSeluScaleAlpha) * (x.exp() - T(1)),
                             T(kSeluScale) * x);
  }
};

template <typename T>
struct SeluGradFn : SameType<T> {
  template <class G, class O>
  static auto Expr(const G& g, const O& o) {
    return (o < T(0)).select(g * (o + T(kSeluScaleAlpha)), g * T(kSeluScale));
  }
};

template <typename T>
struct SoftsignFn : SameType<T> {
  template <class X>
  static auto Expr(const X& x) {
    return x / (x.abs() + T(1));
  }
};

template <typename T>
struct SoftsignGradFn : SameType<T> {
  template <class G, class F>
  static auto Expr(const G& g, const F& f) {
    return g / (f.abs() + T(1)).square();
  }
};

#define SF_REGISTER_UNARY(OP, FN, T)                                          \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOpKernel<T, FN>);
#define SF_REGISTER_GRAD(OP, FN, T)                       \
  REGISTER_KERNEL_BUILDER(                                \
      Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SimpleBinaryOpKernel<T, FN, /*kRequireSameShape=*/true>);

#define SF_RELU_FAMILY(T)                     \
  SF_REGISTER_UNARY("Relu6", Relu6Fn, T)      \
  SF_REGISTER_GRAD("ReluGrad", ReluGradFn, T) \
  SF_REGISTER_GRAD("Relu6Grad", Relu6GradFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_RELU_FAMILY)
#undef SF_RELU_FAMILY

#define SF_SMOOTH_FAMILY(T)                           \
  SF_REGISTER_UNARY("Elu", EluFn, T)                  \
  SF_REGISTER_GRAD("EluGrad", EluGradFn, T)           \
  SF_REGISTER_UNARY("Softplus", SoftplusFn, T)        \
  SF_REGISTER_GRAD("SoftplusGrad", SoftplusGradFn, T) \
  SF_REGISTER_UNARY("Selu", SeluFn, T)                \
  SF_REGISTER_GRAD("SeluGrad", SeluGradFn, T)         \
  SF_REGISTER_UNARY("Softsign", SoftsignFn, T)        \
  SF_REGISTER_GRAD("SoftsignGrad", SoftsignGradFn, T)
SF_CALL_FLOAT_TYPES(SF_SMOOTH_FAMILY)
#undef SF_SMOOTH_FAMILY

}  // namespace
}  // namespace cwise
}  // namespace stepflow
