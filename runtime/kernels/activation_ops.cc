// Activations Relu6, Elu, Softplus and the gradient ops ReluGrad,
// Relu6Grad, EluGrad, SoftplusGrad. Gradient ops take (gradients,
// features) — EluGrad takes (gradients, outputs) — of one shape; a shape
// mismatch is InvalidArgument naming the node.
//   Relu6(x) = min(max(x, 0), 6)      Relu6Grad = g * (0 < f < 6)
//   ReluGrad = g * (f > 0)
//   Elu(x) = x < 0 ? exp(x) - 1 : x   EluGrad = o < 0 ? g * (o + 1) : g
//   Softplus(x) = log(1 + exp(x)), evaluated without overflow
//   SoftplusGrad = g / (1 + exp(-f))
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

#define SF_SMOOTH_FAMILY(T)                    \
  SF_REGISTER_UNARY("Elu", EluFn, T)           \
  SF_REGISTER_GRAD("EluGrad", EluGradFn, T)    \
  SF_REGISTER_UNARY("Softplus", SoftplusFn, T) \
  SF_REGISTER_GRAD("SoftplusGrad", SoftplusGradFn, T)
SF_CALL_FLOAT_TYPES(SF_SMOOTH_FAMILY)
#undef SF_SMOOTH_FAMILY

}  // namespace
}  // namespace cwise
}  // namespace stepflow
