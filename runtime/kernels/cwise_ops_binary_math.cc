// FloorDiv, TruncateDiv, FloorMod, Mod, TruncateMod (= Mod) and
// SquaredDifference, with NumPy
// broadcasting.
//
// Integers: FloorDiv rounds toward -inf, TruncateDiv toward zero; FloorMod
// takes the sign of the divisor, Mod (C's %) the sign of the dividend.
// A zero divisor is InvalidArgument ("Integer division by zero") naming the
// node, except for TruncateDiv and TruncateMod, where TensorFlow reports it
// as Internal;
// MIN / -1 wraps to MIN and MIN mod -1 is 0, never a trap.
// Floating point: FloorDiv = floor(x / y); TruncateDiv = trunc(x / y);
// Mod = fmod(x, y); FloorMod = fmod adjusted to the divisor's sign (IEEE
// results for zero divisors). Type sets are TensorFlow 2.21's CPU kernels':
// Mod has no half/bfloat16 kernel; FloorMod takes every integer type.
// SquaredDifference = (x - y) * conj(x - y); int32/int64 wrap.
#include <cmath>
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

// -x with two's complement wrap-around (computed on the unsigned type).
template <typename T>
T WrapNegate(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

// Integer division family: the divisor-is-zero check and the y == -1 cases
// that would overflow; Divide/Remainder get y != 0, y != -1.
template <typename T>
struct IntDivBase : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
  static constexpr bool kVectorized = false;
  static constexpr const char* kError = "Integer division by zero";
};

template <typename T>
struct TruncateDivFn : IntDivBase<T> {
  // TensorFlow's BinaryOp reports a failing TruncateDiv as Internal
  // ("Unexpected error in binary operator").
  static constexpr absl::StatusCode kErrorCode = absl::StatusCode::kInternal;
  static T Apply(T x, T y, bool* bad) {
    if (y == T(0)) {
      *bad = true;
      return T(0);
    }
    if constexpr (std::is_signed<T>::value) {
      if (y == T(-1)) return WrapNegate(x);
    }
    return static_cast<T>(x / y);
  }
};

template <typename T>
struct FloorDivFn : IntDivBase<T> {
  static T Apply(T x, T y, bool* bad) {
    if (y == T(0)) {
      *bad = true;
      return T(0);
    }
    if constexpr (std::is_signed<T>::value) {
      if (y == T(-1)) return WrapNegate(x);
      T q = static_cast<T>(x / y);
      const T r = static_cast<T>(x % y);
      if (r != 0 && ((r < 0) != (y < 0))) --q;
      return q;
    } else {
      return static_cast<T>(x / y);
    }
  }
};

template <typename T>
struct TruncateModFn : IntDivBase<T> {
  static T Apply(T x, T y, bool* bad) {
    if (y == T(0)) {
      *bad = true;
      return T(0);
    }
    if constexpr (std::is_signed<T>::value) {
      if (y == T(-1)) return T(0);
    }
    return static_cast<T>(x % y);
  }
};

template <typename T>
struct FloorModFn : IntDivBase<T> {
  static T Apply(T x, T y, bool* bad) {
    if (y == T(0)) {
      *bad = true;
      return T(0);
    }
    if constexpr (std::is_signed<T>::value) {
      if (y == T(-1)) return T(0);
      T r = static_cast<T>(x % y);
      if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
      return r;
    } else {
      return static_cast<T>(x % y);
    }
  }
};

// TruncateMod is Mod, except that TensorFlow's BinaryOp reports its integer
// division by zero as Internal.
template <typename T>
struct TruncateModInternalFn : TruncateModFn<T> {
  static constexpr absl::StatusCode kErrorCode = absl::StatusCode::kInternal;
};

// Floating-point versions (half/bfloat16 computed in float).
template <typename T>
struct FloatBinaryBase : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
  using C = typename AccumType<T>::type;
};

template <typename T>
struct FloorDivFloatFn : FloatBinaryBase<T> {
  static constexpr bool kVectorized = true;
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return (x / y).floor();
  }
};

// trunc of the quotient rounded to T (so half/bfloat16 round first, as
// TensorFlow's kernels do).
template <typename T>
struct TruncateDivFloatFn : FloatBinaryBase<T> {
  using C = typename FloatBinaryBase<T>::C;
  static constexpr bool kVectorized = false;
  static T Apply(T x, T y, bool*) {
    return static_cast<T>(std::trunc(static_cast<C>(static_cast<T>(x / y))));
  }
};

