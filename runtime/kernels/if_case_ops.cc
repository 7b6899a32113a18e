// If/StatelessIf and Case/StatelessCase run unlowered: the kernel picks a
// branch and runs that function (only that one) through the device's
// function runtime on the node's remaining inputs.
//   If: the cond input reads as TensorFlow's If kernel reads it (a scalar
//   is true when non-zero, a string when non-empty; any other tensor when
//   it has elements); then_branch runs when true, else_branch otherwise.
//   Case: branch_index (a scalar int32) picks branches[index]; an index
//   outside [0, N) runs the last branch.
// Errors (all naming the node): InvalidArgument for a cond scalar without
// a truth value, a non-scalar branch_index, or branch signatures that
// disagree with Tin/Tout; the instantiation's and the branch's errors.
#include <memory>
#include <utility>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/kernels/function_call_util.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class IfOp : public AsyncOpKernel {
 public:
  explicit IfOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    NameAttrList then_f, else_f;
    OP_REQUIRES_OK(ctx, GetFunctionAttr(ctx, "then_branch", &then_f));
    OP_REQUIRES_OK(ctx, GetFunctionAttr(ctx, "else_branch", &else_f));
    then_ = std::make_unique<FunctionHandleCache>(std::move(then_f));
    else_ = std::make_unique<FunctionHandleCache>(std::move(else_f));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    bool cond = false;
    OP_REQUIRES_OK_ASYNC(ctx, CondToBool(ctx, ctx->input(0), &cond), done);
    RunNodeFunction(ctx, cond ? then_.get() : else_.get(), 1, std::move(done));
  }

 private:
  std::unique_ptr<FunctionHandleCache> then_;
  std::unique_ptr<FunctionHandleCache> else_;
};

REGISTER_KERNEL_BUILDER(Name("If").Device(DEVICE_CPU), IfOp);
REGISTER_KERNEL_BUILDER(Name("StatelessIf").Device(DEVICE_CPU), IfOp);

class CaseOp : public AsyncOpKernel {
 public:
  explicit CaseOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    std::vector<NameAttrList> funcs;
    OP_REQUIRES_OK(ctx, GetFunctionListAttr(ctx, "branches", &funcs));
    for (NameAttrList& f : funcs) {
      branches_.push_back(std::make_unique<FunctionHandleCache>(std::move(f)));
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& index = ctx->input(0);
    OP_REQUIRES_ASYNC(ctx, index.dims() == 0,
                      NodeInvalidArgument(ctx, "branch_index must be scalar: ",
                                          index.shape().DebugString()),
                      done);
    int32_t b = index.scalar<int32_t>();
    const int n = static_cast<int>(branches_.size());
    if (b < 0 || b >= n) b = n - 1;
    RunNodeFunction(ctx, branches_[b].get(), 1, std::move(done));
  }

 private:
  std::vector<std::unique_ptr<FunctionHandleCache>> branches_;
};

REGISTER_KERNEL_BUILDER(Name("Case").Device(DEVICE_CPU), CaseOp);
REGISTER_KERNEL_BUILDER(Name("StatelessCase").Device(DEVICE_CPU), CaseOp);

}  // namespace
}  // namespace stepflow
