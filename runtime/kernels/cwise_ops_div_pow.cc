// Div, RealDiv, Pow. Integer Div truncates toward zero and fails with
// InvalidArgument on division by zero (INT_MIN / -1 wraps); integer Pow
// fails on negative exponents. Floating division follows IEEE (x/0 = inf).
#include <cmath>
#include <complex>
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct DivFn : FunctorBase {
  static constexpr bool kInt = std::is_integral<T>::value;
  using In = T;
  using Out = T;
  using OutT = T;
  static constexpr bool kVectorized = !kInt;
  static constexpr const char* kError = "Integer division by zero";
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x / y;
  }
  static T Apply(T x, T y, bool* bad) {
    if (y == T(0)) {
      *bad = true;
      return T(0);
    }
    if constexpr (std::is_signed<T>::value) {
      if (y == T(-1)) {
        // -x with two's complement wrap-around (INT_MIN / -1 == INT_MIN).
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(U(0) - static_cast<U>(x));
      }
    }
    return static_cast<T>(x / y);
  }
};

template <typename T>
struct PowFn : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
  static constexpr bool kVectorized = false;
  static constexpr const char* kError =
      "Integers to negative integer powers are not allowed";
  static T Apply(T x, T y, bool* bad) {
    if constexpr (std::is_integral<T>::value) {
      if constexpr (std::is_signed<T>::value) {
        if (y < 0) {
          *bad = true;
          return T(0);
        }
      }
      // Exponentiation by squaring with wrap-around.
      // At least 32 bits wide so narrow types are not promoted to int.
      using U = std::conditional_t<(sizeof(T) < 4), uint32_t,
                                   std::make_unsigned_t<T>>;
      U base = static_cast<U>(x);
      U result = 1;
      U e = static_cast<U>(y);
      while (e != 0) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
        e >>= 1;
      }
      return static_cast<T>(result);
    } else if constexpr (std::is_same<T, half>::value ||
                         std::is_same<T, bfloat16>::value) {
      return T(std::pow(static_cast<float>(x), static_cast<float>(y)));
    } else {
      return std::pow(x, y);
    }
  }
};

#define SF_REGISTER_BINARY(OP, FN, T)                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOpKernel<T, FN>);

#define SF_REGISTER_DIV(T) SF_REGISTER_BINARY("Div", DivFn, T)
SF_CALL_NUMBER_TYPES(SF_REGISTER_DIV)
#undef SF_REGISTER_DIV

// RealDiv: floating and complex types only (as in TensorFlow).
#define SF_REGISTER_REALDIV(T) SF_REGISTER_BINARY("RealDiv", DivFn, T)
SF_CALL_FLOAT_TYPES(SF_REGISTER_REALDIV)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_REALDIV)
#undef SF_REGISTER_REALDIV

#define SF_REGISTER_POW(T) SF_REGISTER_BINARY("Pow", PowFn, T)
SF_CALL_FLOAT_TYPES(SF_REGISTER_POW)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_POW)
SF_REGISTER_POW(int8_t)
SF_REGISTER_POW(int16_t)
SF_REGISTER_POW(int32_t)
SF_REGISTER_POW(int64_t)
#undef SF_REGISTER_POW

}  // namespace
}  // namespace cwise
}  // namespace stepflow
