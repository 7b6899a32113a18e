// _Arg and _Retval: exchange values with the caller through the step's call
// frame (feeds and fetches in DirectSession). A missing call frame is
// Internal; a bad index or a dtype mismatch is InvalidArgument; all name the
// node.
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
  }

  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    OP_REQUIRES(ctx, frame != nullptr,
                NodeInternal(ctx, "No call frame for argument ", index_));
    const Tensor* val = nullptr;
    OP_REQUIRES_OK(ctx, AttachDef(frame->GetArg(index_, &val), name()));
    OP_REQUIRES(ctx, val != nullptr && val->IsInitialized(),
                NodeInternal(ctx, "Argument ", index_, " is not set"));
    OP_REQUIRES(ctx, val->dtype() == dtype_,
                NodeInvalidArgument(ctx, "Type mismatch: actual ",
                                    DataTypeString(val->dtype()),
                                    " vs. expect ", DataTypeString(dtype_)));
    ctx->set_output(0, *val);
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  int32_t index_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("_Arg").Device(DEVICE_CPU), ArgOp);

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
  }

  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    OP_REQUIRES(ctx, frame != nullptr,
                NodeInternal(ctx, "No call frame for return value ", index_));
    OP_REQUIRES_OK(ctx,
                   AttachDef(frame->SetRetval(index_, ctx->input(0)), name()));
  }
  bool IsExpensive() const override { return false; }

 private:
  int32_t index_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("_Retval").Device(DEVICE_CPU), RetvalOp);

}  // namespace
}  // namespace stepflow
