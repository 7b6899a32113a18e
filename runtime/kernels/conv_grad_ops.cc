// The gradients of Conv2D and Conv3D: Conv2DBackpropInput /
// Conv3DBackpropInputV2 (d input from the filter and d output; the input's
// shape comes as a size tensor) and Conv2DBackpropFilter /
// Conv3DBackpropFilterV2 (d filter from the input and d output; the
// filter's shape comes as a size tensor), through the im2col + GEMM engine
// (conv_engine.h).
//
// As TensorFlow's CPU kernels, both refuse channels-first data, dilation
// rates above 1 and grouped convolutions (InvalidArgument), and batch or
// channel strides (Unimplemented for Conv2DBackpropInput, InvalidArgument
// otherwise). Conv2DBackpropInput also takes input_sizes of two elements
// (height and width; batch and depth then come from out_backprop and the
// filter). Shapes that do not agree with the forward convolution are
// InvalidArgument naming the node.
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/conv_engine.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// What the gradient kernels share: attrs, and the geometry from the
// input's and filter's shapes, checked against out_backprop.
template <int kSpatial>
class ConvGradBase : public AsyncOpKernel {
 public:
  ConvGradBase(OpKernelConstruction* ctx, absl::StatusCode batch_stride_code)
      : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, *this, kSpatial, &attrs_));
    ConvAttrPolicy policy;
    policy.batch_stride_code = batch_stride_code;
    policy.dilations = ConvAttrPolicy::Dilations::kRefuse;
    OP_REQUIRES_OK(ctx, ValidateConvAttrs(*this, attrs_, policy));
  }

 protected:
  static constexpr int kRank = kSpatial + 2;

  absl::Status Geometry(const std::vector<int64_t>& input_dims,
                        const std::vector<int64_t>& filter_dims,
                        const TensorShape& out_backprop,
                        ConvGeometry* geo) const {
    if (out_backprop.dims() != kRank) {
      return NodeInvalidArgument(*this, "out_backprop must be ", kRank,
                                 "-dimensional, got ",
                                 out_backprop.DebugString());
    }
    geo->batch = input_dims[0];
    geo->in_depth = input_dims[kRank - 1];
    geo->out_depth = filter_dims[kRank - 1];
    if (geo->in_depth != filter_dims[kSpatial]) {
      return NodeInvalidArgument(
          *this,
          "Gradients for grouped convolutions are not supported on CPU. "
          "Computed input depth ",
          geo->in_depth, " doesn't match filter input depth ",
          filter_dims[kSpatial]);
    }
    geo->groups = 1;
    absl::Status s = ComputeConvGeometry(*this, attrs_, input_dims.data() + 1,
                                         filter_dims.data(), geo);
    if (!s.ok()) return s;
    return CheckOutBackpropShape(*this, *geo, kSpatial, out_backprop);
  }

  static std::vector<int64_t> Dims(const TensorShape& shape) {
    std::vector<int64_t> dims;
    for (int i = 0; i < shape.dims(); ++i) dims.push_back(shape.dim_size(i));
    return dims;
  }

  ConvAttrs attrs_;
};

// The order TensorFlow's CPU kernels sum 16-bit gradients in: Conv3D's
// gather over output positions, Conv2D's im2col products.
template <int kSpatial>
constexpr ConvNumerics kGradNumerics =
    kSpatial == 3 ? ConvNumerics::kNarrowGather : ConvNumerics::kNarrow;

template <typename T, int kSpatial>
class ConvBackpropInputOp : public ConvGradBase<kSpatial> {
  using Base = ConvGradBase<kSpatial>;
  using Base::kRank;

 public:
  explicit ConvBackpropInputOp(OpKernelConstruction* ctx)
      : Base(ctx, kSpatial == 2 ? absl::StatusCode::kUnimplemented
                                : absl::StatusCode::kInvalidArgument) {}

