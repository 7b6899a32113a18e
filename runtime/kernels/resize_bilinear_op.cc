// ResizeBilinear and ResizeBilinearGrad (NHWC), as TensorFlow's CPU kernels
// compute them: output (y, x) reads the input at (BilinearSource(y),
// BilinearSource(x)) (image_resizer.h), between the floor and the ceiling
// of each coordinate clamped to the image, interpolating in float along x
// then y. The gradient spreads each float gradient over the same four
// pixels, accumulated in output order in T (in float for half and
// bfloat16, rounded once at the end, as TensorFlow does).
//
// Work is split over output rows (forward) or images (gradient).
// Errors: see image_resizer.h; the gradient's grads must be 4-D with
// positive sizes and original_image 4-D with positive sizes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/image_resizer.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

// One output coordinate's two input neighbours and the weight of the upper.
struct Interpolation {
  int64_t lower = 0;
  int64_t upper = 0;
  float lerp = 0;
};

Interpolation Interpolate(int64_t out, float scale, bool half_pixel,
                          int64_t in_size) {
  const float in = BilinearSource(out, scale, half_pixel);
  const float in_floor = std::floor(in);
  Interpolation w;
  w.lower = std::max<int64_t>(static_cast<int64_t>(in_floor), 0);
  w.upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), in_size - 1);
  w.lerp = in - in_floor;
  return w;
}

template <typename T>
class ResizeBilinearOp : public ResizeOpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : ResizeOpKernel(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& images = ctx->input(0);
    ResizeGeometry g;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, AllocateResized(ctx, DT_FLOAT, &g, &output));
    if (output->NumElements() == 0) return;
    auto xs = std::make_shared<std::vector<Interpolation>>(g.out_width);
    for (int64_t x = 0; x < g.out_width; ++x) {
      (*xs)[x] = Interpolate(x, g.width_scale, half_pixel_centers_, g.in_width);
    }
    const T* in = images.base<T>();
    float* out = output->base<float>();
    const bool half_pixel = half_pixel_centers_;
    work->units = g.batch * g.out_height;
    work->cost_per_unit = g.out_width * g.channels * 8;
    work->fn = [g, xs, in, out, half_pixel](int64_t begin, int64_t end) {
      const int64_t c = g.channels;
      for (int64_t u = begin; u < end; ++u) {
        const int64_t b = u / g.out_height;
        const int64_t y = u % g.out_height;
        const Interpolation wy =
            Interpolate(y, g.height_scale, half_pixel, g.in_height);
        const T* top = in + ((b * g.in_height + wy.lower) * g.in_width) * c;
        const T* bottom = in + ((b * g.in_height + wy.upper) * g.in_width) * c;
        float* o = out + u * g.out_width * c;
        for (int64_t x = 0; x < g.out_width; ++x) {
          const Interpolation& wx = (*xs)[x];
          for (int64_t d = 0; d < c; ++d) {
            const float tl = static_cast<float>(top[wx.lower * c + d]);
            const float tr = static_cast<float>(top[wx.upper * c + d]);
            const float bl = static_cast<float>(bottom[wx.lower * c + d]);
            const float br = static_cast<float>(bottom[wx.upper * c + d]);
            const float t = tl + (tr - tl) * wx.lerp;
            const float bo = bl + (br - bl) * wx.lerp;
            o[x * c + d] = t + (bo - t) * wy.lerp;
          }
        }
      }
    };
  }
};

