// Element-wise special functions and float classification, computed with
// Eigen's special functions (unsupported/Eigen/SpecialFunctions), the
// implementation TensorFlow's CPU kernels evaluate, except float Erf and
// Erfc, which run the vectorised loops of erf_float.h (Eigen 3.4's float
// erfc is libm's scalar erfcf):
//   unary:  Erf, Erfc, Lgamma, Digamma; IsFinite, IsNan, IsInf (bool
//           output); Rint (round half to even)
//   binary (NumPy broadcasting): Igamma(a, x), Igammac(a, x),
//           IgammaGradA(a, x), Zeta(x, q), Polygamma(a, x),
//           RandomGammaGrad(alpha, sample) (d sample / d alpha of a
//           Gamma(alpha, 1) sample, for RandomGamma's gradient)
// Half and bfloat16 are computed in float and rounded once. Arguments
// outside a function's domain give NaN (or inf at poles), never an error.
// Type sets are TensorFlow 2.21's CPU kernels' (no bfloat16 Lgamma or
// Digamma; Igamma/Igammac in float and double only).
#include <limits>
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"
#include "runtime/kernels/erf_float.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace stepflow {
namespace cwise {
namespace {

SF_CWISE_ARRAY_METHOD_FN(ErfFn, SameTypeFunctor, erf);
SF_CWISE_ARRAY_METHOD_FN(ErfcFn, SameTypeFunctor, erfc);
SF_CWISE_ARRAY_METHOD_FN(LgammaFn, SameTypeFunctor, lgamma);
SF_CWISE_ARRAY_METHOD_FN(DigammaFn, SameTypeFunctor, digamma);
SF_CWISE_ARRAY_METHOD_FN(RintFn, SameTypeFunctor, rint);
SF_CWISE_ARRAY_METHOD_FN(IsFiniteFn, ToBoolFunctor, isFinite);
SF_CWISE_ARRAY_METHOD_FN(IsNanFn, ToBoolFunctor, isNaN);
SF_CWISE_ARRAY_METHOD_FN(IsInfFn, ToBoolFunctor, isInf);

// Declares `Name<T>`, the binary special function `fn(a, b)` of
// Eigen::numext.
#define SF_NUMEXT_BINARY_FN(Name, fn)                         \
  template <typename T>                                       \
  struct Name : SameTypeFunctor<T> {                          \
    static constexpr bool kVectorized = true;                 \
    template <class A, class B>                               \
    static auto Expr(const A& a, const B& b) {                \
      return a.binaryExpr(b, [](T x, T y) {                   \
        if constexpr (kIsHalfLike<T>) {                       \
          return T(Eigen::numext::fn(static_cast<float>(x),   \
                                     static_cast<float>(y))); \
        } else {                                              \
          return Eigen::numext::fn(x, y);                     \
        }                                                     \
      });                                                     \
    }                                                         \
  }

SF_NUMEXT_BINARY_FN(IgammaFn, igamma);
SF_NUMEXT_BINARY_FN(IgammacFn, igammac);
SF_NUMEXT_BINARY_FN(IgammaGradAFn, igamma_der_a);
SF_NUMEXT_BINARY_FN(PolygammaFn, polygamma);
SF_NUMEXT_BINARY_FN(RandomGammaGradFn, gamma_sample_der_alpha);
#undef SF_NUMEXT_BINARY_FN

// Hurwitz zeta(x, q), with the limit zeta(x > 1, +inf) = 0 (Eigen 3.4's
// series gives NaN there; TensorFlow's Eigen gives 0).
template <typename T>
T HurwitzZeta(T x, T q) {
  if (q == std::numeric_limits<T>::infinity() && x > T(1)) return T(0);
  return Eigen::numext::zeta(x, q);
}

template <typename T>
struct ZetaFn : SameTypeFunctor<T> {
  static constexpr bool kVectorized = true;
  template <class X, class Q>
  static auto Expr(const X& x, const Q& q) {
    return x.binaryExpr(q, [](T a, T b) { return HurwitzZeta(a, b); });
  }
};

// Float Erf (kErfc false) or Erfc over erf_float's loops; the output
// takes over the input's buffer when the kernel holds its only reference.
template <bool kErfc>
class FloatErfOp : public OpKernel {
 public:
  explicit FloatErfOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    if (!ctx->input_is_ref(0)) {
      OP_REQUIRES_OK(
          ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    }
    const erf_float::Kernels& k = erf_float::BestKernels();
    (kErfc ? k.erfc : k.erf)(x.base<float>(), x.NumElements(),
                             out->base<float>());
  }
};

#define SF_REGISTER_UNARY(OP, FN, T)                                          \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOpKernel<T, FN>);
#define SF_REGISTER_BINARY(OP, FN, T)                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOpKernel<T, FN>);

#define SF_ALL_FLOATS(T)                       \
  SF_REGISTER_UNARY("IsFinite", IsFiniteFn, T) \
  SF_REGISTER_UNARY("IsNan", IsNanFn, T)       \
  SF_REGISTER_UNARY("IsInf", IsInfFn, T)
SF_CALL_FLOAT_TYPES(SF_ALL_FLOATS)
#undef SF_ALL_FLOATS

#define SF_ERF(T)                    \
  SF_REGISTER_UNARY("Erf", ErfFn, T) \
  SF_REGISTER_UNARY("Erfc", ErfcFn, T)
SF_ERF(double)
SF_ERF(half)
SF_ERF(bfloat16)
#undef SF_ERF
REGISTER_KERNEL_BUILDER(
    Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FloatErfOp<false>);
REGISTER_KERNEL_BUILDER(
    Name("Erfc").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FloatErfOp<true>);

#define SF_GAMMA(T)                        \
  SF_REGISTER_UNARY("Lgamma", LgammaFn, T) \
  SF_REGISTER_UNARY("Digamma", DigammaFn, T)
SF_GAMMA(float)
SF_GAMMA(double)
SF_GAMMA(half)
#undef SF_GAMMA

#define SF_FLOAT_DOUBLE(T)                            \
  SF_REGISTER_UNARY("Rint", RintFn, T)                \
  SF_REGISTER_BINARY("Igamma", IgammaFn, T)           \
  SF_REGISTER_BINARY("Igammac", IgammacFn, T)         \
  SF_REGISTER_BINARY("IgammaGradA", IgammaGradAFn, T) \
  SF_REGISTER_BINARY("Zeta", ZetaFn, T)               \
  SF_REGISTER_BINARY("Polygamma", PolygammaFn, T)     \
  SF_REGISTER_BINARY("RandomGammaGrad", RandomGammaGradFn, T)
SF_FLOAT_DOUBLE(float)
SF_FLOAT_DOUBLE(double)
#undef SF_FLOAT_DOUBLE

}  // namespace
}  // namespace cwise
}  // namespace stepflow