  void ComputeAsync(OpKernelContext* ctx,
                    AsyncOpKernel::DoneCallback done) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_ASYNC(
        ctx, filter.dims() == kRank,
        NodeInvalidArgument(ctx, "filter must be ", kRank, "-dimensional, got ",
                            filter.shape().DebugString()),
        done);
    OP_REQUIRES_ASYNC(ctx, out_backprop.dims() == kRank,
                      NodeInvalidArgument(ctx, "out_backprop must be ", kRank,
                                          "-dimensional, got ",
                                          out_backprop.shape().DebugString()),
                      done);
    std::vector<int64_t> input_dims;
    if (kSpatial == 2 && sizes.dims() == 1 && sizes.NumElements() == 2) {
      std::vector<int64_t> hw;
      OP_REQUIRES_OK_ASYNC(
          ctx, ReadSizesTensor(*this, sizes, 2, "input_sizes", &hw), done);
      input_dims = {out_backprop.dim_size(0), hw[0], hw[1], filter.dim_size(2)};
    } else {
      OP_REQUIRES_OK_ASYNC(
          ctx, ReadSizesTensor(*this, sizes, kRank, "input_sizes", &input_dims),
          done);
    }
    ConvGeometry geo;
    OP_REQUIRES_OK_ASYNC(ctx,
                         this->Geometry(input_dims, Base::Dims(filter.shape()),
                                        out_backprop.shape(), &geo),
                         done);
    TensorShape shape;
    OP_REQUIRES_OK_ASYNC(
        ctx,
        MakeOutputShape(*this, input_dims, DataTypeToEnum<T>::value, &shape),
        done);
    Tensor* out = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, shape, &out), done);
    LaunchConv<T>(ctx, ConvPass::kBackpropInput, kGradNumerics<kSpatial>, geo,
                  filter, out_backprop, out, std::move(done));
  }
};

template <typename T, int kSpatial>
class ConvBackpropFilterOp : public ConvGradBase<kSpatial> {
  using Base = ConvGradBase<kSpatial>;
  using Base::kRank;

 public:
  explicit ConvBackpropFilterOp(OpKernelConstruction* ctx)
      : Base(ctx, absl::StatusCode::kInvalidArgument) {}

  void ComputeAsync(OpKernelContext* ctx,
                    AsyncOpKernel::DoneCallback done) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_ASYNC(
        ctx, input.dims() == kRank,
        NodeInvalidArgument(ctx, "input must be ", kRank, "-dimensional, got ",
                            input.shape().DebugString()),
        done);
    std::vector<int64_t> filter_dims;
    OP_REQUIRES_OK_ASYNC(
        ctx, ReadSizesTensor(*this, sizes, kRank, "filter_sizes", &filter_dims),
        done);
    ConvGeometry geo;
    OP_REQUIRES_OK_ASYNC(ctx,
                         this->Geometry(Base::Dims(input.shape()), filter_dims,
                                        out_backprop.shape(), &geo),
                         done);
    TensorShape shape;
    OP_REQUIRES_OK_ASYNC(
        ctx,
        MakeOutputShape(*this, filter_dims, DataTypeToEnum<T>::value, &shape),
        done);
    Tensor* out = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, shape, &out), done);
    LaunchConv<T>(ctx, ConvPass::kBackpropFilter, kGradNumerics<kSpatial>, geo,
                  input, out_backprop, out, std::move(done));
  }
};

#define SF_REGISTER_CONV_GRADS(T)                                              \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      ConvBackpropInputOp<T, 2>);                                              \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ConvBackpropFilterOp<T, 2>);                                             \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("Conv3DBackpropInputV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ConvBackpropInputOp<T, 3>);                                              \
  REGISTER_KERNEL_BUILDER(Name("Conv3DBackpropFilterV2")                       \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T"),                         \
                          ConvBackpropFilterOp<T, 3>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_CONV_GRADS)
#undef SF_REGISTER_CONV_GRADS
REGISTER_KERNEL_BUILDER(
    Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    ConvBackpropInputOp<int32_t, 2>);

}  // namespace
}  // namespace stepflow
