// MaxPool, MaxPoolV2 (window sizes as inputs), MaxPool3D and
// MaxPoolWithArgmax on channels-last tensors: the maximum over each window,
// padding excluded (a window of padding alone yields the type's lowest
// value). MaxPool and MaxPoolV2 also pool across depth (ksize 1 spatially,
// depth window == depth stride dividing the depth), as TensorFlow's CPU
// kernel does. MaxPoolWithArgmax's argmax is the flat index
// ((b * height + y) * width + x) * channels + c of the first maximum in
// window order, b left out unless include_batch_in_index; a depth window
// must pass MaxPool's checks and is then ignored, as in TensorFlow.
// MaxPoolV2 also accepts NCHW_VECT_C as TensorFlow's CPU kernel does
// (pooling_params.h).
//
// Work is split over output rows (ShardedOpKernel). Errors: see
// pooling_params.h.
#include <algorithm>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/pooling_op_kernel.h"
#include "runtime/kernels/pooling_params.h"

namespace stepflow {
namespace {

template <typename T>
void MaxPoolRows(const PoolGeometry& g, const T* in, T* out, int64_t begin,
                 int64_t end) {
  using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
  const int64_t depth = g.depth;
  ForEachOutputPixel(
      g, begin, end,
      [&](int64_t b, int64_t p, int64_t r, int64_t c, int64_t pixel) {
        Eigen::Map<Column> o(out + pixel * depth, depth);
        o.setConstant(Eigen::NumTraits<T>::lowest());
        // Eigen's coefficient-wise max, as TensorFlow's CPU kernel takes it
        // (NaN handling included).
        ForEachWindowPixel(g, b, p, r, c, [&](int64_t pix) {
          o = o.max(Eigen::Map<const Column>(in + pix * depth, depth));
        });
      });
}

// Pooling across depth: each pixel's channels in groups of depth_window.
template <typename T>
void DepthMaxPool(const PoolGeometry& g, const T* in, T* out, int64_t begin,
                  int64_t end) {
  const int64_t w = g.depth_window;
  for (int64_t i = begin * g.out_depth; i < end * g.out_depth; ++i) {
    const T* x = in + i * w;
    T m = x[0];
    for (int64_t k = 1; k < w; ++k) m = m < x[k] ? x[k] : m;
    out[i] = m;
  }
}

template <typename T>
class MaxPoolOp : public PoolingOpKernel {
 public:
  MaxPoolOp(OpKernelConstruction* ctx, int spatial_dims, bool sizes_as_inputs)
      : PoolingOpKernel(ctx, spatial_dims, sizes_as_inputs, 1) {}
  explicit MaxPoolOp(OpKernelConstruction* ctx) : MaxPoolOp(ctx, 2, false) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    PoolOptions options;
    OP_REQUIRES_OK(ctx, RunOptions(ctx, &options));
    const Tensor& input = ctx->input(0);
    TensorShape in_shape = input.shape();
    if (options.vect_c) {
      OP_REQUIRES(ctx, input.dims() == 5,
                  NodeInvalidArgument(ctx, "tensor_in must be 5-dimensional"));
      OP_REQUIRES(ctx, options.ksize[1] == 1 && options.strides[1] == 1,
                  NodeError(absl::StatusCode::kUnimplemented, *this,
                            "Depthwise max pooling is not supported for "
                            "NCHW_VECT_C"));
      // TensorFlow's CPU kernel pools the buffer as NHWC [N, H, W, C]: the
      // blocks of four channels are not regrouped (for C > 4 this mixes
      // channel blocks, as TensorFlow does), and the result is reported as
      // [N, C / 4, H', W', 4].
      for (std::vector<int64_t>* v : {&options.ksize, &options.strides}) {
        *v = {(*v)[0], (*v)[2], (*v)[3], (*v)[1]};
      }
      in_shape =
          TensorShape({input.dim_size(0), input.dim_size(2), input.dim_size(3),
                       input.dim_size(1) * input.dim_size(4)});
    }
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputePoolGeometry(*this, options, in_shape,
                                            options.spatial_dims == 2, &g));
    TensorShape shape = g.OutputShape(options.spatial_dims);
    if (options.vect_c) {
      shape = TensorShape({input.dim_size(0), input.dim_size(1), g.out[1],
                           g.out[2], input.dim_size(4)});
    }
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, input.dtype()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    if (output->NumElements() == 0) return;
    const T* in = input.base<T>();
    T* out = output->base<T>();
    if (g.depth_window > 1) {
      work->units = g.batch * g.in_pixels();
      work->cost_per_unit = g.depth;
      work->fn = [g, in, out](int64_t begin, int64_t end) {
        DepthMaxPool(g, in, out, begin, end);
      };
      return;
    }
    work->units = g.batch * g.out[0] * g.out[1];
    work->cost_per_unit =
        g.out[2] * g.window[0] * g.window[1] * g.window[2] * g.depth;
    work->fn = [g, in, out](int64_t begin, int64_t end) {
      MaxPoolRows(g, in, out, begin, end);
    };
  }
};

