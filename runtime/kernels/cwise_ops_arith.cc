// Add, AddV2, Sub, Mul: broadcasting arithmetic. Signed integers wrap on
// overflow (computed as unsigned). Add on strings concatenates.
#include <string>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct AddFn : FunctorBase {
  using In = ArithType<T>;
  using Out = In;
  using OutT = T;
  static constexpr bool kVectorized = true;
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x + y;
  }
};

template <>
struct AddFn<std::string> : FunctorBase {
  using In = std::string;
  using Out = std::string;
  using OutT = std::string;
  static constexpr bool kVectorized = false;
  static std::string Apply(const std::string& x, const std::string& y, bool*) {
    return x + y;
  }
};

template <typename T>
struct SubFn : FunctorBase {
  using In = ArithType<T>;
  using Out = In;
  using OutT = T;
  static constexpr bool kVectorized = true;
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x - y;
  }
};

template <typename T>
struct MulFn : FunctorBase {
  using In = ArithType<T>;
  using Out = In;
  using OutT = T;
  static constexpr bool kVectorized = true;
  template <class X, class Y>
  static auto Expr(const X& x, const Y& y) {
    return x * y;
  }
};

// uint16 * uint16 would overflow int after promotion: widen explicitly.
template <>
struct MulFn<uint16_t> : FunctorBase {
  using In = uint16_t;
  using Out = uint16_t;
  using OutT = uint16_t;
  static constexpr bool kVectorized = false;
  static uint16_t Apply(uint16_t x, uint16_t y, bool*) {
    return static_cast<uint16_t>(static_cast<uint32_t>(x) *
                                 static_cast<uint32_t>(y));
  }
};

#define SF_REGISTER_BINARY(OP, FN, T)                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOpKernel<T, FN>);

// Add: TensorFlow's set (no unsigned beyond uint8) plus string.
#define SF_REGISTER_ADD(T) SF_REGISTER_BINARY("Add", AddFn, T)
SF_REGISTER_ADD(float)
SF_REGISTER_ADD(double)
SF_REGISTER_ADD(half)
SF_REGISTER_ADD(bfloat16)
SF_REGISTER_ADD(int8_t)
SF_REGISTER_ADD(int16_t)
SF_REGISTER_ADD(int32_t)
SF_REGISTER_ADD(int64_t)
SF_REGISTER_ADD(uint8_t)
SF_REGISTER_ADD(complex64)
SF_REGISTER_ADD(complex128)
SF_REGISTER_ADD(std::string)
#undef SF_REGISTER_ADD

#define SF_REGISTER_ADDV2(T) SF_REGISTER_BINARY("AddV2", AddFn, T)
SF_CALL_NUMBER_TYPES(SF_REGISTER_ADDV2)
#undef SF_REGISTER_ADDV2

#define SF_REGISTER_SUB(T) SF_REGISTER_BINARY("Sub", SubFn, T)
SF_CALL_NUMBER_TYPES(SF_REGISTER_SUB)
#undef SF_REGISTER_SUB

#define SF_REGISTER_MUL(T) SF_REGISTER_BINARY("Mul", MulFn, T)
SF_CALL_NUMBER_TYPES(SF_REGISTER_MUL)
#undef SF_REGISTER_MUL

}  // namespace
}  // namespace cwise
}  // namespace stepflow
