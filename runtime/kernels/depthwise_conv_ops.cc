// DepthwiseConv2dNative and its gradients: each input channel c convolved
// with its own filter[:, :, c, :] (channel multiplier M), giving output
// channels c * M .. c * M + M - 1, with strides and SAME / VALID /
// EXPLICIT padding. A direct loop per output position whose innermost loop
// runs over the contiguous channels (vectorised by the compiler); half and
// bfloat16 accumulate in float.
//
// As TensorFlow's CPU kernels: channels-first data is Unimplemented, row
// and column strides must be equal and batch/channel strides 1
// (InvalidArgument), the forward op refuses dilation rates above 1
// (Unimplemented) and the gradients ignore the dilations attr. Mismatched
// shapes are InvalidArgument naming the node.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// The depthwise geometry: ConvGeometry's H and W, in_depth channels,
// `multiplier` filters per channel.
struct DepthwiseShape {
  ConvGeometry geo;
  int64_t multiplier = 1;
};

// Calls fn(out_offset, in_offset, filter_offset) for each output position
// of image b and each filter tap inside the input; the offsets are in
// elements at channel 0 (out and filter rows have in_depth * M channels,
// input rows in_depth).
template <typename Fn>
void ForEachWindow(const DepthwiseShape& d, int64_t b, Fn&& fn) {
  const ConvGeometry& g = d.geo;
  const int64_t out_c = g.in_depth * d.multiplier;
  for (int64_t oy = 0; oy < g.out[1]; ++oy) {
    for (int64_t ox = 0; ox < g.out[2]; ++ox) {
      const int64_t out_off = ((b * g.out[1] + oy) * g.out[2] + ox) * out_c;
      for (int64_t ky = 0; ky < g.filter[1]; ++ky) {
        const int64_t iy = oy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
        if (iy < 0 || iy >= g.in[1]) continue;
        for (int64_t kx = 0; kx < g.filter[2]; ++kx) {
          const int64_t ix = ox * g.stride[2] - g.pad[2] + kx * g.dilation[2];
          if (ix < 0 || ix >= g.in[2]) continue;
          fn(out_off, ((b * g.in[1] + iy) * g.in[2] + ix) * g.in_depth,
             (ky * g.filter[2] + kx) * out_c);
        }
      }
    }
  }
}

template <typename T>
using AccumT = typename AccumType<T>::type;

// half and bfloat16 round every partial sum to their type, as TensorFlow's
// CPU kernels do (so the last bits agree); other types sum exactly in T.
template <typename T>
constexpr bool kNarrow =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

template <typename T>
inline AccumT<T> Round(AccumT<T> v) {
  if constexpr (kNarrow<T>) {
    return static_cast<AccumT<T>>(T(v));
  } else {
    return v;
  }
}

// Widens t into a vector of A (a copy for every type, so all three
// kernels read one layout).
template <typename T>
absl::Status Widen(OpKernelContext* ctx, const Tensor& t, Tensor* out) {
  using A = AccumT<T>;
  absl::Status s = ctx->allocate_temp(DataTypeToEnum<A>::value, t.shape(), out);
  if (!s.ok()) return s;
  Eigen::Map<Eigen::Array<A, Eigen::Dynamic, 1>>(out->base<A>(),
                                                 t.NumElements()) =
      Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(t.base<T>(),
                                                           t.NumElements())
          .template cast<A>();
  return absl::OkStatus();
}

template <typename T>
void Narrow(const AccumT<T>* from, Tensor* to) {
  using A = AccumT<T>;
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(to->base<T>(),
                                                 to->NumElements()) =
      Eigen::Map<const Eigen::Array<A, Eigen::Dynamic, 1>>(from,
                                                           to->NumElements())
          .template cast<T>();
}

enum class DepthwisePass { kForward, kBackpropInput, kBackpropFilter };

