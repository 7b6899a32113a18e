// Element-wise unary math: Abs, Sign, Floor, Ceil, Round (half to even),
// Sqrt, Rsqrt, Exp, Log, Log1p, Tanh, Sigmoid, Reciprocal/Inv, and the
// gradient helpers SqrtGrad, RsqrtGrad, TanhGrad, SigmoidGrad,
// ReciprocalGrad/InvGrad (inputs y = f(x) and dy). As in TensorFlow's
// kernels, SqrtGrad, RsqrtGrad and ReciprocalGrad use conj(y) for complex
// types and give 0 wherever dy is 0 (even where y is 0 or infinite);
// TanhGrad and SigmoidGrad use y as given (TensorFlow's gradient functions
// pass conj(y) for complex inputs).
//
// Sqrt and Rsqrt are computed element by element with the correctly
// rounded sqrt: Eigen's fast vectorised sqrt is less exact and gives NaN
// for +inf. Integer Abs of the most negative value wraps (stays negative),
// as in TensorFlow. Reciprocal/Inv have no integer kernels (as in
// TensorFlow).
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct SameTypeFn : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
};

// Declares `Name<T>`, a same-type functor whose Eigen expression in `x` is
// the second argument.
#define SF_SAME_TYPE_UNARY_FN(Name, ...) \
  template <typename T>                  \
  struct Name : SameTypeFn<T> {          \
    template <class X>                   \
    static auto Expr(const X& x) {       \
      return __VA_ARGS__;                \
    }                                    \
  }

template <typename T>
struct AbsFn : SameTypeFn<T> {
  template <class X>
  static auto Expr(const X& x) {
    if constexpr (std::is_integral<T>::value) {
      // Negation through the unsigned type: INT_MIN stays INT_MIN.
      return x.unaryExpr([](T v) {
        using U = std::make_unsigned_t<T>;
        return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
      });
    } else {
      return x.abs();
    }
  }
};

SF_SAME_TYPE_UNARY_FN(SignFn, x.sign());

SF_SAME_TYPE_UNARY_FN(FloorFn, x.floor());

SF_SAME_TYPE_UNARY_FN(CeilFn, x.ceil());

// Banker's rounding (rint rounds half to even in the default mode). There
// are no integer kernels: TensorFlow 2.21's CPU Round returns 0 for every
// int32/int64 element (tf.round never emits Round for integers), and
// stepflow refuses rather than reproduce that.
SF_SAME_TYPE_UNARY_FN(RoundFn, x.rint());

SF_SAME_TYPE_UNARY_FN(SqrtFn,
                      x.unaryExpr([](T v) { return Eigen::numext::sqrt(v); }));

SF_SAME_TYPE_UNARY_FN(RsqrtFn, x.unaryExpr([](T v) {
  return T(1) / Eigen::numext::sqrt(v);
}));

SF_SAME_TYPE_UNARY_FN(ExpFn, x.exp());

SF_SAME_TYPE_UNARY_FN(LogFn, x.log());

SF_SAME_TYPE_UNARY_FN(Log1pFn, x.log1p());

SF_SAME_TYPE_UNARY_FN(TanhFn, x.tanh());

// 1 / (1 + exp(-x)): exp overflow gives 1/inf = 0, the right limit.
SF_SAME_TYPE_UNARY_FN(SigmoidFn, (T(1) + (-x).exp()).inverse());

SF_SAME_TYPE_UNARY_FN(ReciprocalFn, x.inverse());

// Gradient helpers: Expr(y, dy) with y = f(x). conjugate() is the identity
// for real types.
template <typename T>
struct SqrtGradFn : SameTypeFn<T> {
  template <class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return y.binaryExpr(dy, [](T out, T grad) {
      if (grad == T(0)) return T(0);
      return T(0.5) * grad / Eigen::numext::conj(out);
    });
  }
};

template <typename T>
struct RsqrtGradFn : SameTypeFn<T> {
  template <class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return y.binaryExpr(dy, [](T out, T grad) {
      if (grad == T(0)) return T(0);
      const T c = Eigen::numext::conj(out);
      return T(-0.5) * (grad * c) * (c * c);
    });
  }
};

template <typename T>
struct TanhGradFn : SameTypeFn<T> {
  template <class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return dy * (T(1) - y * y);
  }
};

template <typename T>
struct SigmoidGradFn : SameTypeFn<T> {
  template <class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return dy * y * (T(1) - y);
  }
};

