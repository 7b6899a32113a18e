// Bitwise ops on the integer types: BitwiseAnd/Or/Xor, LeftShift and
// RightShift with NumPy broadcasting; Invert (~x) and PopulationCount (set
// bits, as uint8). Shift amounts are clamped to [0, bits - 1], so
// out-of-range shifts are defined: x << 40 on int32 is x << 31, and a
// negative amount shifts by 0. LeftShift shifts the unsigned bit pattern
// (bits shifted out are lost, the sign bit may change); RightShift is
// arithmetic for signed types (the sign bit is copied in).
#include <bitset>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct IntFn : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
  static constexpr bool kVectorized = true;
};

template <typename T>
struct BitwiseAndFn : IntFn<T> {
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x.binaryExpr(y, [](T a, T b) { return static_cast<T>(a & b); });
  }
};

template <typename T>
struct BitwiseOrFn : IntFn<T> {
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x.binaryExpr(y, [](T a, T b) { return static_cast<T>(a | b); });
  }
};

template <typename T>
struct BitwiseXorFn : IntFn<T> {
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x.binaryExpr(y, [](T a, T b) { return static_cast<T>(a ^ b); });
  }
};

// The shift amount clamped to [0, bits - 1].
template <typename T>
int ClampedShift(T y) {
  constexpr int kBits = sizeof(T) * CHAR_BIT;
  if (y < T(0)) return 0;
  if (y > static_cast<T>(kBits - 1)) return kBits - 1;
  return static_cast<int>(y);
}

template <typename T>
struct LeftShiftFn : IntFn<T> {
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x.binaryExpr(y, [](T a, T b) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) << ClampedShift(b));
    });
  }
};

template <typename T>
struct RightShiftFn : IntFn<T> {
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x.binaryExpr(
        y, [](T a, T b) { return static_cast<T>(a >> ClampedShift(b)); });
  }
};

template <typename T>
struct InvertFn : IntFn<T> {
  template <class X>
  static auto Expr(const X& x) {
    return x.unaryExpr([](T a) { return static_cast<T>(~a); });
  }
};

template <typename T>
struct PopulationCountFn : FunctorBase {
  using In = T;
  using Out = uint8_t;
  using OutT = uint8_t;
  template <class X>
  static auto Expr(const X& x) {
    return x.unaryExpr([](T a) {
      using U = std::make_unsigned_t<T>;
      return static_cast<uint8_t>(
          std::bitset<sizeof(T) * CHAR_BIT>(static_cast<U>(a)).count());
    });
  }
};

#define SF_REGISTER(OP, KERNEL, FN, T)                                        \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          KERNEL<T, FN>);

#define SF_BITWISE(T)                                        \
  SF_REGISTER("BitwiseAnd", BinaryOpKernel, BitwiseAndFn, T) \
  SF_REGISTER("BitwiseOr", BinaryOpKernel, BitwiseOrFn, T)   \
  SF_REGISTER("BitwiseXor", BinaryOpKernel, BitwiseXorFn, T) \
  SF_REGISTER("LeftShift", BinaryOpKernel, LeftShiftFn, T)   \
  SF_REGISTER("RightShift", BinaryOpKernel, RightShiftFn, T) \
  SF_REGISTER("Invert", UnaryOpKernel, InvertFn, T)          \
  SF_REGISTER("PopulationCount", UnaryOpKernel, PopulationCountFn, T)
SF_CALL_INTEGRAL_TYPES(SF_BITWISE)
#undef SF_BITWISE

}  // namespace
}  // namespace cwise
}  // namespace stepflow
