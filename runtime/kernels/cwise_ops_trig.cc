// Element-wise trigonometric and hyperbolic functions and their inverses
// (Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh), Expm1
// and Atan2(y, x) with NumPy broadcasting. Real types use Eigen's array
// functions; half and bfloat16 are computed in float and rounded once;
// complex types use the principal branches of std::complex's functions.
// Outside a function's real domain the result is NaN (IEEE), never an
// error. Type sets are TensorFlow 2.21's CPU kernels'.
#include <cmath>
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

SF_CWISE_ARRAY_METHOD_FN(SinFn, SameTypeFunctor, sin);
SF_CWISE_ARRAY_METHOD_FN(CosFn, SameTypeFunctor, cos);
SF_CWISE_ARRAY_METHOD_FN(TanFn, SameTypeFunctor, tan);
SF_CWISE_ARRAY_METHOD_FN(AsinFn, SameTypeFunctor, asin);
SF_CWISE_ARRAY_METHOD_FN(AcosFn, SameTypeFunctor, acos);
SF_CWISE_ARRAY_METHOD_FN(AtanFn, SameTypeFunctor, atan);
SF_CWISE_ARRAY_METHOD_FN(SinhFn, SameTypeFunctor, sinh);
SF_CWISE_ARRAY_METHOD_FN(CoshFn, SameTypeFunctor, cosh);
SF_CWISE_ARRAY_METHOD_FN(AsinhFn, SameTypeFunctor, asinh);
SF_CWISE_ARRAY_METHOD_FN(AcoshFn, SameTypeFunctor, acosh);
SF_CWISE_ARRAY_METHOD_FN(AtanhFn, SameTypeFunctor, atanh);
SF_CWISE_ARRAY_METHOD_FN(Expm1Fn, SameTypeFunctor, expm1);

template <typename T>
struct Atan2Fn : SameTypeFunctor<T> {
  static constexpr bool kVectorized = true;
  template <class Y, class X>
  static auto Expr(const Y& y, const X& x) {
    return y.binaryExpr(x, [](T a, T b) {
      if constexpr (kIsHalfLike<T>) {
        return T(std::atan2(static_cast<float>(a), static_cast<float>(b)));
      } else {
        return std::atan2(a, b);
      }
    });
  }
};

#define SF_REGISTER_UNARY(OP, FN, T)                                          \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOpKernel<T, FN>);

#define SF_TRIG(T)                       \
  SF_REGISTER_UNARY("Sin", SinFn, T)     \
  SF_REGISTER_UNARY("Cos", CosFn, T)     \
  SF_REGISTER_UNARY("Tan", TanFn, T)     \
  SF_REGISTER_UNARY("Asin", AsinFn, T)   \
  SF_REGISTER_UNARY("Acos", AcosFn, T)   \
  SF_REGISTER_UNARY("Atan", AtanFn, T)   \
  SF_REGISTER_UNARY("Sinh", SinhFn, T)   \
  SF_REGISTER_UNARY("Cosh", CoshFn, T)   \
  SF_REGISTER_UNARY("Asinh", AsinhFn, T) \
  SF_REGISTER_UNARY("Acosh", AcoshFn, T) \
  SF_REGISTER_UNARY("Atanh", AtanhFn, T) \
  SF_REGISTER_UNARY("Expm1", Expm1Fn, T)
SF_CALL_FLOAT_TYPES(SF_TRIG)
SF_CALL_COMPLEX_TYPES(SF_TRIG)
#undef SF_TRIG

#define SF_ATAN2(T)                                            \
  REGISTER_KERNEL_BUILDER(                                     \
      Name("Atan2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryOpKernel<T, Atan2Fn>);
SF_CALL_FLOAT_TYPES(SF_ATAN2)
#undef SF_ATAN2

}  // namespace
}  // namespace cwise
}  // namespace stepflow
