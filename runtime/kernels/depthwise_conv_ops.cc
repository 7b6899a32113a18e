// DepthwiseConv2dNative and its gradients: each input channel c convolved
// with its own filter[:, :, c, :] (channel multiplier M), giving output
// channels c * M .. c * M + M - 1, with strides and SAME / VALID /
// EXPLICIT padding. A direct loop per output position whose innermost loop
// runs over the contiguous channels; float with a channel multiplier of 1
// runs the loops of depthwise_conv_float.h (vectorised for the widest ISA
// the CPU has), other cases a generic loop. Images (and, for the forward
// op and the float input gradient, rows) are split across the Env's
// Scheduler threads; the filter gradient sums each
// image separately and adds the images in order, so its bits do not depend
// on the thread count. half and bfloat16 compute in float, rounding the
// partial sums to their type where TensorFlow's kernels do.
//
// As TensorFlow's CPU kernels: channels-first data is Unimplemented, row
// and column strides must be equal and batch/channel strides 1
// (InvalidArgument), the forward op refuses dilation rates above 1
// (Unimplemented) and the gradients ignore the dilations attr. Mismatched
// shapes are InvalidArgument naming the node.
//
// _DepthwiseConv2dNativeWithEpilogue (float, made by
// conv_epilogue_fusion.h) is the forward op followed by its ConvEpilogue.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "runtime/env/env.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/conv_epilogue.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/depthwise_conv_float.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/parallel_for.h"

