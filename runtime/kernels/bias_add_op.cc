// BiasAdd: adds a 1-D bias along the channel dimension (last for NHWC,
// dim 1 for NCHW). Errors (InvalidArgument naming the node): value rank < 2,
// bias not 1-D, bias length != channel count, unknown data_format.
#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format = "NHWC";
    if (ctx->HasAttr("data_format")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    }
    OP_REQUIRES(ctx, format == "NHWC" || format == "NCHW",
                NodeInvalidArgument(*this, "Invalid data format: ", format));
    nchw_ = format == "NCHW";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, value.dims() >= 2,
                NodeInvalidArgument(ctx, "Input tensor must be at least 2D: ",
                                    value.shape().DebugString()));
    OP_REQUIRES(ctx, bias.dims() == 1,
                NodeInvalidArgument(
                    ctx, "Biases must be 1D: ", bias.shape().DebugString()));
    const int channel_dim = nchw_ ? 1 : value.dims() - 1;
    const int64_t channels = value.dim_size(channel_dim);
    OP_REQUIRES(
        ctx, bias.dim_size(0) == channels,
        NodeInvalidArgument(
            ctx,
            "Must provide as many biases as the channel dimension of the "
            "input tensor: ",
            bias.shape().DebugString(), " vs. ", value.shape().DebugString()));
    Tensor* out = nullptr;
    if (ctx->input_is_ref(0)) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              0, 0, value.shape(), &out));
    }
    if (value.NumElements() == 0) return;
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < value.dims(); ++d) {
      inner *= value.dim_size(d);
    }
    const int64_t outer = value.NumElements() / (channels * inner);
    using C = ArithType<T>;
    using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
    const C* in = reinterpret_cast<const C*>(value.base<T>());
    const C* b = reinterpret_cast<const C*>(bias.base<T>());
    C* o = reinterpret_cast<C*>(out->base<T>());
    Eigen::Map<const Array> bm(b, channels);
    if (inner == 1) {
      for (int64_t r = 0; r < outer; ++r) {
        Eigen::Map<Array>(o + r * channels, channels) =
            Eigen::Map<const Array>(in + r * channels, channels) + bm;
      }
      return;
    }
    for (int64_t r = 0; r < outer; ++r) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t off = (r * channels + c) * inner;
        Eigen::Map<Array>(o + off, inner) =
            Eigen::Map<const Array>(in + off, inner) + b[c];
      }
    }
  }

 private:
  bool nchw_ = false;
};

#define SF_REGISTER_BIAS_ADD(T)                                  \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BiasAddOp<T>);
SF_CALL_NUMBER_TYPES(SF_REGISTER_BIAS_ADD)
#undef SF_REGISTER_BIAS_ADD

}  // namespace
}  // namespace stepflow
