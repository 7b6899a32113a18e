// DeepCopy: y is a copy of x in a buffer of its own (any dtype), so later
// in-place updates of either never show through the other.
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/element_copy.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class DeepCopyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    OP_REQUIRES(ctx, CopyElements(x, 0, y, 0, x.NumElements()),
                NodeInvalidArgument(ctx, "DeepCopy does not support dtype ",
                                    DataTypeString(x.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(Name("DeepCopy").Device(DEVICE_CPU), DeepCopyOp);

}  // namespace
}  // namespace stepflow
