// Conv2D and Conv3D: cross-correlation of a channels-last input with a
// [spatial..., in_depth / groups, out_depth] filter, with strides,
// dilations and SAME / VALID / EXPLICIT padding, through the im2col + GEMM
// engine (conv_engine.h).
//
// As in TensorFlow's CPU kernels: Conv2D accepts grouped convolutions (the
// input depth a multiple of the filter's) and dilations, refuses NCHW
// (Unimplemented) and batch or channel strides (Unimplemented); Conv3D
// accepts neither groups nor dilations above 1 nor NCDHW (InvalidArgument).
// Malformed shapes are InvalidArgument naming the node.
//
// _Conv2DWithEpilogue (float, made by conv_epilogue_fusion.h) is Conv2D
// followed by its ConvEpilogue, applied block by block.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/conv_engine.h"
#include "runtime/kernels/conv_epilogue.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

constexpr char kZeroFilterMessage[] =
    "filter must not have zero elements (i.e. all dimensions must be "
    "non-zero)";

template <typename T, int kSpatial, bool kEpilogue = false>
class ConvOp : public AsyncOpKernel {
 public:
  explicit ConvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    if (kEpilogue) {
      OP_REQUIRES_OK(ctx, ConvEpilogue::FromAttrs(ctx, &epilogue_steps_));
    }
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, *this, kSpatial, &attrs_));
    ConvAttrPolicy policy;
    if (kSpatial == 2) {
      policy.channels_first_code = absl::StatusCode::kUnimplemented;
      policy.batch_stride_code = absl::StatusCode::kUnimplemented;
    } else {
      policy.dilations = ConvAttrPolicy::Dilations::kRefuse;
    }
    OP_REQUIRES_OK(ctx, ValidateConvAttrs(*this, attrs_, policy));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    constexpr int kRank = kSpatial + 2;
    OP_REQUIRES_ASYNC(
        ctx, input.dims() == kRank,
        NodeInvalidArgument(ctx, "input must be ", kRank, "-dimensional",
                            input.shape().DebugString()),
        done);
    OP_REQUIRES_ASYNC(
        ctx, filter.dims() == kRank,
        NodeInvalidArgument(ctx, "filter must be ", kRank,
                            "-dimensional: ", filter.shape().DebugString()),
        done);
    ConvGeometry geo;
    geo.batch = input.dim_size(0);
    geo.in_depth = input.dim_size(kRank - 1);
    const int64_t filter_depth = filter.dim_size(kSpatial);
    geo.out_depth = filter.dim_size(kSpatial + 1);
    OP_REQUIRES_ASYNC(
        ctx, geo.in_depth % filter_depth == 0,
        NodeInvalidArgument(ctx,
                            "input depth must be evenly divisible by filter "
                            "depth: ",
                            geo.in_depth, " vs ", filter_depth),
        done);
    geo.groups = geo.in_depth / filter_depth;
    OP_REQUIRES_ASYNC(
        ctx, kSpatial == 2 || geo.groups == 1,
        NodeInvalidArgument(ctx, "Number of channels in filter (", filter_depth,
                            ") must match last dimension of input (",
                            geo.in_depth, ")"),
        done);
    OP_REQUIRES_ASYNC(
        ctx, geo.out_depth % geo.groups == 0,
        NodeInvalidArgument(ctx,
                            "output depth must be evenly divisible by "
                            "number of groups: ",
                            geo.out_depth, " vs ", geo.groups),
        done);
    int64_t in_spatial[3], filter_spatial[3];
    for (int i = 0; i < kSpatial; ++i) {
      in_spatial[i] = input.dim_size(1 + i);
      filter_spatial[i] = filter.dim_size(i);
    }
    OP_REQUIRES_OK_ASYNC(
        ctx,
        ComputeConvGeometry(*this, attrs_, in_spatial, filter_spatial, &geo),
        done);
    // Conv3D refuses an empty filter before looking at the output.
    OP_REQUIRES_ASYNC(ctx, kSpatial == 2 || filter.NumElements() > 0,
                      NodeInvalidArgument(ctx, kZeroFilterMessage), done);
    const TensorShape shape = ConvOutputShape(geo, kSpatial);
    OP_REQUIRES_OK_ASYNC(
        ctx, CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value), done);
    Tensor* out = nullptr;
    // LaunchConv writes every element.
    OP_REQUIRES_OK_ASYNC(
        ctx, ctx->allocate_output(0, shape, &out, TensorFill::kUninitialized),
        done);
    if (out->NumElements() == 0) {
      done();
      return;
    }
    // Conv2D checks this only for a non-empty output, as TensorFlow does.
    OP_REQUIRES_ASYNC(ctx, filter.NumElements() > 0,
                      NodeInvalidArgument(ctx, kZeroFilterMessage), done);
    // Conv2D computes 16-bit types in float; Conv3D sums in the type.
    const ConvNumerics numerics =
        kSpatial == 2 ? ConvNumerics::kWide : ConvNumerics::kNarrow;
    if constexpr (kEpilogue) {
      auto epilogue = std::make_shared<ConvEpilogue>();
      OP_REQUIRES_OK_ASYNC(ctx,
                           ConvEpilogue::Bind(ctx, epilogue_steps_, 2,
                                              geo.out_depth, epilogue.get()),
                           done);
      const ConvEpilogue* e = epilogue.get();
      LaunchConv<T>(
          ctx, ConvPass::kForward, numerics, geo, input, filter, out,
          [epilogue = std::move(epilogue), done = std::move(done)]() {
            done();
          },
          e);
      return;
    }
    LaunchConv<T>(ctx, ConvPass::kForward, numerics, geo, input, filter, out,
                  std::move(done));
  }

 private:
  ConvAttrs attrs_;
  std::vector<ConvEpilogue::Step> epilogue_steps_;  // kEpilogue only
};

#define SF_REGISTER_CONV2D(T) \
  REGISTER_KERNEL_BUILDER(    \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), ConvOp<T, 2>);
#define SF_REGISTER_CONV3D(T) \
  REGISTER_KERNEL_BUILDER(    \
      Name("Conv3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), ConvOp<T, 3>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_CONV2D)
SF_REGISTER_CONV2D(int32_t)
SF_CALL_FLOAT_TYPES(SF_REGISTER_CONV3D)
REGISTER_KERNEL_BUILDER(
    Name("_Conv2DWithEpilogue").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    ConvOp<float, 2, /*kEpilogue=*/true>);
#undef SF_REGISTER_CONV2D
#undef SF_REGISTER_CONV3D

}  // namespace
}  // namespace stepflow