namespace stepflow {
namespace {

// The depthwise geometry: ConvGeometry's H and W, in_depth channels,
// `multiplier` filters per channel.
struct DepthwiseShape {
  ConvGeometry geo;
  int64_t multiplier = 1;
};

// Calls fn(out_offset, in_offset, filter_offset) for each output position
// of image b in output rows [oy_begin, oy_end) and each filter tap inside
// the input; the offsets are in
// elements at channel 0 (out and filter rows have in_depth * M channels,
// input rows in_depth).
template <typename Fn>
void ForEachWindow(const DepthwiseShape& d, int64_t b, int64_t oy_begin,
                   int64_t oy_end, Fn&& fn) {
  const ConvGeometry& g = d.geo;
  const int64_t out_c = g.in_depth * d.multiplier;
  for (int64_t oy = oy_begin; oy < oy_end; ++oy) {
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

// dst[c] += a[c] * b[c] over n channels: Eigen's vectorised expression for
// the exact types, a scalar loop rounding each sum for the 16-bit ones.
template <typename T>
inline void MultiplyAdd(const AccumT<T>* a, const AccumT<T>* b, int64_t n,
                        AccumT<T>* dst) {
  using A = AccumT<T>;
  if constexpr (kNarrow<T>) {
    for (int64_t c = 0; c < n; ++c) dst[c] = Round<T>(dst[c] + a[c] * b[c]);
  } else {
    using Vec = Eigen::Array<A, Eigen::Dynamic, 1>;
    Eigen::Map<Vec>(dst, n) +=
        Eigen::Map<const Vec>(a, n) * Eigen::Map<const Vec>(b, n);
  }
}

// One image's share of a pass, in A: forward (x = input, y = filter,
// r = output), input gradient (x = filter, y = out_backprop, r = d input)
// or filter gradient (x = input, y = out_backprop, r = this image's
// d filter), over output rows [oy_begin, oy_end). r starts zeroed.
template <typename T, DepthwisePass kPass>
void DepthwiseImage(const DepthwiseShape& d, int64_t img, int64_t oy_begin,
                    int64_t oy_end, const AccumT<T>* x, const AccumT<T>* y,
                    AccumT<T>* r) {
  using A = AccumT<T>;
  const int64_t channels = d.geo.in_depth;
  const int64_t m = d.multiplier;
  ForEachWindow(d, img, oy_begin, oy_end, [&](int64_t o, int64_t i, int64_t f) {
    if (kPass == DepthwisePass::kForward) {
      A* dst = r + o;
      const A* w = y + f;
      const A* src = x + i;
      if (m == 1) {
        MultiplyAdd<T>(src, w, channels, dst);
      } else {
        for (int64_t c = 0; c < channels; ++c) {
          const A v = src[c];
          for (int64_t j = 0; j < m; ++j) {
            dst[c * m + j] = Round<T>(dst[c * m + j] + v * w[c * m + j]);
          }
        }
      }
    } else if (kPass == DepthwisePass::kBackpropInput) {
      A* dst = r + i;
      const A* w = x + f;
      const A* dy = y + o;
      if (m == 1 && !kNarrow<T>) {
        MultiplyAdd<T>(dy, w, channels, dst);
      } else if (m == 1) {
        for (int64_t c = 0; c < channels; ++c) dst[c] += dy[c] * w[c];
      } else {
        for (int64_t c = 0; c < channels; ++c) {
          A sum = 0;
          for (int64_t j = 0; j < m; ++j) sum += dy[c * m + j] * w[c * m + j];
          dst[c] += sum;
        }
      }
    } else {
      A* dst = r + f;
      const A* src = x + i;
      const A* dy = y + o;
      if (m == 1) {
        MultiplyAdd<T>(src, dy, channels, dst);
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
}

// Whether the pass runs the vectorised float loops (depthwise_conv_float.h).
template <typename T>
bool UsesFloatLoops(const DepthwiseShape& d) {
  return std::is_same<T, float>::value && d.multiplier == 1;
}

depthwise::FloatGeometry FloatGeometryOf(const DepthwiseShape& d) {
  const ConvGeometry& g = d.geo;
  depthwise::FloatGeometry f;
  f.in_rows = g.in[1];
  f.in_cols = g.in[2];
  f.out_rows = g.out[1];
  f.out_cols = g.out[2];
  f.filter_rows = g.filter[1];
  f.filter_cols = g.filter[2];
  f.channels = g.in_depth;
  f.stride = g.stride[1];
  f.pad_top = g.pad[1];
  f.pad_left = g.pad[2];
  return f;
}

// Runs the float loops for unit rows [row_begin, row_end) of image b
// (rows of the output, or of the input gradient; the filter gradient's
// unit is the whole image).
template <DepthwisePass kPass>
void DepthwiseImageFloat(const depthwise::FloatGeometry& f, int64_t b,
                         int64_t row_begin, int64_t row_end, const float* x,
                         const float* y, float* r) {
  const depthwise::FloatKernels& k = depthwise::BestKernels();
  const int64_t in_image = f.in_rows * f.in_cols * f.channels;
  const int64_t out_image = f.out_rows * f.out_cols * f.channels;
  switch (kPass) {
    case DepthwisePass::kForward:
      k.forward(f, x + b * in_image, y, row_begin, row_end, r + b * out_image);
      break;
    case DepthwisePass::kBackpropInput:
      k.backprop_input(f, x, y + b * out_image, row_begin, row_end,
                       r + b * in_image);
      break;
    case DepthwisePass::kBackpropFilter:
      k.backprop_filter(f, x + b * in_image, y + b * out_image, r);
      break;
  }
}

// Below this many multiply-adds per piece the work stays on one thread.
constexpr int64_t kMinFlopsPerPiece = int64_t{1} << 20;

// What the pieces of one run share; freed after the last.
template <typename T>
struct DepthwiseJob {
  using A = AccumT<T>;
  DepthwiseShape d;
  const A* x = nullptr;
  const A* y = nullptr;
  A* r = nullptr;            // the result in A (the output itself for A = T)
  A* per_image = nullptr;    // filter gradient: one sum per image
  int64_t image_stride = 0;  // elements of r (or per_image) per image
  int pieces = 1;
  std::vector<Tensor> keep;  // buffers the pointers above point into
  // _DepthwiseConv2dNativeWithEpilogue: applied to the float loops' rows
  // as each piece finishes them, else to the whole result at the end.
  ConvEpilogue epilogue;
};

template <typename T, DepthwisePass kPass, bool kEpilogue = false>
class DepthwiseConvOp : public AsyncOpKernel {
  using A = AccumT<T>;
  static_assert(!kEpilogue || (kPass == DepthwisePass::kForward &&
                               std::is_same<T, float>::value));

 public:
  explicit DepthwiseConvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    if (kEpilogue) {
      OP_REQUIRES_OK(ctx, ConvEpilogue::FromAttrs(ctx, &epilogue_steps_));
    }
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

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto job = std::make_shared<DepthwiseJob<T>>();
    Tensor* out = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, Prepare(ctx, job.get(), &out), done);
    if (out == nullptr) {  // empty result
      done();
      return;
    }
    const DepthwiseShape& d = job->d;
    if constexpr (kEpilogue) {
      OP_REQUIRES_OK_ASYNC(ctx,
                           ConvEpilogue::Bind(ctx, epilogue_steps_, 2,
                                              d.geo.out_depth, &job->epilogue),
                           done);
    }
    Scheduler* scheduler =
        ctx->env() == nullptr ? nullptr : ctx->env()->scheduler;
    const int threads = scheduler == nullptr ? 1 : scheduler->NumThreads();
    const double flops = static_cast<double>(d.geo.batch) *
                         d.geo.out_positions() * d.geo.filter_positions() *
                         d.geo.out_depth;
    // Work units: images, or for the forward op (whose output rows are
    // independent) image rows, so that one image uses every thread too;
    // the float input gradient's rows are independent as well.
    const bool float_loops = UsesFloatLoops<T>(d);
    const int64_t rows =
        kPass == DepthwisePass::kForward
            ? d.geo.out[1]
            : (kPass == DepthwisePass::kBackpropInput && float_loops
                   ? d.geo.in[1]
                   : 1);
    const int64_t units = d.geo.batch * rows;
    job->pieces = static_cast<int>(std::max<int64_t>(
        1,
        std::min<int64_t>({threads, units,
                           static_cast<int64_t>(flops / kMinFlopsPerPiece)})));
    auto finish = [job, out, done = std::move(done)]() {
      if (kPass == DepthwisePass::kBackpropFilter) {
        // The images' sums, added in image order.
        const int64_t n = out->NumElements();
        std::fill_n(job->r, n, A(0));
        for (int64_t b = 0; b < job->d.geo.batch; ++b) {
          const A* part = job->per_image + b * n;
          for (int64_t e = 0; e < n; ++e) {
            job->r[e] = Round<T>(job->r[e] + part[e]);
          }
        }
      }
      if constexpr (kNarrow<T>) Narrow<T>(job->r, out);
      if constexpr (kEpilogue) {
        if (!UsesFloatLoops<T>(job->d)) {
          job->epilogue.Apply(job->r,
                              out->NumElements() / job->d.geo.out_depth);
        }
      }
      done();
    };
    ParallelForAsync(
        scheduler, job->pieces,
        [job, units, rows, float_loops](int piece) {
          const int64_t begin = units * piece / job->pieces;
          const int64_t end = units * (piece + 1) / job->pieces;
          const int64_t out_rows = job->d.geo.out[1];
          for (int64_t u = begin; u < end; ++u) {
            const int64_t b = u / rows;
            A* r = kPass == DepthwisePass::kBackpropFilter
                       ? job->per_image + b * job->image_stride
                       : job->r;
            if constexpr (std::is_same<T, float>::value) {
              if (float_loops) {
                // This piece's rows of image b in one call.
                const int64_t row = u % rows;
                const int64_t last = std::min(end, (b + 1) * rows);
                const int64_t row_end = row + (last - u);
                DepthwiseImageFloat<kPass>(FloatGeometryOf(job->d), b, row,
                                           row_end, job->x, job->y, r);
                if constexpr (kEpilogue) {
                  const int64_t cols = job->d.geo.out[2];
                  job->epilogue.Apply(
                      r + ((b * out_rows + row) * cols) * job->d.geo.out_depth,
                      (row_end - row) * cols);
                }
                u = last - 1;
                continue;
              }
            }
            const int64_t oy = rows == 1 ? 0 : u % rows;
            DepthwiseImage<T, kPass>(job->d, b, oy,
                                     rows == 1 ? out_rows : oy + 1, job->x,
                                     job->y, r);
          }
        },
        std::move(finish));
  }

 private:
  // Validates the inputs, allocates the output (null when it is empty) and
  // the buffers, and fills `job` but for `pieces`.
  absl::Status Prepare(OpKernelContext* ctx, DepthwiseJob<T>* job,
                       Tensor** out) {
    std::vector<int64_t> in_dims, filter_dims;
    const Tensor* out_backprop = nullptr;
    absl::Status s;
    switch (kPass) {
      case DepthwisePass::kForward:
        s = Rank4(ctx->input(0), "input", &in_dims);
        if (s.ok()) s = Rank4(ctx->input(1), "filter", &filter_dims);
        break;
      case DepthwisePass::kBackpropInput:
        s = ReadSizesTensor(*this, ctx->input(0), 4, "input_sizes", &in_dims);
        if (s.ok()) s = Rank4(ctx->input(1), "filter", &filter_dims);
        out_backprop = &ctx->input(2);
        break;
      case DepthwisePass::kBackpropFilter:
        s = Rank4(ctx->input(0), "input", &in_dims);
        if (s.ok()) {
          s = ReadSizesTensor(*this, ctx->input(1), 4, "filter_sizes",
                              &filter_dims);
        }
        out_backprop = &ctx->input(2);
        break;
    }
    if (!s.ok()) return s;
    DepthwiseShape& d = job->d;
    d.geo.batch = in_dims[0];
    d.geo.in_depth = in_dims[3];
    d.multiplier = filter_dims[3];
    if (in_dims[3] != filter_dims[2]) {
      return NodeInvalidArgument(
          *this, "input and filter must have the same depth: ", in_dims[3],
          " vs ", filter_dims[2]);
    }
    d.geo.out_depth = d.geo.in_depth * d.multiplier;
    s = ComputeConvGeometry(*this, attrs_, in_dims.data() + 1,
                            filter_dims.data(), &d.geo);
    if (s.ok() && out_backprop != nullptr) {
      s = CheckOutBackpropShape(*this, d.geo, 2, out_backprop->shape());
    }
    if (!s.ok()) return s;
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
    s = CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value);
    // The float forward loops store every output element once; the other
    // loops add into a zeroed result.
    const TensorFill fill =
        kPass == DepthwisePass::kForward && UsesFloatLoops<T>(d)
            ? TensorFill::kUninitialized
            : TensorFill::kZeros;
    if (s.ok()) s = ctx->allocate_output(0, shape, out, fill);
    if (!s.ok()) return s;
    if ((*out)->NumElements() == 0) {
      *out = nullptr;
      return absl::OkStatus();
    }
    // Operands in A (the inputs themselves unless T is 16-bit).
    const int xi = kPass == DepthwisePass::kBackpropInput ? 1 : 0;
    const int yi = kPass == DepthwisePass::kForward ? 1 : 2;
    if constexpr (kNarrow<T>) {
      Tensor a, b, result;
      s = Widen<T>(ctx, ctx->input(xi), &a);
      if (s.ok()) s = Widen<T>(ctx, ctx->input(yi), &b);
      if (s.ok())
        s = ctx->allocate_temp(DataTypeToEnum<A>::value, shape, &result);
      if (!s.ok()) return s;
      job->x = a.base<A>();
      job->y = b.base<A>();
      job->r = result.base<A>();
      std::fill_n(job->r, result.NumElements(), A(0));
      job->keep = {a, b, result};
    } else {
      job->x = ctx->input(xi).template base<A>();
      job->y = ctx->input(yi).template base<A>();
      job->r = (*out)->template base<A>();  // zero-filled unless `fill` says
    }
    job->image_stride =
        kPass == DepthwisePass::kBackpropFilter ? shape.num_elements() : 0;
    if (kPass == DepthwisePass::kBackpropFilter) {
      TensorShape parts({d.geo.batch, shape.num_elements()});
      s = CheckAllocationSize(*this, parts, DataTypeToEnum<A>::value);
      Tensor per_image;
      if (s.ok()) {
        s = ctx->allocate_temp(DataTypeToEnum<A>::value, parts, &per_image);
      }
      if (!s.ok()) return s;
      job->per_image = per_image.base<A>();
      std::fill_n(job->per_image, per_image.NumElements(), A(0));
      job->keep.push_back(per_image);
    }
    return absl::OkStatus();
  }

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
  std::vector<ConvEpilogue::Step> epilogue_steps_;  // kEpilogue only
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
REGISTER_KERNEL_BUILDER(Name("_DepthwiseConv2dNativeWithEpilogue")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        DepthwiseConvOp<float, DepthwisePass::kForward,
                                        /*kEpilogue=*/true>);

}  // namespace
}  // namespace stepflow