template <typename T>
class MaxPoolV2Op : public MaxPoolOp<T> {
 public:
  explicit MaxPoolV2Op(OpKernelConstruction* ctx)
      : MaxPoolOp<T>(ctx, 2, true) {}
};

template <typename T>
class MaxPool3DOp : public MaxPoolOp<T> {
 public:
  explicit MaxPool3DOp(OpKernelConstruction* ctx)
      : MaxPoolOp<T>(ctx, 3, false) {}
};

template <typename T, typename Targmax>
class MaxPoolWithArgmaxOp : public PoolingOpKernel {
 public:
  explicit MaxPoolWithArgmaxOp(OpKernelConstruction* ctx)
      : PoolingOpKernel(ctx, 2) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& input = ctx->input(0);
    PoolGeometry g;
    OP_REQUIRES_OK(
        ctx, ComputePoolGeometry(*this, options_, input.shape(), true, &g));
    if (g.depth_window > 1) {
      // A valid depth window is checked as MaxPool's, then ignored: the
      // pooling runs with 1x1 windows at the spatial strides, as
      // TensorFlow's CPU kernel does.
      PoolOptions spatial = options_;
      spatial.ksize[3] = spatial.strides[3] = 1;
      OP_REQUIRES_OK(
          ctx, ComputePoolGeometry(*this, spatial, input.shape(), false, &g));
    }
    const TensorShape shape = g.OutputShape(2);
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, input.dtype()));
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, DT_INT64));
    Tensor* output = nullptr;
    Tensor* argmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &argmax));
    if (output->NumElements() == 0) return;
    const T* in = input.base<T>();
    T* out = output->base<T>();
    Targmax* arg = argmax->base<Targmax>();
    const bool with_batch = include_batch_in_index_;
    work->units = g.batch * g.out[1];
    work->cost_per_unit = g.out[2] * g.window[1] * g.window[2] * g.depth;
    work->fn = [g, in, out, arg, with_batch](int64_t begin, int64_t end) {
      const int64_t depth = g.depth;
      std::vector<int64_t> pixel(depth);
      ForEachOutputPixel(
          g, begin, end,
          [&](int64_t b, int64_t p, int64_t r, int64_t c, int64_t out_pixel) {
            const int64_t base = with_batch ? 0 : b * g.in_pixels();
            const int64_t o = out_pixel * depth;
            WindowArgMax(g, in, b, p, r, c, out + o, pixel.data());
            for (int64_t d = 0; d < depth; ++d) {
              arg[o + d] = static_cast<Targmax>(
                  pixel[d] < 0 ? -1 : (pixel[d] - base) * depth + d);
            }
          });
    };
  }
};

#define SF_REGISTER_MAXPOOL(T)                                     \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      MaxPoolOp<T>);                                               \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPoolV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPoolV2Op<T>);                                             \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolWithArgmax")                \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<int32_t>("Targmax"), \
                          MaxPoolWithArgmaxOp<T, int32_t>);        \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolWithArgmax")                \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<int64_t>("Targmax"), \
                          MaxPoolWithArgmaxOp<T, int64_t>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MAXPOOL)
#undef SF_REGISTER_MAXPOOL

#define SF_REGISTER_MAXPOOL3D(T)                                   \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPool3DOp<T>);
SF_REGISTER_MAXPOOL3D(float)
SF_REGISTER_MAXPOOL3D(bfloat16)
#undef SF_REGISTER_MAXPOOL3D

}  // namespace
}  // namespace stepflow
