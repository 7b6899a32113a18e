// BroadcastTo(input, shape): the input repeated along the dims NumPy
// broadcasting stretches (input dims aligned to the right; each 1 or equal
// to the target's). An input already of the target shape is forwarded.
// Errors (InvalidArgument naming the node): shape not a vector of
// non-negative sizes, input of higher rank than shape, dims that do not
// broadcast to exactly `shape`.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/dim_map_gather.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                NodeInvalidArgument(ctx,
                                    "shape must be a vector of {int32,int64}"
                                    ", got shape ",
                                    shape_t.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, shape_t, &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, input.dtype(), &shape));
    if (shape == input.shape()) {
      ctx->set_output(0, input);
      return;
    }
    const int rank = shape.dims();
    const int skip = rank - input.dims();
    OP_REQUIRES(ctx, skip >= 0,
                NodeInvalidArgument(ctx, "Rank of input (", input.dims(),
                                    ") must be no greater than rank of output "
                                    "shape (",
                                    rank, ")."));
    DimMaps maps(rank);
    TensorShape aligned;  // The input's shape with leading 1s up to `rank`.
    bool incompatible = false, mismatch = false;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = shape.dim_size(d);
      const int64_t in = d < skip ? 1 : input.dim_size(d - skip);
      if (in != n && in != 1 && n != 1) incompatible = true;
      if (in != n && in != 1) mismatch = true;
      aligned.AddDim(in);
      maps[d].assign(n, 0);
      if (in != 1) {
        for (int64_t i = 0; i < n && i < in; ++i) maps[d][i] = i;
      }
    }
    OP_REQUIRES(ctx, !incompatible,
                NodeInvalidArgument(
                    ctx, "Incompatible shapes: ", input.shape().DebugString(),
                    " vs. ", shape.DebugString()));
    OP_REQUIRES(
        ctx, !mismatch,
        NodeInvalidArgument(ctx, "Unable to broadcast tensor of shape ",
                            input.shape().DebugString(), " to tensor of shape ",
                            shape.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      GatherByDimMaps(input.base<U>(), aligned, maps, out->base<U>());
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "BroadcastTo does not support dtype ",
                                    DataTypeString(input.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BroadcastTo").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    BroadcastToOp);

}  // namespace
}  // namespace stepflow
