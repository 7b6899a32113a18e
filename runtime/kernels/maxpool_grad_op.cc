// The gradients of max pooling, as TensorFlow's CPU kernels define them:
//
// - MaxPoolGrad, MaxPoolGradV2: each output's gradient goes to the first
//   maximum of its window in window order (rows, then columns), found
//   again from orig_input (orig_output's values are not consulted).
// - MaxPool3DGrad: each output's gradient goes to every pixel of its
//   window equal to orig_output (ties share it in full).
// - MaxPoolGradGrad, MaxPoolGradGradV2, MaxPool3DGradGrad: the gradient of
//   the above with respect to its incoming gradient: output (shaped like
//   orig_output) takes grad at the first pixel of the window equal to
//   orig_output, 0 when none is.
// - MaxPoolGradWithArgmax: grad scattered to the flat indices in argmax
//   (within each image unless include_batch_in_index).
//
// Accumulation runs per image in output order. Work is split over images
// (gradients) or output rows (second order). Errors: see pooling_params.h;
// shapes of orig_output/grad/argmax that do not match the pooling are
// InvalidArgument, as are argmax indices outside the input.
#include <algorithm>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/pooling_op_kernel.h"
#include "runtime/kernels/pooling_params.h"

namespace stepflow {
namespace {

enum class GradKind {
  kFirstMax,  // MaxPoolGrad(V2)
  kAllEqual,  // MaxPool3DGrad
  kGradGrad,  // MaxPoolGradGrad(V2), MaxPool3DGradGrad
};

template <typename T>
void FirstMaxGrad(const PoolGeometry& g, const T* x, const T* dy, T* dx,
                  int64_t b) {
  const int64_t depth = g.depth;
  std::vector<T> max(depth);
  std::vector<int64_t> pixel(depth);
  for (int64_t p = 0; p < g.out[0]; ++p) {
    for (int64_t r = 0; r < g.out[1]; ++r) {
      for (int64_t c = 0; c < g.out[2]; ++c) {
        const int64_t o = PixelIndex(g.out, b, p, r, c) * depth;
        WindowArgMax(g, x, b, p, r, c, max.data(), pixel.data());
        for (int64_t d = 0; d < depth; ++d) {
          if (pixel[d] >= 0) dx[pixel[d] * depth + d] += dy[o + d];
        }
      }
    }
  }
}

template <typename T>
void AllEqualGrad(const PoolGeometry& g, const T* x, const T* y, const T* dy,
                  T* dx, int64_t b) {
  const int64_t depth = g.depth;
  for (int64_t p = 0; p < g.out[0]; ++p) {
    for (int64_t r = 0; r < g.out[1]; ++r) {
      for (int64_t c = 0; c < g.out[2]; ++c) {
        const int64_t o = PixelIndex(g.out, b, p, r, c) * depth;
        ForEachWindowPixel(g, b, p, r, c, [&](int64_t pix) {
          const T* xi = x + pix * depth;
          T* dxi = dx + pix * depth;
          for (int64_t d = 0; d < depth; ++d) {
            if (xi[d] == y[o + d]) dxi[d] += dy[o + d];
          }
        });
      }
    }
  }
}

template <typename T>
void GradGradRows(const PoolGeometry& g, const T* x, const T* y, const T* ddx,
                  T* ddy, int64_t begin, int64_t end) {
  const int64_t depth = g.depth;
  std::vector<char> found(depth);
  ForEachOutputPixel(
      g, begin, end,
      [&](int64_t b, int64_t p, int64_t r, int64_t c, int64_t pixel) {
        const int64_t o = pixel * depth;
        std::fill(found.begin(), found.end(), 0);
        std::fill(ddy + o, ddy + o + depth, T(0));
        ForEachWindowPixel(g, b, p, r, c, [&](int64_t pix) {
          const T* xi = x + pix * depth;
          for (int64_t d = 0; d < depth; ++d) {
            if (!found[d] && xi[d] == y[o + d]) {
              ddy[o + d] = ddx[pix * depth + d];
              found[d] = 1;
            }
          }
        });
      });
}

template <typename T, GradKind kKind>
class MaxPoolGradOp : public PoolingOpKernel {
 public:
  MaxPoolGradOp(OpKernelConstruction* ctx, int spatial_dims,
                bool sizes_as_inputs)
      : PoolingOpKernel(ctx, spatial_dims, sizes_as_inputs, 3) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    PoolOptions options;
    OP_REQUIRES_OK(ctx, RunOptions(ctx, &options));
    const int rank = options.spatial_dims + 2;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    OP_REQUIRES(
        ctx, x.dims() == rank,
        NodeInvalidArgument(ctx, "tensor_in must be ", rank, "-dimensional"));
    OP_REQUIRES(
        ctx, y.dims() == rank,
        NodeInvalidArgument(ctx, "tensor_out must be ", rank, "-dimensional"));
    OP_REQUIRES(ctx, dy.dims() == rank,
                NodeInvalidArgument(ctx, "out_backprop must be ", rank,
                                    "-dimensional"));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx,
                   ComputePoolGeometry(*this, options, x.shape(), false, &g));
    const TensorShape out_shape = g.OutputShape(options.spatial_dims);
    OP_REQUIRES_OK(ctx, CheckPoolShape(*this, "orig_output", y, out_shape));
    OP_REQUIRES_OK(
        ctx,
        CheckPoolShape(*this, "grad", dy,
                       kKind == GradKind::kGradGrad ? x.shape() : out_shape));
    Tensor* output = nullptr;
    const TensorShape& shape =
        kKind == GradKind::kGradGrad ? out_shape : x.shape();
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    T* out = output->base<T>();
    const T* xs = x.base<T>();
    const T* ys = y.base<T>();
    const T* dys = dy.base<T>();
    const int64_t window = g.window[0] * g.window[1] * g.window[2];
    if constexpr (kKind == GradKind::kGradGrad) {
      if (output->NumElements() == 0) return;
      work->units = g.batch * g.out[0] * g.out[1];
      work->cost_per_unit = g.out[2] * window * g.depth;
      work->fn = [g, xs, ys, dys, out](int64_t begin, int64_t end) {
        GradGradRows(g, xs, ys, dys, out, begin, end);
      };
    } else {
      std::fill(out, out + output->NumElements(), T(0));
      if (y.NumElements() == 0 || x.NumElements() == 0) return;
      work->units = g.batch;
      work->cost_per_unit = g.out_pixels() * window * g.depth;
      work->fn = [g, xs, ys, dys, out](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          if constexpr (kKind == GradKind::kFirstMax) {
            FirstMaxGrad(g, xs, dys, out, b);
          } else {
            AllEqualGrad(g, xs, ys, dys, out, b);
          }
        }
      };
    }
  }
};

