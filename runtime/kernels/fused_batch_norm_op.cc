// FusedBatchNorm (V1, V2, V3) and FusedBatchNormGrad (V1, V2, V3) on the
// CPU, for 4-D tensors in NHWC or NCHW and (V3) 5-D ones in NDHWC/NCDHW.
//
// Training (is_training): per channel, the batch mean and the biased batch
// variance over every other dimension normalise x:
//   y = (x - mean) * scale / sqrt(variance + epsilon) + offset.
// batch_mean/batch_variance report the running statistics: the batch's
// (variance Bessel-corrected, n / (n - 1)) when exponential_avg_factor is
// 1, else (1 - f) * running + f * batch. reserve_space_1/2 keep the batch
// mean and the biased variance for the gradient. Inference uses the given
// mean and variance and passes them through. The gradient is the batch
// norm's gradient with the saved statistics (training) or the frozen ones
// (inference). Statistics and sums are computed in double per channel and
// rounded to U; y and x_backprop are rounded to T.
//
// Work is split over channels (ShardedOpKernel). Errors: InvalidArgument
// naming the node for ranks, formats and per-channel sizes that do not
// fit x.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

// x viewed as [outer, depth, inner]: element (o, c, i) at
// (o * depth + c) * inner + i.
struct ChannelLayout {
  int64_t outer = 0;
  int64_t depth = 0;
  int64_t inner = 0;
  int64_t count() const { return outer * inner; }  // elements per channel
  // Calls fn(j, k) for every element k of channels [c0, c1), j = c - c0,
  // in memory order (so each channel's elements in ascending order).
  template <typename Fn>
  void ForChannels(int64_t c0, int64_t c1, Fn&& fn) const {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = c0; c < c1; ++c) {
        const int64_t base = (o * depth + c) * inner;
        for (int64_t i = 0; i < inner; ++i) fn(c - c0, base + i);
      }
    }
  }
};

class BatchNormBase : public ShardedOpKernel {
 public:
  explicit BatchNormBase(OpKernelConstruction* ctx) : ShardedOpKernel(ctx) {
    float epsilon = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon));
    epsilon_ = epsilon;
    if (ctx->HasAttr("exponential_avg_factor")) {
      float f = 1;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor", &f));
      exponential_avg_factor_ = f;
    }
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    channels_last_ = format == "NHWC" || format == "NDHWC";
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
  }

 protected:
  // Checks x's rank and fills the layout. Only the channel's place matters
  // (rank 4 or 5 under any format), as in TensorFlow.
  absl::Status Layout(const Tensor& x, ChannelLayout* l) const {
    if (x.dims() != 4 && x.dims() != 5) {
      return NodeInvalidArgument(*this, "input must be 4 or 5-dimensional",
                                 x.shape().DebugString());
    }
    const int c = channels_last_ ? x.dims() - 1 : 1;
    l->depth = x.dim_size(c);
    l->outer = 1;
    l->inner = 1;
    for (int d = 0; d < x.dims(); ++d) {
      if (d < c) l->outer *= x.dim_size(d);
      if (d > c) l->inner *= x.dim_size(d);
    }
    return absl::OkStatus();
  }

  double epsilon_ = 0;
  double exponential_avg_factor_ = 1;
  bool channels_last_ = true;
  bool is_training_ = true;
};

