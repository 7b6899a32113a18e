// Maximum, Minimum (broadcasting, same-type output) and Less, LessEqual,
// Greater, GreaterEqual, Equal, NotEqual (bool output). Equal/NotEqual
// support every POD type and strings; with incompatible_shape_error=false,
// incompatible shapes give a scalar false (Equal) or true (NotEqual).
#include <string>

#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

// Declares `Name<T>`, a vectorized functor from T x T to `OutType` whose
// Eigen expression in `x` and `y` is the last argument.
#define SF_VECTORIZED_BINARY_FN(Name, OutType, ...) \
  template <typename T>                             \
  struct Name : FunctorBase {                       \
    using In = T;                                   \
    using Out = OutType;                            \
    using OutT = OutType;                           \
    static constexpr bool kVectorized = true;       \
    template <class X, class Y>                     \
    static auto Expr(const X& x, const Y& y) {      \
      return __VA_ARGS__;                           \
    }                                               \
  }

// A NaN operand gives NaN, as TensorFlow's kernels do (Eigen's default
// max/min would return the other operand).
SF_VECTORIZED_BINARY_FN(
    MaximumFn, T,
    x.binaryExpr(y,
                 Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>()));

SF_VECTORIZED_BINARY_FN(
    MinimumFn, T,
    x.binaryExpr(y,
                 Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>()));

SF_VECTORIZED_BINARY_FN(LessFn, bool, x < y);

SF_VECTORIZED_BINARY_FN(GreaterFn, bool, x > y);

SF_VECTORIZED_BINARY_FN(LessEqualFn, bool, x <= y);

SF_VECTORIZED_BINARY_FN(GreaterEqualFn, bool, x >= y);

// Scalar loop: also covers strings, bool and complex.
template <typename T>
struct EqualFn : FunctorBase {
  using In = T;
  using Out = bool;
  using OutT = bool;
  static constexpr bool kVectorized = false;
  static bool Apply(const T& x, const T& y, bool*) { return x == y; }
};

template <typename T>
struct NotEqualFn : FunctorBase {
  using In = T;
  using Out = bool;
  using OutT = bool;
  static constexpr bool kVectorized = false;
  static constexpr bool kIncompatibleValue = true;
  static bool Apply(const T& x, const T& y, bool*) { return x != y; }
};

#define SF_REGISTER_BINARY(OP, FN, T)                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOpKernel<T, FN>);

#define SF_REGISTER_MAX(T) SF_REGISTER_BINARY("Maximum", MaximumFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MAX)
#undef SF_REGISTER_MAX

#define SF_REGISTER_MIN(T) SF_REGISTER_BINARY("Minimum", MinimumFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MIN)
#undef SF_REGISTER_MIN

#define SF_REGISTER_LESS(T) SF_REGISTER_BINARY("Less", LessFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_LESS)
#undef SF_REGISTER_LESS

#define SF_REGISTER_GREATER(T) SF_REGISTER_BINARY("Greater", GreaterFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_GREATER)
#undef SF_REGISTER_GREATER

#define SF_REGISTER_EQUAL(T) SF_REGISTER_BINARY("Equal", EqualFn, T)
SF_CALL_ALL_TYPES(SF_REGISTER_EQUAL)
#undef SF_REGISTER_EQUAL

#define SF_REGISTER_NOT_EQUAL(T) SF_REGISTER_BINARY("NotEqual", NotEqualFn, T)
SF_CALL_ALL_TYPES(SF_REGISTER_NOT_EQUAL)
#undef SF_REGISTER_NOT_EQUAL

#define SF_REGISTER_LESS_EQUAL(T) \
  SF_REGISTER_BINARY("LessEqual", LessEqualFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_LESS_EQUAL)
#undef SF_REGISTER_LESS_EQUAL

#define SF_REGISTER_GREATER_EQUAL(T) \
  SF_REGISTER_BINARY("GreaterEqual", GreaterEqualFn, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_GREATER_EQUAL)
#undef SF_REGISTER_GREATER_EQUAL

}  // namespace
}  // namespace cwise
}  // namespace stepflow

#undef SF_VECTORIZED_BINARY_FN