// The registered forms: spatial dimensions and where ksize/strides live.
template <typename T, GradKind kKind, int kSpatial, bool kSizesAsInputs>
class MaxPoolGradKernel : public MaxPoolGradOp<T, kKind> {
 public:
  explicit MaxPoolGradKernel(OpKernelConstruction* ctx)
      : MaxPoolGradOp<T, kKind>(ctx, kSpatial, kSizesAsInputs) {}
};

template <typename T, typename Targmax>
class MaxPoolGradWithArgmaxOp : public PoolingOpKernel {
 public:
  explicit MaxPoolGradWithArgmaxOp(OpKernelConstruction* ctx)
      : PoolingOpKernel(ctx, 2) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& x = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    const Tensor& argmax = ctx->input(2);
    PoolGeometry g;
    OP_REQUIRES_OK(ctx,
                   ComputePoolGeometry(*this, options_, x.shape(), false, &g));
    const TensorShape out_shape = g.OutputShape(2);
    OP_REQUIRES_OK(ctx, CheckPoolShape(*this, "grad", dy, out_shape));
    OP_REQUIRES_OK(ctx, CheckPoolShape(*this, "argmax", argmax, out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &output));
    T* out = output->base<T>();
    std::fill(out, out + output->NumElements(), T(0));
    // Checked here, before any work starts, so a bad index fails the step
    // without a partial result.
    const Targmax* arg = argmax.base<Targmax>();
    const int64_t per_image_out = g.out_pixels() * g.depth;
    const int64_t per_image_in = g.in_pixels() * g.depth;
    const int64_t limit =
        include_batch_in_index_ ? x.NumElements() : per_image_in;
    for (int64_t i = 0; i < argmax.NumElements(); ++i) {
      OP_REQUIRES(
          ctx, arg[i] >= 0 && arg[i] < limit,
          NodeInvalidArgument(ctx, "Received argmax value [", arg[i],
                              "] outside the valid range [0, ", limit, ")"));
    }
    if (dy.NumElements() == 0) return;
    const T* dys = dy.base<T>();
    const bool with_batch = include_batch_in_index_;
    work->units = g.batch;
    work->cost_per_unit = per_image_out;
    work->fn = [=](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const int64_t base = with_batch ? 0 : b * per_image_in;
        for (int64_t i = b * per_image_out; i < (b + 1) * per_image_out; ++i) {
          out[base + static_cast<int64_t>(arg[i])] += dys[i];
        }
      }
    };
  }
};

#define SF_REGISTER_MAXPOOL_GRAD(T)                                        \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
      MaxPoolGradKernel<T, GradKind::kFirstMax, 2, false>);                \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MaxPoolGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      MaxPoolGradKernel<T, GradKind::kFirstMax, 2, true>);                 \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MaxPoolGradGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      MaxPoolGradKernel<T, GradKind::kGradGrad, 2, false>);                \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MaxPoolGradGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPoolGradKernel<T, GradKind::kGradGrad, 2, true>);                 \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGradWithArgmax")                    \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<T>("T")                      \
                              .TypeConstraint<int64_t>("Targmax"),         \
                          MaxPoolGradWithArgmaxOp<T, int64_t>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MAXPOOL_GRAD)
#undef SF_REGISTER_MAXPOOL_GRAD

#define SF_REGISTER_MAXPOOL3D_GRAD(T)                                      \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MaxPool3DGrad")                                                \
          .Device(DEVICE_CPU)                                              \
          .TypeConstraint<T>("T")                                          \
          .TypeConstraint<T>("TInput"),                                    \
      MaxPoolGradKernel<T, GradKind::kAllEqual, 3, false>);                \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MaxPool3DGradGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPoolGradKernel<T, GradKind::kGradGrad, 3, false>);
SF_REGISTER_MAXPOOL3D_GRAD(float)
SF_REGISTER_MAXPOOL3D_GRAD(bfloat16)
#undef SF_REGISTER_MAXPOOL3D_GRAD

}  // namespace
}  // namespace stepflow
