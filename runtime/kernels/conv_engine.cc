#include "runtime/kernels/conv_engine.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "runtime/env/env.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/parallel_for.h"

namespace stepflow {

// Visits the im2col row of output position `p`: fn(dst_offset, src_offset)
// for each filter tap inside the input (src_offset into the image, in
// elements, at channel 0) and fn(dst_offset, -1) for each tap in padding.
template <typename Fn>
static inline void ForEachTap(const ConvGeometry& g, int64_t p, Fn&& fn) {
  const int64_t ow = p % g.out[2];
  const int64_t rest = p / g.out[2];
  const int64_t oh = rest % g.out[1];
  const int64_t od = rest / g.out[1];
  const int64_t cg = g.filter_in_depth();
  int64_t dst = 0;
  for (int64_t kd = 0; kd < g.filter[0]; ++kd) {
    const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
    const bool d_in = id >= 0 && id < g.in[0];
    for (int64_t kh = 0; kh < g.filter[1]; ++kh) {
      const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
      const bool h_in = d_in && ih >= 0 && ih < g.in[1];
      for (int64_t kw = 0; kw < g.filter[2]; ++kw, dst += cg) {
        const int64_t iw = ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
        if (h_in && iw >= 0 && iw < g.in[2]) {
          fn(dst, ((id * g.in[1] + ih) * g.in[2] + iw) * g.in_depth);
        } else {
          fn(dst, int64_t{-1});
        }
      }
    }
  }
}

template <typename C>
void Im2Col(const ConvGeometry& geo, const C* image, int64_t group,
            int64_t row_begin, int64_t rows, C* col) {
  const int64_t cg = geo.filter_in_depth();
  const int64_t k = geo.patch_size();
  const C* src_base = image + group * cg;
  for (int64_t r = 0; r < rows; ++r) {
    C* row = col + r * k;
    ForEachTap(geo, row_begin + r, [&](int64_t dst, int64_t src) {
      if (src < 0) {
        std::fill_n(row + dst, cg, C(0));
      } else {
        std::copy_n(src_base + src, cg, row + dst);
      }
    });
  }
}

template <typename C>
void Col2ImAdd(const ConvGeometry& geo, const C* col, int64_t row_begin,
               int64_t rows, C* image) {
  const int64_t cg = geo.filter_in_depth();
  const int64_t k = geo.patch_size();
  for (int64_t r = 0; r < rows; ++r) {
    const C* row = col + r * k;
    ForEachTap(geo, row_begin + r, [&](int64_t dst, int64_t src) {
      if (src < 0) return;
      C* to = image + src;
      const C* from = row + dst;
      for (int64_t c = 0; c < cg; ++c) to[c] += from[c];
    });
  }
}

namespace {

// Aim for im2col blocks of about this many elements (fits in L2/L3 with the
// filter), and do not split work below this many multiply-adds per piece.
constexpr int64_t kColBlockElements = int64_t{1} << 17;
constexpr int64_t kMinFlopsPerPiece = int64_t{1} << 20;

// The type products run in: float for the 16-bit floats, unsigned for
// int32 (wrapping).
template <typename T>
struct ComputeTypeImpl {
  using type = ArithType<T>;
};
template <>
struct ComputeTypeImpl<half> {
  using type = float;
};
template <>
struct ComputeTypeImpl<bfloat16> {
  using type = float;
};

template <typename C>
void RunGemm(const C* a, int64_t lda, GemmOp op_a, const C* b, int64_t ldb,
             GemmOp op_b, C* c, int64_t ldc, int64_t m, int64_t n, int64_t k) {
  GemmArgs<C> g;
  g.a = a;
  g.lda = lda;
  g.op_a = op_a;
  g.b = b;
  g.ldb = ldb;
  g.op_b = op_b;
  g.c = c;
  g.ldc = ldc;
  g.m = m;
  g.n = n;
  g.k = k;
  Gemm(g);
}

// Everything the pieces of one launch share; freed after the last.
template <typename C>
struct ConvJob {
  ConvGeometry geo;
  ConvPass pass;
  const C* x = nullptr;
  const C* y = nullptr;
  C* out = nullptr;
  C* scratch = nullptr;
  int64_t rows_per_block = 1;
  int64_t blocks_per_image = 1;
  int64_t units = 0;  // pieces of work: (image, block) or images
  int pieces = 1;
  int64_t scratch_per_piece = 0;
  std::vector<Tensor> keep;  // buffers the pointers above point into

  int64_t UnitBegin(int piece) const { return units * piece / pieces; }

