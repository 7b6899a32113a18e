// Roll(input, shift, axis): elements shifted along each listed axis by the
// matching shift, wrapping around (output[..., (i + shift) mod n, ...] =
// input[..., i, ...]); shifts of a repeated axis add up. Errors
// (InvalidArgument naming the node): a scalar input, shift or axis of rank
// above 1 or of different lengths, an axis out of range.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/dim_map_gather.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class RollOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shift_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank >= 1,
                NodeInvalidArgument(ctx, "input must be 1-D or higher"));
    OP_REQUIRES(ctx, shift_t.dims() <= 1,
                NodeInvalidArgument(ctx,
                                    "shift must be a scalar or a 1-D vector. "
                                    "Found: ",
                                    shift_t.shape().DebugString()));
    OP_REQUIRES(ctx, axis_t.dims() <= 1,
                NodeInvalidArgument(ctx,
                                    "axis must be a scalar or a 1-D vector. "
                                    "Found: ",
                                    axis_t.shape().DebugString()));
    OP_REQUIRES(
        ctx, shift_t.shape() == axis_t.shape(),
        NodeInvalidArgument(ctx, "shift and axis must have the same size"));
    std::vector<int64_t> shifts, axes;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, shift_t, &shifts));
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axis_t, &axes));
    std::vector<int64_t> total(rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = 0;
      OP_REQUIRES(
          ctx, NormalizeAxis(axes[i], rank, &a),
          NodeInvalidArgument(ctx, "axis ", axes[i], " is out of range"));
      const int64_t n = input.dim_size(static_cast<int>(a));
      if (n > 0) total[a] = (total[a] + shifts[i] % n + n) % n;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    DimMaps maps(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = input.dim_size(d);
      maps[d].resize(n);
      for (int64_t o = 0; o < n; ++o) maps[d][o] = (o - total[d] + n) % n;
    }
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      GatherByDimMaps(input.base<U>(), input.shape(), maps, out->base<U>());
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "Roll does not support dtype ",
                                    DataTypeString(input.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Roll").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), RollOp);

}  // namespace
}  // namespace stepflow
