// LRN (local response normalisation across depth) and LRNGrad on NHWC
// tensors, as TensorFlow's CPU kernels compute them:
//
//   sqr_sum[d] = sum of input[k]^2 for k in [d - depth_radius, d +
//   depth_radius] output[d]  = input[d] / (bias + alpha * sqr_sum[d]) ^ beta
//
// LRN computes in float (the power as a reciprocal for beta 1, a reciprocal
// square root for beta 0.5, exp(-beta * log) otherwise). LRNGrad runs in T
// in TensorFlow's order: for each depth j of a pixel, every k of j's window
// accumulates grad[j] * ((k == j) * norm^-beta
// - 2 * alpha * beta * image[k] * output[j] / norm).
//
// Work is split over pixels (ShardedOpKernel). Errors: InvalidArgument
// naming the node for inputs that are not 4-D, LRNGrad inputs of different
// shapes, a depth_radius outside int and tensors of 2^31 or more elements.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

class LRNBase : public ShardedOpKernel {
 public:
  explicit LRNBase(OpKernelConstruction* ctx) : ShardedOpKernel(ctx) {
    int64_t radius = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("depth_radius", &radius));
    OP_REQUIRES(ctx, radius >= 0 && radius <= std::numeric_limits<int>::max(),
                NodeInvalidArgument(*this, "depth_radius = ", radius,
                                    " larger than int max"));
    depth_radius_ = radius;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bias", &bias_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("beta", &beta_));
  }

 protected:
  int64_t depth_radius_ = 0;
  float bias_ = 0;
  float alpha_ = 0;
  float beta_ = 0;
};

template <typename T>
class LRNOp : public LRNBase {
 public:
  explicit LRNOp(OpKernelConstruction* ctx) : LRNBase(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() == 4,
                NodeInvalidArgument(ctx, "in must be 4-dimensional"));
    OP_REQUIRES(ctx, in.NumElements() < std::numeric_limits<int>::max(),
                NodeInvalidArgument(ctx, "argument to LRN too large"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const int64_t depth = in.dim_size(3);
    const T* x = in.base<T>();
    T* y = out->base<T>();
    const int64_t radius = depth_radius_;
    const float bias = bias_, alpha = alpha_, beta = beta_;
    work->units = in.NumElements() / depth;
    work->cost_per_unit = depth * (2 * std::min(radius, depth) + 4);
    work->fn = [=](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const T* xp = x + p * depth;
        T* yp = y + p * depth;
        for (int64_t d = 0; d < depth; ++d) {
          const int64_t lo = std::max<int64_t>(0, d - radius);
          const int64_t hi = std::min(depth, d + radius + 1);
          float sqr = 0;
          for (int64_t k = lo; k < hi; ++k) {
            const float v = static_cast<float>(xp[k]);
            sqr += v * v;
          }
          const float m = bias + alpha * sqr;
          const float v = static_cast<float>(xp[d]);
          float r;
          if (beta == 1.0f) {
            r = v * (1.0f / m);
          } else if (beta == 0.5f) {
            r = v * (1.0f / std::sqrt(m));
          } else {
            r = v * std::exp(std::log(m) * -beta);
          }
          yp[d] = static_cast<T>(r);
        }
      }
    };
  }
};

template <typename T>
class LRNGradOp : public LRNBase {
 public:
  explicit LRNGradOp(OpKernelConstruction* ctx) : LRNBase(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    const Tensor& output = ctx->input(2);
    OP_REQUIRES(ctx,
                grads.dims() == 4 && image.dims() == 4 && output.dims() == 4,
                NodeInvalidArgument(ctx, "inputs must be 4-dimensional"));
    OP_REQUIRES(
        ctx, grads.shape() == image.shape() && image.shape() == output.shape(),
        NodeInvalidArgument(ctx,
                            "input_grads, input_image, and out_image "
                            "should have the same shape"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, image.shape(), &out));
    T* dx = out->base<T>();
    std::fill(dx, dx + out->NumElements(), T(0));
    if (image.NumElements() == 0) return;
    const int64_t depth = image.dim_size(3);
    const T* g = grads.base<T>();
    const T* x = image.base<T>();
    const T* y = output.base<T>();
    const int64_t radius = depth_radius_;
    const T bias = static_cast<T>(bias_);
    const T alpha = static_cast<T>(alpha_);
    const T beta = static_cast<T>(beta_);
    work->units = image.NumElements() / depth;
    work->cost_per_unit = depth * (4 * std::min(radius, depth) + 4);
    work->fn = [=](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const T* xp = x + p * depth;
        const T* yp = y + p * depth;
        const T* gp = g + p * depth;
        T* dxp = dx + p * depth;
        for (int64_t j = 0; j < depth; ++j) {
          const int64_t lo = std::max<int64_t>(0, j - radius);
          const int64_t hi = std::min(depth, j + radius + 1);
          T norm(0);
          for (int64_t k = lo; k < hi; ++k) norm += xp[k] * xp[k];
          norm = alpha * norm + bias;
          const T pow_norm = static_cast<T>(
              std::pow(static_cast<float>(norm), -static_cast<float>(beta)));
          for (int64_t k = lo; k < hi; ++k) {
            T dyi = T(-2) * alpha * beta * xp[k] * yp[j] / norm;
            if (k == j) dyi += pow_norm;
            dyi *= gp[j];
            dxp[k] += dyi;
          }
        }
      }
    };
  }
};

#define SF_REGISTER_LRN(T)                                              \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("LRN").Device(DEVICE_CPU).TypeConstraint<T>("T"), LRNOp<T>); \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("LRNGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      LRNGradOp<T>);
SF_REGISTER_LRN(float)
SF_REGISTER_LRN(half)
#undef SF_REGISTER_LRN

}  // namespace
}  // namespace stepflow