template <typename T, typename U>
class FusedBatchNormOp : public BatchNormBase {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : BatchNormBase(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& x = ctx->input(0);
    ChannelLayout l;
    OP_REQUIRES_OK(ctx, Layout(x, &l));
    static const char* const kNames[] = {"scale", "offset", "mean", "variance"};
    for (int i = 1; i < 5; ++i) {
      OP_REQUIRES(
          ctx, ctx->input(i).dims() == 1,
          NodeInvalidArgument(ctx, kNames[i - 1], " must be 1-dimensional",
                              ctx->input(i).shape().DebugString()));
    }
    for (int i = 1; i < 3; ++i) {
      OP_REQUIRES(
          ctx, ctx->input(i).NumElements() == l.depth,
          NodeInvalidArgument(ctx, kNames[i - 1],
                              " must have the same number of elements as the "
                              "channels of x, got ",
                              ctx->input(i).NumElements(), " and ", l.depth));
    }
    const bool uses_running = !is_training_ || exponential_avg_factor_ != 1;
    if (uses_running) {
      for (int i = 3; i < 5; ++i) {
        OP_REQUIRES(ctx, ctx->input(i).NumElements() == l.depth,
                    NodeInvalidArgument(
                        ctx,
                        is_training_ ? "When exponential_avg_factor != 1"
                                     : "When is_training=false",
                        ", ", kNames[i - 1],
                        " must have the same number of elements as the "
                        "channels of x, got ",
                        ctx->input(i).NumElements(), " and ", l.depth));
      }
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    U* stats[4] = {};
    for (int i = 0; i < 4; ++i) {
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i + 1, TensorShape({l.depth}), &t));
      stats[i] = t->base<U>();
    }
    if (ctx->num_outputs() > 5) {  // V3's reserve_space_3: a scalar 0
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({}), &t));
      t->base<U>()[0] = U(0);
    }
    if (x.NumElements() == 0) {
      // No statistics: batch_mean and batch_variance are NaN.
      for (int i = 0; i < 2; ++i) {
        std::fill(stats[i], stats[i] + l.depth,
                  std::numeric_limits<U>::quiet_NaN());
      }
      return;
    }
    const T* xs = x.base<T>();
    T* ys = y->base<T>();
    const U* scale = ctx->input(1).base<U>();
    const U* offset = ctx->input(2).base<U>();
    const U* mean_in = uses_running ? ctx->input(3).base<U>() : nullptr;
    const U* var_in = uses_running ? ctx->input(4).base<U>() : nullptr;
    const double eps = epsilon_;
    const double f = exponential_avg_factor_;
    const bool training = is_training_;
    work->units = l.depth;
    work->cost_per_unit = 8 * l.count();
    work->fn = [=](int64_t begin, int64_t end) {
      const int64_t nc = end - begin;
      const double n = static_cast<double>(l.count());
      std::vector<double> mean(nc, 0.0), var(nc, 0.0);
      if (training) {
        l.ForChannels(begin, end, [&](int64_t j, int64_t k) {
          mean[j] += static_cast<double>(xs[k]);
        });
        for (int64_t j = 0; j < nc; ++j) mean[j] /= n;
        l.ForChannels(begin, end, [&](int64_t j, int64_t k) {
          const double d = static_cast<double>(xs[k]) - mean[j];
          var[j] += d * d;
        });
        for (int64_t j = 0; j < nc; ++j) var[j] /= n;
      } else {
        for (int64_t j = 0; j < nc; ++j) {
          mean[j] = static_cast<double>(mean_in[begin + j]);
          var[j] = static_cast<double>(var_in[begin + j]);
        }
      }
      std::vector<double> factor(nc), shift(nc);
      for (int64_t j = 0; j < nc; ++j) {
        factor[j] =
            static_cast<double>(scale[begin + j]) / std::sqrt(var[j] + eps);
        shift[j] = static_cast<double>(offset[begin + j]);
      }
      l.ForChannels(begin, end, [&](int64_t j, int64_t k) {
        const double v =
            (static_cast<double>(xs[k]) - mean[j]) * factor[j] + shift[j];
        ys[k] = static_cast<T>(static_cast<U>(v));
      });
      for (int64_t j = 0; j < nc; ++j) {
        const int64_t c = begin + j;
        double running_mean = mean[j], running_var = var[j];
        if (training) {
          running_var = var[j] * n / std::max(n - 1, 1.0);
          if (f != 1) {
            running_mean =
                (1 - f) * static_cast<double>(mean_in[c]) + f * mean[j];
            running_var =
                (1 - f) * static_cast<double>(var_in[c]) + f * running_var;
          }
        }
        stats[0][c] = static_cast<U>(running_mean);
        stats[1][c] = static_cast<U>(running_var);
        stats[2][c] = static_cast<U>(mean[j]);
        stats[3][c] = static_cast<U>(var[j]);
      }
    };
  }
};