template <typename T, DepthwisePass kPass>
class DepthwiseConvOp : public OpKernel {
 public:
  explicit DepthwiseConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, *this, 2, &attrs_));
    ConvAttrPolicy policy;
    policy.channels_first_code = absl::StatusCode::kUnimplemented;
    policy.equal_strides = true;
    if (kPass == DepthwisePass::kForward) {
      policy.dilations = ConvAttrPolicy::Dilations::kRefuse;
      policy.dilation_code = absl::StatusCode::kUnimplemented;
    } else {
      policy.dilations = ConvAttrPolicy::Dilations::kIgnore;
    }
    OP_REQUIRES_OK(ctx, ValidateConvAttrs(*this, attrs_, policy));
    attrs_.dilations.assign(4, 1);
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> in_dims, filter_dims;
    const Tensor* out_backprop = nullptr;
    switch (kPass) {
      case DepthwisePass::kForward:
        OP_REQUIRES_OK(ctx, Rank4(ctx->input(0), "input", &in_dims));
        OP_REQUIRES_OK(ctx, Rank4(ctx->input(1), "filter", &filter_dims));
        break;
      case DepthwisePass::kBackpropInput:
        OP_REQUIRES_OK(ctx, ReadSizesTensor(*this, ctx->input(0), 4,
                                            "input_sizes", &in_dims));
        OP_REQUIRES_OK(ctx, Rank4(ctx->input(1), "filter", &filter_dims));
        out_backprop = &ctx->input(2);
        break;
      case DepthwisePass::kBackpropFilter:
        OP_REQUIRES_OK(ctx, Rank4(ctx->input(0), "input", &in_dims));
        OP_REQUIRES_OK(ctx, ReadSizesTensor(*this, ctx->input(1), 4,
                                            "filter_sizes", &filter_dims));
        out_backprop = &ctx->input(2);
        break;
    }
    DepthwiseShape d;
    d.geo.batch = in_dims[0];
    d.geo.in_depth = in_dims[3];
    d.multiplier = filter_dims[3];
    OP_REQUIRES(ctx, in_dims[3] == filter_dims[2],
                NodeInvalidArgument(ctx,
                                    "input and filter must have the same "
                                    "depth: ",
                                    in_dims[3], " vs ", filter_dims[2]));
    d.geo.out_depth = d.geo.in_depth * d.multiplier;
    OP_REQUIRES_OK(ctx, ComputeConvGeometry(*this, attrs_, in_dims.data() + 1,
                                            filter_dims.data(), &d.geo));
    if (out_backprop != nullptr) {
      OP_REQUIRES_OK(
          ctx, CheckOutBackpropShape(*this, d.geo, 2, out_backprop->shape()));
    }
    TensorShape shape;
    switch (kPass) {
      case DepthwisePass::kForward:
        shape = ConvOutputShape(d.geo, 2);
        break;
      case DepthwisePass::kBackpropInput:
        shape = ConvInputShape(d.geo, 2);
        break;
      case DepthwisePass::kBackpropFilter:
        shape = TensorShape(filter_dims);
        break;
    }
    OP_REQUIRES_OK(ctx,
                   CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    using A = AccumT<T>;
    Tensor a, b, result;
    OP_REQUIRES_OK(
        ctx,
        Widen<T>(ctx,
                 ctx->input(kPass == DepthwisePass::kBackpropInput ? 1 : 0),
                 &a));
    OP_REQUIRES_OK(
        ctx, Widen<T>(ctx, ctx->input(kPass == DepthwisePass::kForward ? 1 : 2),
                      &b));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_temp(DataTypeToEnum<A>::value, shape, &result));
    A* r = result.base<A>();
    std::fill_n(r, result.NumElements(), A(0));
    const A* x = a.base<A>();
    const A* y = b.base<A>();
    const int64_t channels = d.geo.in_depth;
    const int64_t m = d.multiplier;
    // The 16-bit filter gradient: each image's sums, then their sum.
    Tensor per_image;
    A* image_sum = nullptr;
    if (kNarrow<T> && kPass == DepthwisePass::kBackpropFilter) {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_temp(DataTypeToEnum<A>::value, shape, &per_image));
      image_sum = per_image.base<A>();
    }
    for (int64_t img = 0; img < d.geo.batch; ++img) {
      if (image_sum != nullptr) {
        std::fill_n(image_sum, per_image.NumElements(), A(0));
      }
      ForEachWindow(d, img, [&](int64_t o, int64_t i, int64_t f) {
        if (kPass == DepthwisePass::kForward) {
          // x = input, y = filter, r = output.
          A* dst = r + o;
          const A* w = y + f;
          const A* src = x + i;
          if (m == 1) {
            for (int64_t c = 0; c < channels; ++c) {
              dst[c] = Round<T>(dst[c] + src[c] * w[c]);
            }
          } else {
            for (int64_t c = 0; c < channels; ++c) {
              const A v = src[c];
              for (int64_t j = 0; j < m; ++j) {
                dst[c * m + j] = Round<T>(dst[c * m + j] + v * w[c * m + j]);
              }
            }
          }
        } else if (kPass == DepthwisePass::kBackpropInput) {
          // x = filter, y = out_backprop, r = d input.
          A* dst = r + i;
          const A* w = x + f;
          const A* dy = y + o;
          if (m == 1) {
            for (int64_t c = 0; c < channels; ++c) dst[c] += dy[c] * w[c];
          } else {
            for (int64_t c = 0; c < channels; ++c) {
              A sum = 0;
              for (int64_t j = 0; j < m; ++j)
                sum += dy[c * m + j] * w[c * m + j];
              dst[c] += sum;
            }
          }
        } else {
          // x = input, y = out_backprop, r = d filter (per image first
          // for the 16-bit types).
          A* dst = (kNarrow<T> ? image_sum : r) + f;
          const A* src = x + i;
          const A* dy = y + o;
          if (m == 1) {
            for (int64_t c = 0; c < channels; ++c) {
              dst[c] = Round<T>(dst[c] + src[c] * dy[c]);
            }
          } else {
            for (int64_t c = 0; c < channels; ++c) {
              const A v = src[c];
              for (int64_t j = 0; j < m; ++j) {
                dst[c * m + j] = Round<T>(dst[c * m + j] + v * dy[c * m + j]);
              }
            }
          }
        }
      });
      if (image_sum != nullptr) {
        for (int64_t e = 0; e < per_image.NumElements(); ++e) {
          r[e] = Round<T>(r[e] + image_sum[e]);
        }
      }
    }
    Narrow<T>(r, out);
  }

 private:
  absl::Status Rank4(const Tensor& t, const char* what,
                     std::vector<int64_t>* dims) const {
    if (t.dims() != 4) {
      return NodeInvalidArgument(
          *this, what, " must be 4-dimensional: ", t.shape().DebugString());
    }
    dims->clear();
    for (int i = 0; i < 4; ++i) dims->push_back(t.dim_size(i));
    return absl::OkStatus();
  }

  ConvAttrs attrs_;
};

#define SF_REGISTER_DEPTHWISE(T)                                               \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConvOp<T, DepthwisePass::kForward>);                            \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNativeBackpropInput")           \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T"),                         \
                          DepthwiseConvOp<T, DepthwisePass::kBackpropInput>);  \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNativeBackpropFilter")          \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T"),                         \
                          DepthwiseConvOp<T, DepthwisePass::kBackpropFilter>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_DEPTHWISE)
#undef SF_REGISTER_DEPTHWISE

}  // namespace
}  // namespace stepflow