template <typename T>
class ResizeBilinearGradOp : public ResizeOpKernel {
 public:
  explicit ResizeBilinearGradOp(OpKernelConstruction* ctx)
      : ResizeOpKernel(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    OP_REQUIRES(ctx, !(half_pixel_centers_ && align_corners_),
                NodeInvalidArgument(ctx,
                                    "If half_pixel_centers is True, "
                                    "align_corners must be False."));
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    OP_REQUIRES(ctx, grads.dims() == 4,
                NodeInvalidArgument(ctx, "input_grad must be 4-dimensional",
                                    grads.shape().DebugString()));
    const int64_t batch = grads.dim_size(0);
    const int64_t channels = grads.dim_size(3);
    const int64_t rh = grads.dim_size(1);
    const int64_t rw = grads.dim_size(2);
    OP_REQUIRES(
        ctx, rh > 0 && rw > 0,
        NodeInvalidArgument(ctx, "resized dimensions must be positive"));
    OP_REQUIRES(ctx, original.dims() == 4,
                NodeInvalidArgument(ctx, "original_image must be 4-dimensional",
                                    original.shape().DebugString()));
    const int64_t oh = original.dim_size(1);
    const int64_t ow = original.dim_size(2);
    OP_REQUIRES(
        ctx, oh > 0 && ow > 0,
        NodeInvalidArgument(ctx, "original dimensions must be positive"));
    const float hs = ResizeScale(oh, rh, align_corners_);
    const float ws = ResizeScale(ow, rw, align_corners_);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, oh, ow, channels}),
                                  &output));
    using A = typename AccumType<T>::type;
    A* out = reinterpret_cast<A*>(output->base<T>());
    Tensor accum;  // the float accumulator of half/bfloat16 (budgeted)
    const bool widened = !std::is_same<A, T>::value;
    if (widened) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                             output->shape(), &accum));
      out = accum.base<A>();
    }
    std::fill(out, out + output->NumElements(), A(0));
    T* result = output->base<T>();
    if (grads.NumElements() == 0) {
      std::fill(result, result + output->NumElements(), T(0));
      return;
    }
    const float* g = grads.base<float>();
    const bool half_pixel = half_pixel_centers_;
    work->units = batch;
    work->cost_per_unit = rh * rw * channels * 8;
    // keep_alive holds the accumulator until the last block has run.
    work->fn = [=, keep_alive = accum](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        for (int64_t y = 0; y < rh; ++y) {
          const Interpolation wy = Interpolate(y, hs, half_pixel, oh);
          const float iy = 1.0f - wy.lerp;
          for (int64_t x = 0; x < rw; ++x) {
            const Interpolation wx = Interpolate(x, ws, half_pixel, ow);
            const float ix = 1.0f - wx.lerp;
            const float* gp = g + ((b * rh + y) * rw + x) * channels;
            A* tl = out + ((b * oh + wy.lower) * ow + wx.lower) * channels;
            A* tr = out + ((b * oh + wy.lower) * ow + wx.upper) * channels;
            A* bl = out + ((b * oh + wy.upper) * ow + wx.lower) * channels;
            A* br = out + ((b * oh + wy.upper) * ow + wx.upper) * channels;
            for (int64_t d = 0; d < channels; ++d) {
              tl[d] += static_cast<A>(gp[d] * iy * ix);
              tr[d] += static_cast<A>(gp[d] * iy * wx.lerp);
              bl[d] += static_cast<A>(gp[d] * wy.lerp * ix);
              br[d] += static_cast<A>(gp[d] * wy.lerp * wx.lerp);
            }
          }
        }
        if (widened) {
          const int64_t image = oh * ow * channels;
          for (int64_t i = b * image; i < (b + 1) * image; ++i) {
            result[i] = static_cast<T>(out[i]);
          }
        }
      }
    };
  }
};

#define SF_REGISTER_RESIZE_BILINEAR(T)                                  \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("ResizeBilinear").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeBilinearOp<T>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_RESIZE_BILINEAR)
#undef SF_REGISTER_RESIZE_BILINEAR

#define SF_REGISTER_RESIZE_BILINEAR_GRAD(T)                                 \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("ResizeBilinearGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeBilinearGradOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_RESIZE_BILINEAR_GRAD)
#undef SF_REGISTER_RESIZE_BILINEAR_GRAD

}  // namespace
}  // namespace stepflow
