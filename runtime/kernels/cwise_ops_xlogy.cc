// Binary ops that define 0 * (anything) as 0, with NumPy broadcasting:
//   DivNoNan(x, y) = y == 0 ? 0 : x / y
//   MulNoNan(x, y) = y == 0 ? 0 : x * y
//   Xlogy(x, y)    = x == 0 ? 0 : x * log(y)
//   Xlog1py(x, y)  = x == 0 ? 0 : x * log1p(y)
//   Xdivy(x, y)    = x == 0 ? 0 : x / y
// (so a NaN or infinite other operand still gives 0 where the tested one is
// 0). Floating and complex types; half and bfloat16 evaluate each step in
// their own precision, as TensorFlow's kernels do.
#include <cmath>
#include <complex>
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
T LogOf(T v) {
  using std::log;
  return log(v);
}

// x / y; for complex types with the textbook formula
// x * conj(y) / |y|^2 (no scaling), as TensorFlow's vectorised complex
// division computes it: a zero or infinite y gives NaN parts.
template <typename T>
T Quotient(T x, T y) {
  if constexpr (std::is_same<T, complex64>::value ||
                std::is_same<T, complex128>::value) {
    using R = typename T::value_type;
    const R yr = y.real(), yi = y.imag(), xr = x.real(), xi = x.imag();
    const R den = yr * yr + yi * yi;
    return T((xr * yr + xi * yi) / den, (xi * yr - xr * yi) / den);
  } else {
    return x / y;
  }
}

template <typename T>
T Log1pOf(T v) {
  return Eigen::numext::log1p(v);
}

// Declares `Name<T>`: zero where `test` (x or y) is zero, else `expr`.
#define SF_NO_NAN_FN(Name, test, expr)           \
  template <typename T>                          \
  struct Name : FunctorBase {                    \
    using In = T;                                \
    using Out = T;                               \
    using OutT = T;                              \
    static constexpr bool kVectorized = true;    \
    template <class X, class Y>                  \
    static auto Expr(const X& xs, const Y& ys) { \
      return xs.binaryExpr(ys, [](T x, T y) {    \
        if (test == T(0)) return T(0);           \
        return static_cast<T>(expr);             \
      });                                        \
    }                                            \
  }

SF_NO_NAN_FN(DivNoNanFn, y, Quotient(x, y));
SF_NO_NAN_FN(MulNoNanFn, y, x* y);
SF_NO_NAN_FN(XlogyFn, x, x* LogOf(y));
SF_NO_NAN_FN(Xlog1pyFn, x, x* Log1pOf(y));
SF_NO_NAN_FN(XdivyFn, x, Quotient(x, y));
#undef SF_NO_NAN_FN

#define SF_REGISTER_BINARY(OP, FN, T)                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOpKernel<T, FN>);

#define SF_NO_NAN_OPS(T)                        \
  SF_REGISTER_BINARY("DivNoNan", DivNoNanFn, T) \
  SF_REGISTER_BINARY("MulNoNan", MulNoNanFn, T) \
  SF_REGISTER_BINARY("Xlogy", XlogyFn, T)       \
  SF_REGISTER_BINARY("Xlog1py", Xlog1pyFn, T)   \
  SF_REGISTER_BINARY("Xdivy", XdivyFn, T)
SF_CALL_FLOAT_TYPES(SF_NO_NAN_OPS)
SF_CALL_COMPLEX_TYPES(SF_NO_NAN_OPS)
#undef SF_NO_NAN_OPS

}  // namespace
}  // namespace cwise
}  // namespace stepflow
