// Neg and Square (integers wrap on overflow).
#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct NegFn {
  using In = ArithType<T>;
  using Out = In;
  using OutT = T;
  template <class X>
  static auto Expr(const X& x) {
    return -x;
  }
};

template <typename T>
struct SquareFn {
  using In = ArithType<T>;
  using Out = In;
  using OutT = T;
  template <class X>
  static auto Expr(const X& x) {
    return x * x;
  }
};

#define SF_REGISTER_UNARY(OP, FN, T)                                          \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOpKernel<T, FN>);

// TensorFlow's unary set: signed ints, floats, complex.
#define SF_UNARY_TYPES(m) \
  SF_CALL_FLOAT_TYPES(m)  \
  SF_CALL_COMPLEX_TYPES(m) m(int8_t) m(int16_t) m(int32_t) m(int64_t)

#define SF_REGISTER_NEG(T) SF_REGISTER_UNARY("Neg", NegFn, T)
SF_UNARY_TYPES(SF_REGISTER_NEG)
#undef SF_REGISTER_NEG

// Square also takes the unsigned types (wrapping), as in TensorFlow.
#define SF_REGISTER_SQUARE(T) SF_REGISTER_UNARY("Square", SquareFn, T)
SF_UNARY_TYPES(SF_REGISTER_SQUARE)
SF_REGISTER_SQUARE(uint8_t)
SF_REGISTER_SQUARE(uint16_t)
SF_REGISTER_SQUARE(uint32_t)
SF_REGISTER_SQUARE(uint64_t)
#undef SF_REGISTER_SQUARE

}  // namespace
}  // namespace cwise
}  // namespace stepflow
