// PartitionedCall and StatefulPartitionedCall: run library function `f` on
// the node's inputs through the device's function runtime and return its
// results. A node whose op names a library function reaches this kernel
// too: graph lowering turns it into a StatefulPartitionedCall when the call
// is not inlined (runtime/function/lower_functional_ops.h).
// Errors: the instantiation's (NotFound, InvalidArgument), InvalidArgument
// when Tin/Tout disagree with the function's signature, and the body's
// own errors, all naming the node.
#include <memory>
#include <utility>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/function_call_util.h"

namespace stepflow {
namespace {

class PartitionedCallOp : public AsyncOpKernel {
 public:
  explicit PartitionedCallOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    NameAttrList f;
    OP_REQUIRES_OK(ctx, GetFunctionAttr(ctx, "f", &f));
    f_ = std::make_unique<FunctionHandleCache>(std::move(f));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    RunNodeFunction(ctx, f_.get(), 0, std::move(done));
  }

 private:
  std::unique_ptr<FunctionHandleCache> f_;
};

REGISTER_KERNEL_BUILDER(Name("PartitionedCall").Device(DEVICE_CPU),
                        PartitionedCallOp);
REGISTER_KERNEL_BUILDER(Name("StatefulPartitionedCall").Device(DEVICE_CPU),
                        PartitionedCallOp);

}  // namespace
}  // namespace stepflow
