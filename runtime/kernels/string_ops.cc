// StringJoin: element-wise concatenation of N string tensors with a
// separator. Inputs are scalars or all of one shape; scalars are broadcast.
// Differing non-scalar shapes are InvalidArgument naming the node. N = 0
// gives the empty scalar string.
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<const Tensor*> inputs;
    OP_REQUIRES_OK(ctx, ctx->input_list("inputs", &inputs));
    TensorShape shape;  // Scalar until a non-scalar input is seen.
    bool have_shape = false;
    for (const Tensor* t : inputs) {
      if (t->dims() == 0) continue;
      if (!have_shape) {
        shape = t->shape();
        have_shape = true;
      } else {
        OP_REQUIRES(ctx, t->shape() == shape,
                    NodeInvalidArgument(
                        ctx, "Input shapes do not match: ", shape.DebugString(),
                        " vs. ", t->shape().DebugString()));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::string* dst = out->base<std::string>();
    const int64_t n = out->NumElements();
    for (int64_t i = 0; i < n; ++i) {
      std::string& s = dst[i];
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (j > 0) s.append(separator_);
        const Tensor& in = *inputs[j];
        s.append(in.base<const std::string>()[in.dims() == 0 ? 0 : i]);
      }
    }
  }

  bool IsExpensive() const override { return false; }

 private:
  std::string separator_;
};

REGISTER_KERNEL_BUILDER(Name("StringJoin").Device(DEVICE_CPU), StringJoinOp);

}  // namespace
}  // namespace stepflow