  void RunPiece(int piece) {
    const int64_t begin = UnitBegin(piece);
    const int64_t end = UnitBegin(piece + 1);
    C* col = scratch + piece * scratch_per_piece;
    switch (pass) {
      case ConvPass::kForward:
        for (int64_t u = begin; u < end; ++u) ForwardBlock(u, col);
        break;
      case ConvPass::kBackpropInput:
        for (int64_t b = begin; b < end; ++b) BackpropInputImage(b, col);
        break;
      case ConvPass::kBackpropFilter: {
        const int64_t fsize = geo.patch_size() * geo.out_depth;
        C* acc = col + rows_per_block * geo.patch_size();
        C* tmp = acc + fsize;
        for (int64_t u = begin; u < end; ++u) {
          BackpropFilterBlock(u, col, u == begin ? acc : tmp);
          if (u != begin) {
            for (int64_t i = 0; i < fsize; ++i) acc[i] += tmp[i];
          }
        }
        break;
      }
    }
  }

  void BlockRows(int64_t unit, int64_t* image, int64_t* row0,
                 int64_t* rows) const {
    *image = unit / blocks_per_image;
    *row0 = (unit % blocks_per_image) * rows_per_block;
    *rows = std::min(rows_per_block, geo.out_positions() - *row0);
  }

  void ForwardBlock(int64_t unit, C* col) {
    int64_t b, row0, rows;
    BlockRows(unit, &b, &row0, &rows);
    const int64_t k = geo.patch_size();
    const int64_t cout = geo.out_depth;
    const int64_t cout_g = geo.out_depth_per_group();
    const C* image = x + b * geo.in_positions() * geo.in_depth;
    C* dst = out + (b * geo.out_positions() + row0) * cout;
    if (geo.is_pointwise()) {
      RunGemm(image + row0 * geo.in_depth, geo.in_depth, GemmOp::kNoTrans, y,
              cout, GemmOp::kNoTrans, dst, cout, rows, cout, k);
      return;
    }
    for (int64_t g = 0; g < geo.groups; ++g) {
      Im2Col(geo, image, g, row0, rows, col);
      RunGemm(col, k, GemmOp::kNoTrans, y + g * cout_g, cout, GemmOp::kNoTrans,
              dst + g * cout_g, cout, rows, cout_g, k);
    }
  }

  void BackpropInputImage(int64_t b, C* col) {
    const int64_t k = geo.patch_size();
    const int64_t cout = geo.out_depth;
    const int64_t positions = geo.out_positions();
    const C* dy = y + b * positions * cout;
    C* image = out + b * geo.in_positions() * geo.in_depth;
    if (geo.is_pointwise()) {
      RunGemm(dy, cout, GemmOp::kNoTrans, x, cout, GemmOp::kTrans, image, k,
              positions, k, cout);
      return;
    }
    std::fill_n(image, geo.in_positions() * geo.in_depth, C(0));
    for (int64_t row0 = 0; row0 < positions; row0 += rows_per_block) {
      const int64_t rows = std::min(rows_per_block, positions - row0);
      RunGemm(dy + row0 * cout, cout, GemmOp::kNoTrans, x, cout, GemmOp::kTrans,
              col, k, rows, k, cout);
      Col2ImAdd(geo, col, row0, rows, image);
    }
  }

