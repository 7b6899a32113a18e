// StridedSliceGrad(shape, begin, end, strides, dy; masks): the gradient of
// StridedSlice, a tensor of `shape` holding zeros except where the slice
// (resolved as StridedSlice resolves it, strided_slice_helper.h) selected
// elements, which receive dy. Errors (InvalidArgument naming the node):
// `shape` not a 1-D vector of non-negative sizes, a bad slice spec, dy of
// another shape than the slice's.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/dim_map_gather.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/strided_slice_helper.h"

namespace stepflow {
namespace {

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                NodeInvalidArgument(ctx, "shape must be 1-D, got shape ",
                                    shape_t.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, shape_t, &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, dy.dtype(), &shape));
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, ResolveStridedSliceInputs(*this, shape, ctx->input(1),
                                                  ctx->input(2), ctx->input(3),
                                                  masks_, &spec));
    OP_REQUIRES(
        ctx, dy.shape() == spec.final_shape,
        NodeInvalidArgument(ctx, "shape of dy was ", dy.shape().DebugString(),
                            " instead of ", spec.final_shape.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    DimMaps maps(spec.processing_dims.size());
    for (size_t d = 0; d < maps.size(); ++d) {
      maps[d].resize(spec.processing_dims[d]);
      for (int64_t i = 0; i < spec.processing_dims[d]; ++i) {
        maps[d][i] = spec.begin[d] + i * spec.stride[d];
      }
    }
    const bool ok = DispatchByElementSize(dy.dtype(), [&](auto tag) {
      using U = decltype(tag);
      U* o = out->base<U>();
      std::fill(o, o + shape.num_elements(), U{});
      const U* g = dy.base<U>();
      ScatterByDimMaps(g, shape, maps, o);
    });
    OP_REQUIRES(
        ctx, ok,
        NodeInvalidArgument(ctx, "StridedSliceGrad does not support dtype ",
                            DataTypeString(dy.dtype())));
  }

 private:
  StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(
    Name("StridedSliceGrad").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    StridedSliceGradOp);

}  // namespace
}  // namespace stepflow
