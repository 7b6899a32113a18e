// ReverseV2(tensor, axis): the tensor with the listed axes (negative ones
// counted from the end) reversed. A scalar or empty tensor is forwarded
// unchecked. Errors: InvalidArgument naming the node for an axis that is
// not a vector, out of range or repeated; Unimplemented above rank 8.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/dim_map_gather.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    if (input.dims() == 0 || input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    const int rank = input.dims();
    OP_REQUIRES(ctx, axis_t.dims() == 1,
                NodeInvalidArgument(ctx, "'dims' must be 1-dimension, not ",
                                    axis_t.dims()));
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axis_t, &axes));
    std::vector<bool> reverse(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = 0;
      OP_REQUIRES(ctx, NormalizeAxis(axes[i], rank, &a),
                  NodeInvalidArgument(ctx, "'axis'[", i, "] = ", axes[i],
                                      " is out of valid range [0, ", rank - 1));
      OP_REQUIRES(
          ctx, !reverse[a],
          NodeInvalidArgument(ctx, "axis ", a, " specified more than once."));
      reverse[a] = true;
    }
    OP_REQUIRES(ctx, rank <= 8,
                NodeError(absl::StatusCode::kUnimplemented, *this,
                          "reverse is not implemented for tensors of rank > "
                          "8."));
    DimMaps maps(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = input.dim_size(d);
      maps[d].resize(n);
      for (int64_t i = 0; i < n; ++i) maps[d][i] = reverse[d] ? n - 1 - i : i;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      GatherByDimMaps(input.base<U>(), input.shape(), maps, out->base<U>());
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "ReverseV2 does not support dtype ",
                                    DataTypeString(input.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ReverseV2").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    ReverseV2Op);

}  // namespace
}  // namespace stepflow
