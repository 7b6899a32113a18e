// SpaceToDepth(input; block_size, data_format) and DepthToSpace: move
// block_size x block_size spatial blocks of an NHWC image into the depth
// dim and back: SpaceToDepth output[b, h, w, (dy * bs + dx) * C + c] =
// input[b, h * bs + dy, w * bs + dx, c]. Only NHWC runs on CPU. Errors
// (InvalidArgument naming the node): another data_format, input not 4-D,
// height/width (SpaceToDepth) or depth (DepthToSpace) not divisible.
#include <cstdint>
#include <string>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class SpaceDepthOp : public OpKernel {
 public:
  explicit SpaceDepthOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), to_depth_(type_string() == "SpaceToDepth") {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &bs_));
    std::string format = "NHWC";
    if (ctx->HasAttr("data_format")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    }
    OP_REQUIRES(ctx, format == "NHWC",
                NodeInvalidArgument(*this,
                                    "Only NHWC data_format supported on CPU. "
                                    "Got ",
                                    format));
    OP_REQUIRES(
        ctx, bs_ >= 2 && bs_ <= INT32_MAX,  // bs * bs cannot overflow.
        NodeInvalidArgument(*this, "Block size should be > 1, but was: ", bs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                NodeInvalidArgument(
                    ctx, "Input rank should be: 4 instead of: ", input.dims()));
    const int64_t n = input.dim_size(0), h = input.dim_size(1),
                  w = input.dim_size(2), c = input.dim_size(3);
    // The "space" side (large h, w) and the "depth" side (small h, w).
    int64_t sh = h, sw = w, dc = c;
    if (to_depth_) {
      OP_REQUIRES(
          ctx, h % bs_ == 0 && w % bs_ == 0,
          NodeInvalidArgument(ctx, "Image width ", w, " and height ", h,
                              " should be divisible by block_size: ", bs_));
      dc = c * bs_ * bs_;
    } else {
      OP_REQUIRES(ctx, c % (bs_ * bs_) == 0,
                  NodeInvalidArgument(ctx, "Input depth dimension ", c,
                                      " should be divisible by: ", bs_ * bs_));
      sh = h * bs_;
      sw = w * bs_;
    }
    const int64_t sc = dc / (bs_ * bs_);  // Depth on the space side.
    const TensorShape shape = to_depth_
                                  ? TensorShape({n, sh / bs_, sw / bs_, dc})
                                  : TensorShape({n, sh, sw, sc});
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* in = input.base<U>();
      U* o = out->base<U>();
      // Walk the space side; its element's place on the depth side.
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t y = 0; y < sh; ++y) {
          for (int64_t x = 0; x < sw; ++x) {
            const int64_t space = ((b * sh + y) * sw + x) * sc;
            const int64_t depth =
                ((b * (sh / bs_) + y / bs_) * (sw / bs_) + x / bs_) * dc +
                ((y % bs_) * bs_ + x % bs_) * sc;
            for (int64_t k = 0; k < sc; ++k) {
              if (to_depth_) {
                o[depth + k] = in[space + k];
              } else {
                o[space + k] = in[depth + k];
              }
            }
          }
        }
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, type_string(), " does not support ",
                                    DataTypeString(input.dtype())));
  }

 private:
  const bool to_depth_;
  int64_t bs_ = 0;
};

REGISTER_KERNEL_BUILDER(
    Name("SpaceToDepth").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    SpaceDepthOp);
REGISTER_KERNEL_BUILDER(
    Name("DepthToSpace").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    SpaceDepthOp);

}  // namespace
}  // namespace stepflow
