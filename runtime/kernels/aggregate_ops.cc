// AddN and AccumulateNV2: element-wise sum of N same-shaped tensors
// (int32/int64 wrap on overflow). Mismatched shapes are InvalidArgument
// naming the node.
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  NodeInvalidArgument(
                      ctx, "Inputs to operation ", FormatNodeName(name()),
                      " of type AddN must have the same size and shape.  "
                      "Input 0: ",
                      first.shape().DebugString(), " != input ", i, ": ",
                      ctx->input(i).shape().DebugString()));
    }
    if (n == 1) {
      ctx->set_output(0, first);
      return;
    }
    Tensor* out = nullptr;
    // Reuse input 0's buffer only if no other input aliases it.
    bool aliased = ctx->input_is_ref(0);
    for (int i = 1; i < n && !aliased; ++i) {
      aliased = ctx->input(i).SharesBufferWith(first);
    }
    if (aliased) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              0, 0, first.shape(), &out));
    }
    const int64_t size = first.NumElements();
    if (size == 0) return;
    using C = ArithType<T>;
    using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
    auto in = [&](int i) {
      return Eigen::Map<const Array>(
          reinterpret_cast<const C*>(ctx->input(i).template base<T>()), size);
    };
    Eigen::Map<Array> o(reinterpret_cast<C*>(out->base<T>()), size);
    o = in(0) + in(1);
    for (int i = 2; i < n; ++i) o += in(i);
  }
};

// AccumulateNV2 is AddN that may start before all inputs exist in
// TensorFlow; run once every input is ready, it is the same sum.
#define SF_REGISTER_ADDN(T)                                               \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), AddNOp<T>); \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("AccumulateNV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      AddNOp<T>);
SF_CALL_NUMBER_TYPES(SF_REGISTER_ADDN)
#undef SF_REGISTER_ADDN

}  // namespace
}  // namespace stepflow
