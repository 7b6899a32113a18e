// ResizeNearestNeighbor and ResizeNearestNeighborGrad (NHWC), as
// TensorFlow's CPU kernels compute them. Output index y reads input
// index min(f(s), in - 1) with s = y * scale ((y + 0.5) * scale with
// half_pixel_centers, then at least 0), f rounding half away from zero
// with align_corners and flooring otherwise. The gradient adds each
// incoming value into the pixel its position maps to (the same mapping,
// from the gradient's grid onto the original size).
//
// Work is split over output rows (forward) or images (gradient).
// Errors: see image_resizer.h.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/image_resizer.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

int64_t NearestSource(int64_t out, float scale, int64_t in_size, bool align,
                      bool half_pixel) {
  const float s = half_pixel ? (static_cast<float>(out) + 0.5f) * scale
                             : static_cast<float>(out) * scale;
  int64_t i = std::min<int64_t>(align ? static_cast<int64_t>(std::round(s))
                                      : static_cast<int64_t>(std::floor(s)),
                                in_size - 1);
  if (half_pixel) i = std::max<int64_t>(0, i);
  return i;
}

template <typename T>
class ResizeNearestNeighborOp : public ResizeOpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx)
      : ResizeOpKernel(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& images = ctx->input(0);
    ResizeGeometry g;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, AllocateResized(ctx, images.dtype(), &g, &output));
    if (output->NumElements() == 0) return;
    auto xs = std::make_shared<std::vector<int64_t>>(g.out_width);
    for (int64_t x = 0; x < g.out_width; ++x) {
      (*xs)[x] = NearestSource(x, g.width_scale, g.in_width, align_corners_,
                               half_pixel_centers_);
    }
    const T* in = images.base<T>();
    T* out = output->base<T>();
    const bool align = align_corners_, half_pixel = half_pixel_centers_;
    work->units = g.batch * g.out_height;
    work->cost_per_unit = g.out_width * g.channels;
    work->fn = [=](int64_t begin, int64_t end) {
      const int64_t c = g.channels;
      for (int64_t u = begin; u < end; ++u) {
        const int64_t b = u / g.out_height;
        const int64_t y = u % g.out_height;
        const int64_t iy =
            NearestSource(y, g.height_scale, g.in_height, align, half_pixel);
        const T* row = in + (b * g.in_height + iy) * g.in_width * c;
        T* o = out + u * g.out_width * c;
        for (int64_t x = 0; x < g.out_width; ++x) {
          std::copy_n(row + (*xs)[x] * c, c, o + x * c);
        }
      }
    };
  }
};

template <typename T>
class ResizeNearestNeighborGradOp : public ResizeOpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* ctx)
      : ResizeOpKernel(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& size = ctx->input(1);
    OP_REQUIRES(ctx, grads.dims() == 4,
                NodeInvalidArgument(ctx, "input must be 4-dimensional",
                                    grads.shape().DebugString()));
    OP_REQUIRES(ctx, size.dims() == 1 && size.NumElements() == 2,
                NodeInvalidArgument(ctx, "shape_t must be shape [2]",
                                    size.shape().DebugString()));
    const int64_t batch = grads.dim_size(0);
    const int64_t in_h = grads.dim_size(1);
    const int64_t in_w = grads.dim_size(2);
    const int64_t channels = grads.dim_size(3);
    const int64_t out_h = size.base<int32_t>()[0];
    const int64_t out_w = size.base<int32_t>()[1];
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, {batch, out_h, out_w, channels},
                                        grads.dtype(), &shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    T* out = output->base<T>();
    std::fill(out, out + output->NumElements(), T(0));
    if (output->NumElements() == 0 || grads.NumElements() == 0) return;
    const float hs = ResizeScale(out_h, in_h, align_corners_);
    const float ws = ResizeScale(out_w, in_w, align_corners_);
    const T* g = grads.base<T>();
    const bool align = align_corners_, half_pixel = half_pixel_centers_;
    work->units = batch;
    work->cost_per_unit = in_h * in_w * channels;
    work->fn = [=](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        for (int64_t y = 0; y < in_h; ++y) {
          const int64_t oy = NearestSource(y, hs, out_h, align, half_pixel);
          for (int64_t x = 0; x < in_w; ++x) {
            const int64_t ox = NearestSource(x, ws, out_w, align, half_pixel);
            const T* gp = g + ((b * in_h + y) * in_w + x) * channels;
            T* op = out + ((b * out_h + oy) * out_w + ox) * channels;
            for (int64_t d = 0; d < channels; ++d) op[d] += gp[d];
          }
        }
      }
    };
  }
};

#define SF_REGISTER_RESIZE_NN(T)                                               \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeNearestNeighbor").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeNearestNeighborOp<T>);                                             \
  REGISTER_KERNEL_BUILDER(Name("ResizeNearestNeighborGrad")                    \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T"),                         \
                          ResizeNearestNeighborGradOp<T>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_RESIZE_NN)
#undef SF_REGISTER_RESIZE_NN

}  // namespace
}  // namespace stepflow
