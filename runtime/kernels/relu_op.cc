// Relu: max(features, 0), element-wise.
#include "runtime/kernels/cwise_ops_common.h"

namespace stepflow {
namespace cwise {
namespace {

template <typename T>
struct ReluFn {
  using In = T;
  using Out = T;
  using OutT = T;
  template <class X>
  static auto Expr(const X& x) {
    return x.max(T(0));
  }
};

#define SF_REGISTER_RELU(T)                                   \
  REGISTER_KERNEL_BUILDER(                                    \
      Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      UnaryOpKernel<T, ReluFn>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_RELU)
#undef SF_REGISTER_RELU

}  // namespace
}  // namespace cwise
}  // namespace stepflow
