#include "runtime/kernels/image_resizer.h"

#include <limits>

#include "runtime/framework/status_macros.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {

ResizeOpKernel::ResizeOpKernel(OpKernelConstruction* ctx)
    : ShardedOpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
  if (ctx->HasAttr("half_pixel_centers")) {
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }
}

absl::Status ResizeOpKernel::AllocateResized(OpKernelContext* ctx,
                                             DataType dtype, ResizeGeometry* g,
                                             Tensor** output) const {
  SF_RETURN_IF_ERROR(ResizeForward(*this, ctx->input(0), ctx->input(1),
                                   align_corners_, half_pixel_centers_, g));
  TensorShape shape;
  SF_RETURN_IF_ERROR(MakeOutputShape(
      *this, {g->batch, g->out_height, g->out_width, g->channels}, dtype,
      &shape));
  return ctx->allocate_output(0, shape, output);
}

absl::Status ResizeForward(const OpKernel& kernel, const Tensor& images,
                           const Tensor& size, bool align_corners,
                           bool half_pixel_centers, ResizeGeometry* g) {
  if (half_pixel_centers && align_corners) {
    return NodeInvalidArgument(
        kernel, "If half_pixel_centers is True, align_corners must be False.");
  }
  if (images.dims() != 4) {
    return NodeInvalidArgument(kernel, "input must be 4-dimensional",
                               images.shape().DebugString());
  }
  g->batch = images.dim_size(0);
  g->channels = images.dim_size(3);
  if (g->channels <= 0) {
    return NodeInvalidArgument(kernel, "image must have at least one channel");
  }
  if (images.dim_size(1) <= 0 || images.dim_size(2) <= 0) {
    return NodeInvalidArgument(kernel, "input image must be of non-zero size");
  }
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (images.dim_size(1) >= kMaxInt32 || images.dim_size(2) >= kMaxInt32) {
    return NodeInvalidArgument(kernel,
                               "input sizes must be between 0 and max int32");
  }
  g->in_height = images.dim_size(1);
  g->in_width = images.dim_size(2);
  if (size.dims() != 1) {
    return NodeInvalidArgument(kernel, "shape_t must be 1-dimensional",
                               size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return NodeInvalidArgument(kernel, "shape_t must have two elements",
                               size.shape().DebugString());
  }
  g->out_height = size.base<int32_t>()[0];
  g->out_width = size.base<int32_t>()[1];
  if (g->out_height <= 0 || g->out_width <= 0) {
    return NodeInvalidArgument(kernel, "output dimensions must be positive");
  }
  g->height_scale = ResizeScale(g->in_height, g->out_height, align_corners);
  g->width_scale = ResizeScale(g->in_width, g->out_width, align_corners);
  return absl::OkStatus();
}

}  // namespace stepflow
