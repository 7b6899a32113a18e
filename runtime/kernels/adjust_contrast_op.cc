// AdjustContrastv2: for images [..., height, width, channels], each
// channel of each image moves away from (or toward) its mean over the
// image: output = (x - mean) * contrast_factor + mean, in float. The mean
// is a float sum in pixel order divided by the pixel count.
//
// Work is split over images. Errors: InvalidArgument naming the node for
// images of rank below 3 and a non-scalar contrast_factor.
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

template <typename T>
class AdjustContrastOp : public ShardedOpKernel {
 public:
  explicit AdjustContrastOp(OpKernelConstruction* ctx) : ShardedOpKernel(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& images = ctx->input(0);
    const Tensor& factor = ctx->input(1);
    OP_REQUIRES(
        ctx, images.dims() >= 3,
        NodeInvalidArgument(ctx, "input must be at least 3-D, got shape",
                            images.shape().DebugString()));
    OP_REQUIRES(ctx, factor.dims() == 0,
                NodeInvalidArgument(ctx, "contrast_factor must be scalar: ",
                                    factor.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &output));
    if (images.NumElements() == 0) return;
    const int r = images.dims();
    const int64_t channels = images.dim_size(r - 1);
    const int64_t pixels = images.dim_size(r - 2) * images.dim_size(r - 3);
    const int64_t count = images.NumElements() / (channels * pixels);
    const T* x = images.base<T>();
    T* y = output->base<T>();
    const float f = factor.base<float>()[0];
    work->units = count;
    work->cost_per_unit = pixels * channels * 4;
    work->fn = [=](int64_t begin, int64_t end) {
      std::vector<float> mean(channels);
      for (int64_t b = begin; b < end; ++b) {
        const T* xb = x + b * pixels * channels;
        T* yb = y + b * pixels * channels;
        std::fill(mean.begin(), mean.end(), 0.0f);
        for (int64_t p = 0; p < pixels; ++p) {
          for (int64_t c = 0; c < channels; ++c) {
            mean[c] += static_cast<float>(xb[p * channels + c]);
          }
        }
        for (int64_t c = 0; c < channels; ++c) {
          mean[c] /= static_cast<float>(pixels);
        }
        for (int64_t p = 0; p < pixels; ++p) {
          for (int64_t c = 0; c < channels; ++c) {
            const float v = static_cast<float>(xb[p * channels + c]);
            yb[p * channels + c] = static_cast<T>((v - mean[c]) * f + mean[c]);
          }
        }
      }
    };
  }
};

REGISTER_KERNEL_BUILDER(
    Name("AdjustContrastv2").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    AdjustContrastOp<float>);

}  // namespace
}  // namespace stepflow
