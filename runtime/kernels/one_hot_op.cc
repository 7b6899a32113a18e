// OneHot(indices, depth, on_value, off_value; axis): a tensor with a new
// dimension of size `depth` inserted at `axis` (-1 = last) that holds
// on_value where the index equals the position and off_value elsewhere.
// Indices outside [0, depth) give a row of off_value (not an error).
// Errors (InvalidArgument naming the node): non-scalar depth/on/off,
// negative depth, axis not -1 and outside [0, rank(indices)].
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    OP_REQUIRES(ctx, depth_t.dims() == 0,
                NodeInvalidArgument(ctx, "depth must be a scalar, but got: ",
                                    depth_t.shape().DebugString()));
    OP_REQUIRES(ctx, on.dims() == 0,
                NodeInvalidArgument(ctx, "on_value must be a scalar, but got: ",
                                    on.shape().DebugString()));
    OP_REQUIRES(ctx, off.dims() == 0,
                NodeInvalidArgument(ctx,
                                    "off_value must be a scalar, but "
                                    "got: ",
                                    off.shape().DebugString()));
    const int64_t depth = depth_t.scalar<int32_t>();
    OP_REQUIRES(
        ctx, depth >= 0,
        NodeInvalidArgument(ctx, "depth must be non-negative, got: ", depth));
    const int out_dims = indices.dims() + 1;
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ < out_dims),
                NodeInvalidArgument(ctx,
                                    "Expected axis to be -1 or between "
                                    "[0, ",
                                    out_dims, ").  But received: ", axis_));
    const int axis = axis_ == -1 ? indices.dims() : static_cast<int>(axis_);
    TensorShape shape = indices.shape();
    shape.InsertDim(axis, depth);
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, on.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    // indices: [prefix, suffix]; output: [prefix, depth, suffix].
    int64_t prefix = 1, suffix = 1;
    for (int d = 0; d < indices.dims(); ++d) {
      (d < axis ? prefix : suffix) *= indices.dim_size(d);
    }
    std::vector<int64_t> idx(indices.NumElements());
    if (indices.dtype() == DT_UINT8) {
      for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = indices.base<uint8_t>()[i];
    } else if (indices.dtype() == DT_INT8) {
      for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = indices.base<int8_t>()[i];
    } else {
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, indices, &idx));
    }
    const bool ok = DispatchByElementSize(on.dtype(), [&](auto tag) {
      using U = decltype(tag);
      U* o = out->base<U>();
      std::fill(o, o + shape.num_elements(), off.base<U>()[0]);
      const U& on_value = on.base<U>()[0];
      for (int64_t p = 0; p < prefix; ++p) {
        for (int64_t s = 0; s < suffix; ++s) {
          const int64_t k = idx[p * suffix + s];
          if (k >= 0 && k < depth) o[(p * depth + k) * suffix + s] = on_value;
        }
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "OneHot does not support dtype ",
                                    DataTypeString(on.dtype())));
  }

 private:
  int64_t axis_ = -1;
};

REGISTER_KERNEL_BUILDER(Name("OneHot").Device(DEVICE_CPU), OneHotOp);

}  // namespace
}  // namespace stepflow