template <typename T>
struct ReciprocalGradFn : SameTypeFn<T> {
  template <class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return y.binaryExpr(dy, [](T out, T grad) {
      if (grad == T(0)) return T(0);
      const T c = Eigen::numext::conj(out);
      return -c * c * grad;
    });
  }
};

#define SF_REGISTER_UNARY(OP, FN, T)                                          \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOpKernel<T, FN>);
#define SF_REGISTER_GRAD(OP, FN, T)                       \
  REGISTER_KERNEL_BUILDER(                                \
      Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SimpleBinaryOpKernel<T, FN, /*kRequireSameShape=*/false>);

// Floating + complex (TensorFlow's UNARY_COMPLEX set).
#define SF_FLOAT_COMPLEX(m) SF_CALL_FLOAT_TYPES(m) SF_CALL_COMPLEX_TYPES(m)

#define SF_ABS(T) SF_REGISTER_UNARY("Abs", AbsFn, T)
SF_CALL_FLOAT_TYPES(SF_ABS)
SF_ABS(int8_t)
SF_ABS(int16_t)
SF_ABS(int32_t)
SF_ABS(int64_t)
#undef SF_ABS

#define SF_SIGN(T) SF_REGISTER_UNARY("Sign", SignFn, T)
SF_FLOAT_COMPLEX(SF_SIGN)
SF_SIGN(int8_t)
SF_SIGN(int16_t)
SF_SIGN(int32_t)
SF_SIGN(int64_t)
#undef SF_SIGN

#define SF_FLOOR(T) SF_REGISTER_UNARY("Floor", FloorFn, T)
SF_CALL_FLOAT_TYPES(SF_FLOOR)
#undef SF_FLOOR

#define SF_CEIL(T) SF_REGISTER_UNARY("Ceil", CeilFn, T)
SF_CALL_FLOAT_TYPES(SF_CEIL)
#undef SF_CEIL

#define SF_ROUND(T) SF_REGISTER_UNARY("Round", RoundFn, T)
SF_CALL_FLOAT_TYPES(SF_ROUND)
#undef SF_ROUND

#define SF_SQRT(T) SF_REGISTER_UNARY("Sqrt", SqrtFn, T)
SF_FLOAT_COMPLEX(SF_SQRT)
#undef SF_SQRT

#define SF_RSQRT(T) SF_REGISTER_UNARY("Rsqrt", RsqrtFn, T)
SF_FLOAT_COMPLEX(SF_RSQRT)
#undef SF_RSQRT

#define SF_EXP(T) SF_REGISTER_UNARY("Exp", ExpFn, T)
SF_FLOAT_COMPLEX(SF_EXP)
#undef SF_EXP

#define SF_LOG(T) SF_REGISTER_UNARY("Log", LogFn, T)
SF_FLOAT_COMPLEX(SF_LOG)
#undef SF_LOG

#define SF_LOG1P(T) SF_REGISTER_UNARY("Log1p", Log1pFn, T)
SF_FLOAT_COMPLEX(SF_LOG1P)
#undef SF_LOG1P

#define SF_TANH(T) SF_REGISTER_UNARY("Tanh", TanhFn, T)
SF_FLOAT_COMPLEX(SF_TANH)
#undef SF_TANH

#define SF_SIGMOID(T) SF_REGISTER_UNARY("Sigmoid", SigmoidFn, T)
SF_FLOAT_COMPLEX(SF_SIGMOID)
#undef SF_SIGMOID

#define SF_RECIPROCAL(T)                           \
  SF_REGISTER_UNARY("Reciprocal", ReciprocalFn, T) \
  SF_REGISTER_UNARY("Inv", ReciprocalFn, T)
SF_FLOAT_COMPLEX(SF_RECIPROCAL)
#undef SF_RECIPROCAL

#define SF_GRADS(T)                                       \
  SF_REGISTER_GRAD("SqrtGrad", SqrtGradFn, T)             \
  SF_REGISTER_GRAD("RsqrtGrad", RsqrtGradFn, T)           \
  SF_REGISTER_GRAD("TanhGrad", TanhGradFn, T)             \
  SF_REGISTER_GRAD("SigmoidGrad", SigmoidGradFn, T)       \
  SF_REGISTER_GRAD("ReciprocalGrad", ReciprocalGradFn, T) \
  SF_REGISTER_GRAD("InvGrad", ReciprocalGradFn, T)
SF_FLOAT_COMPLEX(SF_GRADS)
#undef SF_GRADS

}  // namespace
}  // namespace cwise
}  // namespace stepflow

#undef SF_SAME_TYPE_UNARY_FN
