// Softmax over the last dimension: exp(x - max) / sum(exp(x - max)) per row
// (numerically stable), and LogSoftmax: (x - max) - log(sum(exp(x - max))).
// half/bfloat16 compute in float. Logits of rank 0 are InvalidArgument
// naming the node.
#include <cmath>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(
        ctx, logits.dims() >= 1,
        NodeInvalidArgument(ctx, "logits must have >= 1 dimension, got ",
                            logits.shape().DebugString()));
    Tensor* out = nullptr;
    if (ctx->input_is_ref(0)) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              0, 0, logits.shape(), &out));
    }
    const int64_t depth = logits.dim_size(logits.dims() - 1);
    if (logits.NumElements() == 0 || depth == 0) return;
    const int64_t rows = logits.NumElements() / depth;
    using A = typename AccumType<T>::type;
    using Array = Eigen::Array<A, Eigen::Dynamic, 1>;
    using TArray = Eigen::Array<T, Eigen::Dynamic, 1>;
    Array row(depth);
    for (int64_t r = 0; r < rows; ++r) {
      row = Eigen::Map<const TArray>(logits.base<T>() + r * depth, depth)
                .template cast<A>();
      const A max = row.maxCoeff();
      if constexpr (kLog) {
        row -= max;
        row -= std::log(row.exp().sum());
      } else {
        row = (row - max).exp();
        row /= row.sum();
      }
      Eigen::Map<TArray>(out->base<T>() + r * depth, depth) =
          row.template cast<T>();
    }
  }
};

#define SF_REGISTER_SOFTMAX(T)                                      \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      SoftmaxOp<T, false>);                                         \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxOp<T, true>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_SOFTMAX)
#undef SF_REGISTER_SOFTMAX

}  // namespace
}  // namespace stepflow
