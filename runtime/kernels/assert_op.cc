// Assert: passes when its scalar bool condition is true; otherwise fails
// the step with InvalidArgument "assertion failed: [d0] [d1] ...", each
// data input summarized to its first `summarize` values as TensorFlow
// prints them (SummarizeForPrint: "[x was] [[1.5 0.1][3...]...]"). A
// condition that is not a scalar is InvalidArgument too.
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/tensor_summary.h"

namespace stepflow {
namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    OP_REQUIRES(ctx, cond.NumElements() == 1 && cond.dims() <= 1,
                NodeInvalidArgument(ctx, "In[0] should be a scalar: ",
                                    cond.shape().DebugString()));
    if (cond.flat<bool>()(0)) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      if (i > 1) msg += " ";
      absl::StrAppend(&msg, "[", SummarizeForPrint(ctx->input(i), summarize_),
                      "]");
    }
    ctx->SetStatus(NodeInvalidArgument(ctx, msg));
  }

 private:
  int64_t summarize_ = 3;
};

REGISTER_KERNEL_BUILDER(Name("Assert").Device(DEVICE_CPU), AssertOp);

}  // namespace
}  // namespace stepflow