  void BackpropFilterBlock(int64_t unit, C* col, C* dst) {
    int64_t b, row0, rows;
    BlockRows(unit, &b, &row0, &rows);
    const int64_t k = geo.patch_size();
    const int64_t cout = geo.out_depth;
    const C* image = x + b * geo.in_positions() * geo.in_depth;
    const C* dy = y + (b * geo.out_positions() + row0) * cout;
    const C* a = col;
    if (geo.is_pointwise()) {
      a = image + row0 * geo.in_depth;
    } else {
      Im2Col(geo, image, 0, row0, rows, col);
    }
    RunGemm(a, k, GemmOp::kTrans, dy, cout, GemmOp::kNoTrans, dst, cout, k,
            cout, rows);
  }
};

template <typename T, typename C>
absl::Status WidenInto(OpKernelContext* ctx, const Tensor& t,
                       std::vector<Tensor>* keep, const C** out) {
  if constexpr (std::is_same<T, C>::value) {
    *out = t.base<C>();
  } else if constexpr (sizeof(T) == sizeof(C) && std::is_integral<C>::value) {
    *out = reinterpret_cast<const C*>(t.base<T>());
  } else {
    Tensor w;
    absl::Status s = ctx->allocate_temp(DataTypeToEnum<C>::value, t.shape(), &w);
    if (!s.ok()) return s;
    using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
    using CVec = Eigen::Array<C, Eigen::Dynamic, 1>;
    Eigen::Map<CVec>(w.base<C>(), t.NumElements()) =
        Eigen::Map<const Vec>(t.base<T>(), t.NumElements()).template cast<C>();
    *out = w.base<C>();
    keep->push_back(std::move(w));
  }
  return absl::OkStatus();
}

}  // namespace

template <typename T>
void LaunchConv(OpKernelContext* ctx, ConvPass pass, const ConvGeometry& geo,
                const Tensor& x, const Tensor& y, Tensor* out,
                std::function<void()> done) {
  using C = typename ComputeTypeImpl<T>::type;
  if (out->NumElements() == 0) {
    done();
    return;
  }
  auto job = std::make_shared<ConvJob<C>>();
  job->geo = geo;
  job->pass = pass;
  const int64_t k = geo.patch_size();
  const int64_t positions = geo.out_positions();
  // Nothing to sum over: the (zero-filled) output is the answer.
  if (geo.batch == 0 || positions == 0 || k == 0 || geo.out_depth == 0) {
    std::fill_n(out->base<T>(), out->NumElements(), T(0));
    done();
    return;
  }
  absl::Status s = WidenInto<T, C>(ctx, x, &job->keep, &job->x);
  if (s.ok()) s = WidenInto<T, C>(ctx, y, &job->keep, &job->y);
  Tensor out_c;
  if (s.ok()) {
    if constexpr (std::is_same<T, C>::value ||
                  (sizeof(T) == sizeof(C) && std::is_integral<C>::value)) {
      job->out = reinterpret_cast<C*>(out->base<T>());
    } else {
      s = ctx->allocate_temp(DataTypeToEnum<C>::value, out->shape(), &out_c);
      if (s.ok()) job->out = out_c.base<C>();
    }
  }
  if (!s.ok()) {
    ctx->SetStatus(s);
    done();
    return;
  }
  job->rows_per_block =
      std::max<int64_t>(1, std::min(positions, kColBlockElements / k));
  job->blocks_per_image =
      (positions + job->rows_per_block - 1) / job->rows_per_block;
  job->units = pass == ConvPass::kBackpropInput
                   ? geo.batch
                   : geo.batch * job->blocks_per_image;
  Scheduler* scheduler =
      ctx->env() == nullptr ? nullptr : ctx->env()->scheduler;
  const int threads = scheduler == nullptr ? 1 : scheduler->NumThreads();
  const double flops = static_cast<double>(geo.batch) * positions * k *
                       geo.out_depth_per_group() * geo.groups;
  const int64_t by_flops =
      std::max<int64_t>(1, static_cast<int64_t>(flops / kMinFlopsPerPiece));
  job->pieces = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>({threads, job->units, by_flops})));
  const int64_t fsize = k * geo.out_depth;
  job->scratch_per_piece =
      job->rows_per_block * k +
      (pass == ConvPass::kBackpropFilter ? 2 * fsize : 0);
  Tensor scratch;
  s = CheckAllocationSize(ctx->op_kernel(),
                          TensorShape({job->pieces, job->scratch_per_piece}),
                          DataTypeToEnum<C>::value);
  if (s.ok()) {
    s = ctx->allocate_temp(DataTypeToEnum<C>::value,
                           TensorShape({job->pieces, job->scratch_per_piece}),
                           &scratch);
  }
  if (!s.ok()) {
    ctx->SetStatus(s);
    done();
    return;
  }
  job->scratch = scratch.base<C>();
  job->keep.push_back(std::move(scratch));
  if (out_c.NumElements() > 0) job->keep.push_back(out_c);
  auto finish = [job, out, done = std::move(done)]() {
    C* result = job->out;
    const int64_t n = out->NumElements();
    if (job->pass == ConvPass::kBackpropFilter) {
      // Piece 0's sum is in its scratch; add the others in order.
      const int64_t k = job->geo.patch_size();
      const int64_t fsize = k * job->geo.out_depth;
      for (int p = 0; p < job->pieces; ++p) {
        const C* acc = job->scratch + p * job->scratch_per_piece +
                       job->rows_per_block * k;
        if (p == 0) {
          std::copy_n(acc, fsize, result);
        } else {
          for (int64_t i = 0; i < fsize; ++i) result[i] += acc[i];
        }
      }
    }
    if constexpr (!std::is_same<T, C>::value &&
                  !(sizeof(T) == sizeof(C) && std::is_integral<C>::value)) {
      using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
      using CVec = Eigen::Array<C, Eigen::Dynamic, 1>;
      Eigen::Map<Vec>(out->base<T>(), n) =
          Eigen::Map<const CVec>(result, n).template cast<T>();
    }
    done();
  };
  ParallelForAsync(
      scheduler, job->pieces, [job](int i) { job->RunPiece(i); },
      std::move(finish));
}

#define SF_INSTANTIATE_CONV(T)                                           \
  template void LaunchConv<T>(OpKernelContext*, ConvPass,                \
                              const ConvGeometry&, const Tensor&,        \
                              const Tensor&, Tensor*, std::function<void()>);
SF_CALL_FLOAT_TYPES(SF_INSTANTIATE_CONV)
SF_INSTANTIATE_CONV(int32_t)
#undef SF_INSTANTIATE_CONV

#define SF_INSTANTIATE_IM2COL(C)                                           \
  template void Im2Col<C>(const ConvGeometry&, const C*, int64_t, int64_t, \
                          int64_t, C*);                                    \
  template void Col2ImAdd<C>(const ConvGeometry&, const C*, int64_t,       \
                             int64_t, C*);
SF_INSTANTIATE_IM2COL(float)
SF_INSTANTIATE_IM2COL(double)
SF_INSTANTIATE_IM2COL(uint32_t)
#undef SF_INSTANTIATE_IM2COL

}  // namespace stepflow
