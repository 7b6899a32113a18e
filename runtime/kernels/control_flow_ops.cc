// Control-flow kernels. Most of their meaning lives in the executor; the
// kernels only move values.
//
// Switch(data, pred) forwards `data` to output 1 ("output_true") if pred is
// true, else to output 0, leaving the other output unset; the executor
// treats an unset output of a Switch as dead. RefSwitch does the same with
// a reference.
//
// Merge(inputs...) runs when the executor has one live input (dead inputs
// arrive as uninitialized tensors): it forwards the first initialized input
// and sets value_index to its position. RefMerge forwards the first
// reference input.
//
// Enter, Exit and NextIteration (and their Ref variants) forward their
// input (a reference stays a reference); the executor moves the value to
// the child frame, the parent frame or the next iteration. LoopCond
// forwards its bool predicate unchecked, as TensorFlow's kernel does (the
// loop's Switch nodes reject a non-scalar one), failing with Cancelled once
// the step is cancelled so a runaway loop stops. ControlTrigger does nothing:
// the executor runs it even when its inputs are dead.
//
// None of these is expensive: they run inline.
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0,
                NodeInvalidArgument(ctx,
                                    "The second input must be a scalar, "
                                    "but it has shape ",
                                    pred.shape().DebugString()));
    const int port = pred.scalar<bool>() ? 1 : 0;
    if (ctx->input_is_ref(0)) {
      ctx->forward_ref_input_to_ref_output(0, port);
    } else {
      ctx->set_output(port, ctx->input(0));
    }
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("RefSwitch").Device(DEVICE_CPU), SwitchOp);

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (ctx->input_is_ref(i)) {
        ctx->forward_ref_input_to_ref_output(i, 0);
      } else {
        const Tensor& t = ctx->input(i);
        if (!t.IsInitialized()) continue;
        ctx->set_output(0, t);
      }
      Tensor* index = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &index));
      index->scalar<int32_t>() = i;
      return;
    }
    ctx->SetStatus(NodeInternal(ctx, "Merge ran with no live input"));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("RefMerge").Device(DEVICE_CPU), MergeOp);

// Enter, Exit, NextIteration and their Ref variants.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    if (ctx->input_is_ref(0)) {
      ctx->forward_ref_input_to_ref_output(0, 0);
    } else {
      ctx->set_output(0, ctx->input(0));
    }
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefExit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefNextIteration").Device(DEVICE_CPU), ForwardOp);

class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    CancellationManager* cm = ctx->cancellation_manager();
    OP_REQUIRES(ctx, cm == nullptr || !cm->IsCancelled(),
                AttachDef(absl::CancelledError("Loop execution was cancelled."),
                          name()));
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("LoopCond").Device(DEVICE_CPU), LoopCondOp);

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ControlTrigger").Device(DEVICE_CPU),
                        ControlTriggerOp);

}  // namespace
}  // namespace stepflow