template <typename T>
struct FmodFloatFn : FloatBinaryBase<T> {
  using C = typename FloatBinaryBase<T>::C;
  static constexpr bool kVectorized = false;
  static T Apply(T x, T y, bool*) {
    return static_cast<T>(std::fmod(static_cast<C>(x), static_cast<C>(y)));
  }
};

template <typename T>
struct FloorModFloatFn : FloatBinaryBase<T> {
  using C = typename FloatBinaryBase<T>::C;
  static constexpr bool kVectorized = false;
  static T Apply(T x, T y, bool*) {
    const C yc = static_cast<C>(y);
    C r = std::fmod(static_cast<C>(x), yc);
    if (r != C(0) && ((yc < C(0)) != (r < C(0)))) r += yc;
    return static_cast<T>(r);
  }
};

template <typename T>
struct SquaredDifferenceFn : FunctorBase {
  using In = ArithType<T>;
  using Out = In;
  using OutT = T;
  static constexpr bool kVectorized = true;
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return (x - y) * (x - y).conjugate();
  }
};

#define SF_REGISTER_BINARY(OP, FN, T)                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOpKernel<T, FN>);

// The integer types of TensorFlow's BINARY_MORE set.
#define SF_DIV_INT_TYPES(m)                                         \
  m(uint8_t) m(int8_t) m(uint16_t) m(int16_t) m(int32_t) m(int64_t) \
      m(uint32_t) m(uint64_t)

#define SF_FLOOR_DIV_INT(T) SF_REGISTER_BINARY("FloorDiv", FloorDivFn, T)
#define SF_FLOOR_DIV_FLOAT(T) SF_REGISTER_BINARY("FloorDiv", FloorDivFloatFn, T)
SF_DIV_INT_TYPES(SF_FLOOR_DIV_INT)
SF_CALL_FLOAT_TYPES(SF_FLOOR_DIV_FLOAT)
#undef SF_FLOOR_DIV_INT
#undef SF_FLOOR_DIV_FLOAT

#define SF_TRUNCATE_DIV(T) SF_REGISTER_BINARY("TruncateDiv", TruncateDivFn, T)
#define SF_TRUNCATE_DIV_FLOAT(T) \
  SF_REGISTER_BINARY("TruncateDiv", TruncateDivFloatFn, T)
SF_DIV_INT_TYPES(SF_TRUNCATE_DIV)
SF_CALL_FLOAT_TYPES(SF_TRUNCATE_DIV_FLOAT)
#undef SF_TRUNCATE_DIV
#undef SF_TRUNCATE_DIV_FLOAT

#define SF_FLOOR_MOD_FLOAT(T) SF_REGISTER_BINARY("FloorMod", FloorModFloatFn, T)
#define SF_FLOOR_MOD_INT(T) SF_REGISTER_BINARY("FloorMod", FloorModFn, T)
SF_CALL_FLOAT_TYPES(SF_FLOOR_MOD_FLOAT)
SF_DIV_INT_TYPES(SF_FLOOR_MOD_INT)
#undef SF_FLOOR_MOD_FLOAT
#undef SF_FLOOR_MOD_INT
SF_REGISTER_BINARY("Mod", FmodFloatFn, float)
SF_REGISTER_BINARY("Mod", FmodFloatFn, double)
SF_REGISTER_BINARY("Mod", TruncateModFn, int32_t)
SF_REGISTER_BINARY("Mod", TruncateModFn, int64_t)
SF_REGISTER_BINARY("TruncateMod", FmodFloatFn, float)
SF_REGISTER_BINARY("TruncateMod", FmodFloatFn, double)
SF_REGISTER_BINARY("TruncateMod", TruncateModInternalFn, int32_t)
SF_REGISTER_BINARY("TruncateMod", TruncateModInternalFn, int64_t)

#define SF_SQUARED_DIFFERENCE(T) \
  SF_REGISTER_BINARY("SquaredDifference", SquaredDifferenceFn, T)
SF_CALL_FLOAT_TYPES(SF_SQUARED_DIFFERENCE)
SF_CALL_COMPLEX_TYPES(SF_SQUARED_DIFFERENCE)
SF_SQUARED_DIFFERENCE(int32_t)
SF_SQUARED_DIFFERENCE(int64_t)
#undef SF_SQUARED_DIFFERENCE

}  // namespace
}  // namespace cwise
}  // namespace stepflow