template <typename T, typename U>
class FusedBatchNormGradOp : public BatchNormBase {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx)
      : BatchNormBase(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, dy.dims() == 4 || dy.dims() == 5,
                NodeInvalidArgument(ctx, "input must be 4 or 5-dimensional",
                                    dy.shape().DebugString()));
    ChannelLayout l;
    OP_REQUIRES_OK(ctx, Layout(x, &l));
    static const char* const kNames[] = {"scale", "saved mean",
                                         "saved variance"};
    for (int i = 2; i < 5; ++i) {
      OP_REQUIRES(
          ctx, ctx->input(i).dims() == 1,
          NodeInvalidArgument(ctx, kNames[i - 2], " must be 1-dimensional",
                              ctx->input(i).shape().DebugString()));
    }
    OP_REQUIRES(ctx, x.shape() == dy.shape(),
                NodeInvalidArgument(
                    ctx,
                    "x and y_backprop must have same shape, but x has "
                    "shape ",
                    x.shape().DebugString(), " and y_backprop has shape ",
                    dy.shape().DebugString()));
    static const char* const kSizeNames[] = {"scale", "reserve_space_1",
                                             "reserve_space_2"};
    for (int i = 2; i < 5; ++i) {
      OP_REQUIRES(
          ctx, ctx->input(i).NumElements() == l.depth,
          NodeInvalidArgument(ctx, kSizeNames[i - 2],
                              " must have the same number of elements as the "
                              "channels of x, got ",
                              ctx->input(i).NumElements(), " and ", l.depth));
    }
    OP_REQUIRES(ctx, is_training_ || channels_last_,
                NodeInvalidArgument(
                    ctx,
                    "The implementation of FusedBatchNormGrad with "
                    "is_training=False only support NHWC tensor format for "
                    "now."));
    Tensor* dx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    U* sums[2] = {};
    for (int i = 0; i < 2; ++i) {
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i + 1, TensorShape({l.depth}), &t));
      sums[i] = t->base<U>();
    }
    for (int i = 3; i < 5; ++i) {
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({0}), &t));
    }
    const T* dys = dy.base<T>();
    const T* xs = x.base<T>();
    T* dxs = dx->base<T>();
    const U* scale = ctx->input(2).base<U>();
    const U* saved_mean = ctx->input(3).base<U>();
    const U* saved_var = ctx->input(4).base<U>();
    const double eps = epsilon_;
    const bool training = is_training_;
    work->units = l.depth;
    work->cost_per_unit = 8 * l.count();
    work->fn = [=](int64_t begin, int64_t end) {
      const int64_t nc = end - begin;
      const double n = static_cast<double>(l.count());
      std::vector<double> inv(nc), sum_dy(nc, 0.0), sum_dy_xc(nc, 0.0);
      // scale_backprop sums dy * normalised x in U, in x's order, as
      // TensorFlow's CPU kernel does: the sum cancels, and its rounding
      // shows.
      std::vector<U> inv_u(nc), scale_bp(nc, U(0));
      for (int64_t j = 0; j < nc; ++j) {
        const int64_t c = begin + j;
        inv[j] = 1.0 / std::sqrt(static_cast<double>(saved_var[c]) + eps);
        inv_u[j] = U(1) / std::sqrt(saved_var[c] + static_cast<U>(eps));
      }
      l.ForChannels(begin, end, [&](int64_t j, int64_t k) {
        const U mean_u = saved_mean[begin + j];
        const double g = static_cast<double>(dys[k]);
        sum_dy[j] += g;
        sum_dy_xc[j] +=
            g * (static_cast<double>(xs[k]) - static_cast<double>(mean_u));
        scale_bp[j] += static_cast<U>(dys[k]) *
                       ((static_cast<U>(xs[k]) - mean_u) * inv_u[j]);
      });
      for (int64_t j = 0; j < nc; ++j) {
        sums[0][begin + j] = scale_bp[j];
        sums[1][begin + j] = static_cast<U>(sum_dy[j]);
      }
      l.ForChannels(begin, end, [&](int64_t j, int64_t k) {
        const int64_t c = begin + j;
        const double s = static_cast<double>(scale[c]);
        const double g = static_cast<double>(dys[k]);
        double v;
        if (training) {
          const double xc =
              static_cast<double>(xs[k]) - static_cast<double>(saved_mean[c]);
          v = s * inv[j] *
              (g - sum_dy[j] / n - xc * inv[j] * inv[j] * sum_dy_xc[j] / n);
        } else {
          v = g * s * inv[j];
        }
        dxs[k] = static_cast<T>(static_cast<U>(v));
      });
    };
  }
};

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormOp<float, float>);
REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormGradOp<float, float>);

#define SF_REGISTER_BATCH_NORM(T)                          \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV2")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormOp<T, float>);     \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormOp<T, float>);     \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV2")     \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormGradOp<T, float>); \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")     \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormGradOp<T, float>);
SF_REGISTER_BATCH_NORM(float)
SF_REGISTER_BATCH_NORM(half)
SF_REGISTER_BATCH_NORM(bfloat16)
#undef SF_REGISTER_BATCH_NORM

}  // namespace
}  // namespace stepflow
