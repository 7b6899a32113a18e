// InvertPermutation(x): y with y[x[i]] = i for a permutation x of
// 0..n-1 (int32 or int64). Errors (InvalidArgument naming the node): x not
// 1-D, an element outside [0, n), a repeated element.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(
        ctx, x.dims() == 1,
        NodeInvalidArgument(ctx, "invert_permutation expects a 1D vector."));
    const int64_t n = x.NumElements();
    OP_REQUIRES(ctx, n <= INT32_MAX,
                NodeInvalidArgument(ctx,
                                    "permutation of nonnegative int32s "
                                    "must have <= int32 max elements"));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const T* in = x.base<T>();
    T* out = y->base<T>();
    std::vector<bool> seen(n, false);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = in[i];
      OP_REQUIRES(ctx, v >= 0 && v < n,
                  NodeInvalidArgument(ctx, v, " is not between 0 and ", n));
      OP_REQUIRES(ctx, !seen[v],
                  NodeInvalidArgument(ctx, v, " is duplicated in the input."));
      seen[v] = true;
      out[v] = static_cast<T>(i);
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    InvertPermutationOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    InvertPermutationOp<int64_t>);

}  // namespace
}  // namespace stepflow
