// AvgPool and AvgPool3D on channels-last tensors, and their gradients
// AvgPoolGrad and AvgPool3DGrad (the input's shape arrives as an int32
// vector).
//
// An output is the mean over the input pixels its window covers: padding
// is left out of both the sum and the count (SAME windows at the border
// average fewer pixels). Sums run in T in window order (planes, rows,
// columns ascending), then divide by the count, as TensorFlow's CPU kernel
// does, so half/bfloat16 results round alike. The gradient spreads each
// output gradient evenly over its window's pixels: times T(1 / count) in
// 2-D, divided by T(count) in 3-D (TensorFlow's two CPU kernels differ
// there), accumulated per image in output order.
//
// Work is split over output rows (forward) or images (gradient).
// Errors: see pooling_params.h; pooling across depth is Unimplemented.
#include <algorithm>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/pooling_op_kernel.h"
#include "runtime/kernels/pooling_params.h"

namespace stepflow {
namespace {

template <typename T>
void AvgPoolRows(const PoolGeometry& g, const T* in, T* out, int64_t begin,
                 int64_t end) {
  const int64_t depth = g.depth;
  ForEachOutputPixel(
      g, begin, end,
      [&](int64_t b, int64_t p, int64_t r, int64_t c, int64_t pixel) {
        T* o = out + pixel * depth;
        std::fill(o, o + depth, T(0));
        int64_t count = 0;
        ForEachWindowPixel(g, b, p, r, c, [&](int64_t pix) {
          const T* x = in + pix * depth;
          for (int64_t d = 0; d < depth; ++d) o[d] += x[d];
          ++count;
        });
        const T n = static_cast<T>(count);
        for (int64_t d = 0; d < depth; ++d) o[d] /= n;
      });
}

template <typename T>
class AvgPoolOp : public PoolingOpKernel {
 public:
  AvgPoolOp(OpKernelConstruction* ctx, int spatial_dims)
      : PoolingOpKernel(ctx, spatial_dims) {}
  explicit AvgPoolOp(OpKernelConstruction* ctx) : AvgPoolOp(ctx, 2) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& input = ctx->input(0);
    PoolGeometry g;
    OP_REQUIRES_OK(
        ctx, ComputePoolGeometry(*this, options_, input.shape(), false, &g));
    const TensorShape shape = g.OutputShape(options_.spatial_dims);
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, input.dtype()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    if (output->NumElements() == 0) return;
    const T* in = input.base<T>();
    T* out = output->base<T>();
    work->units = g.batch * g.out[0] * g.out[1];
    work->cost_per_unit =
        g.out[2] * g.window[0] * g.window[1] * g.window[2] * g.depth;
    work->fn = [g, in, out](int64_t begin, int64_t end) {
      AvgPoolRows(g, in, out, begin, end);
    };
  }
};

template <typename T>
class AvgPool3DOp : public AvgPoolOp<T> {
 public:
  explicit AvgPool3DOp(OpKernelConstruction* ctx) : AvgPoolOp<T>(ctx, 3) {}
};

template <typename T>
class AvgPoolGradOp : public PoolingOpKernel {
 public:
  AvgPoolGradOp(OpKernelConstruction* ctx, int spatial_dims)
      : PoolingOpKernel(ctx, spatial_dims) {}
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : AvgPoolGradOp(ctx, 2) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const int spatial = options_.spatial_dims;
    const Tensor& grad = ctx->input(1);
    TensorShape in_shape;
    OP_REQUIRES_OK(ctx, PoolInputShapeFromTensor(*this, ctx->input(0), spatial,
                                                 &in_shape));
    OP_REQUIRES(ctx, grad.dims() == spatial + 2,
                NodeInvalidArgument(ctx, "out_backprop must be ", spatial + 2,
                                    "-dimensional"));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx,
                   ComputePoolGeometry(*this, options_, in_shape, false, &g));
    OP_REQUIRES_OK(ctx,
                   CheckPoolShape(*this, "grad", grad, g.OutputShape(spatial)));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &output));
    std::fill(output->base<T>(), output->base<T>() + output->NumElements(),
              T(0));
    if (grad.NumElements() == 0) return;
    const T* dy = grad.base<T>();
    T* dx = output->base<T>();
    const bool reciprocal = spatial == 2;
    work->units = g.batch;
    work->cost_per_unit =
        g.out_pixels() * g.window[0] * g.window[1] * g.window[2] * g.depth;
    work->fn = [g, dy, dx, reciprocal](int64_t begin, int64_t end) {
      const int64_t depth = g.depth;
      for (int64_t b = begin; b < end; ++b) {
        for (int64_t p = 0; p < g.out[0]; ++p) {
          for (int64_t r = 0; r < g.out[1]; ++r) {
            for (int64_t c = 0; c < g.out[2]; ++c) {
              const T* gy = dy + PixelIndex(g.out, b, p, r, c) * depth;
              const int64_t n = WindowPixelCount(g, p, r, c);
              if (n == 0) continue;
              const T coeff = static_cast<T>(1.0 / static_cast<double>(n));
              const T count = static_cast<T>(n);
              ForEachWindowPixel(g, b, p, r, c, [&](int64_t pix) {
                T* x = dx + pix * depth;
                if (reciprocal) {
                  for (int64_t d = 0; d < depth; ++d) x[d] += gy[d] * coeff;
                } else {
                  for (int64_t d = 0; d < depth; ++d) x[d] += gy[d] / count;
                }
              });
            }
          }
        }
      }
    };
  }
};

template <typename T>
class AvgPool3DGradOp : public AvgPoolGradOp<T> {
 public:
  explicit AvgPool3DGradOp(OpKernelConstruction* ctx)
      : AvgPoolGradOp<T>(ctx, 3) {}
};

#define SF_REGISTER_AVGPOOL(T)                                       \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      AvgPoolOp<T>);                                                 \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AvgPoolGradOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_AVGPOOL)
#undef SF_REGISTER_AVGPOOL

#define SF_REGISTER_AVGPOOL3D(T)                                       \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("AvgPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      AvgPool3DOp<T>);                                                 \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("AvgPool3DGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AvgPool3DGradOp<T>);
SF_REGISTER_AVGPOOL3D(float)
SF_REGISTER_AVGPOOL3D(bfloat16)
#undef SF_REGISTER_AVGPOOL3D

}  // namespace
}  // namespace stepflow
