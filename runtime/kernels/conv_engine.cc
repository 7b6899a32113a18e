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

// Visits the im2col row of output position `p` as runs of elements:
// fn(dst_offset, src_offset, length) copies `length` elements from the image
// (src_offset in elements) to the row, or with src_offset -1 zero-fills
// them (taps in the padding). Taps next to each other in a filter row are
// one run when they are next to each other in the image too (dilation 1,
// every channel: one group).
template <typename Fn>
static inline void ForEachTapRun(const ConvGeometry& g, int64_t p, Fn&& fn) {
  const int64_t ow = p % g.out[2];
  const int64_t rest = p / g.out[2];
  const int64_t oh = rest % g.out[1];
  const int64_t od = rest / g.out[1];
  const int64_t cg = g.filter_in_depth();
  const int64_t fw = g.filter[2];
  const int64_t iw0 = ow * g.stride[2] - g.pad[2];
  const bool runs = g.dilation[2] == 1 && cg == g.in_depth;
  int64_t dst = 0;
  for (int64_t kd = 0; kd < g.filter[0]; ++kd) {
    const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
    const bool d_in = id >= 0 && id < g.in[0];
    for (int64_t kh = 0; kh < g.filter[1]; ++kh, dst += fw * cg) {
      const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
      if (!d_in || ih < 0 || ih >= g.in[1]) {
        fn(dst, int64_t{-1}, fw * cg);
        continue;
      }
      const int64_t row = (id * g.in[1] + ih) * g.in[2];
      if (runs) {
        const int64_t lo = std::min(fw, std::max<int64_t>(0, -iw0));
        const int64_t hi = std::max(lo, std::min(fw, g.in[2] - iw0));
        if (lo > 0) fn(dst, int64_t{-1}, lo * cg);
        if (hi > lo)
          fn(dst + lo * cg, (row + iw0 + lo) * g.in_depth, (hi - lo) * cg);
        if (hi < fw) fn(dst + hi * cg, int64_t{-1}, (fw - hi) * cg);
        continue;
      }
      for (int64_t kw = 0; kw < fw; ++kw) {
        const int64_t iw = iw0 + kw * g.dilation[2];
        if (iw >= 0 && iw < g.in[2]) {
          fn(dst + kw * cg, (row + iw) * g.in_depth, cg);
        } else {
          fn(dst + kw * cg, int64_t{-1}, cg);
        }
      }
    }
  }
}

template <typename C>
void Im2Col(const ConvGeometry& geo, const C* image, int64_t group,
            int64_t row_begin, int64_t rows, C* col) {
  const int64_t k = geo.patch_size();
  const C* src_base = image + group * geo.filter_in_depth();
  for (int64_t r = 0; r < rows; ++r) {
    C* row = col + r * k;
    ForEachTapRun(geo, row_begin + r, [&](int64_t dst, int64_t src, int64_t n) {
      if (src < 0) {
        std::fill_n(row + dst, n, C(0));
      } else {
        std::copy_n(src_base + src, n, row + dst);
      }
    });
  }
}

template <typename C>
void Col2ImAdd(const ConvGeometry& geo, const C* col, int64_t row_begin,
               int64_t rows, C* image, C (*round)(C)) {
  const int64_t k = geo.patch_size();
  for (int64_t r = 0; r < rows; ++r) {
    const C* row = col + r * k;
    ForEachTapRun(geo, row_begin + r, [&](int64_t dst, int64_t src, int64_t n) {
      if (src < 0) return;
      C* to = image + src;
      const C* from = row + dst;
      if (round == nullptr) {
        for (int64_t c = 0; c < n; ++c) to[c] += from[c];
      } else {
        for (int64_t c = 0; c < n; ++c) {
          to[c] = round(to[c] + from[c]);
        }
      }
    });
  }
}

namespace {

// Aim for im2col blocks of about this many elements (fits in L2/L3 with the
// filter), but give each product at least kMinGemmRows rows: OpenBLAS packs
// the whole filter once per call, which costs about as much as the product
// itself at 28 rows (ResNet-50's 3x3x512 layers) and under a tenth of it
// at 512. A block never holds more than kMaxColBlockElements, and work is
// not split below kMinFlopsPerPiece multiply-adds per piece.
constexpr int64_t kColBlockElements = int64_t{1} << 17;
constexpr int64_t kMinGemmRows = 512;
constexpr int64_t kMaxColBlockElements = int64_t{1} << 23;
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

// Rounds a float to T and back (the 16-bit types' partial sums).
template <typename T>
float RoundVia(float v) {
  return static_cast<float>(T(v));
}

// C (m x n, row stride ldc) = op_a(A) * op_b(B) like Gemm, but summing
// over k in order and rounding every partial sum with `round`; adds to C's
// values when `accumulate`.
template <typename C>
void NarrowProduct(const C* a, int64_t lda, GemmOp op_a, const C* b,
                   int64_t ldb, GemmOp op_b, C* c, int64_t ldc, int64_t m,
                   int64_t n, int64_t k, bool accumulate, C (*round)(C)) {
  const int64_t a_i = op_a == GemmOp::kNoTrans ? lda : 1;
  const int64_t a_k = op_a == GemmOp::kNoTrans ? 1 : lda;
  const int64_t b_k = op_b == GemmOp::kNoTrans ? ldb : 1;
  const int64_t b_j = op_b == GemmOp::kNoTrans ? 1 : ldb;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      C acc = accumulate ? c[i * ldc + j] : C(0);
      const C* pa = a + i * a_i;
      const C* pb = b + j * b_j;
      for (int64_t kk = 0; kk < k; ++kk) {
        acc = round(acc + pa[kk * a_k] * pb[kk * b_k]);
      }
      c[i * ldc + j] = acc;
    }
  }
}

// The output positions along one dimension whose windows hold input
// position `i`, with the filter tap that reaches it: calls fn(o, k) for o
// ascending.
template <typename Fn>
void ForEachCover(int64_t i, int64_t out, int64_t filter, int64_t stride,
                  int64_t dilation, int64_t pad, Fn&& fn) {
  for (int64_t o = 0; o < out; ++o) {
    const int64_t offset = i + pad - o * stride;
    if (offset < 0 || offset % dilation != 0) continue;
    const int64_t k = offset / dilation;
    if (k < filter) fn(o, k);
  }
}

// kNarrowGather's input gradient: x = filter, y = out_backprop.
template <typename C>
void GatherBackpropInput(const ConvGeometry& g, const C* filter, const C* dy,
                         C* din, C (*round)(C)) {
  const int64_t cin = g.in_depth;
  const int64_t cout = g.out_depth;
  std::vector<C> acc(cin);
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t id = 0; id < g.in[0]; ++id) {
      for (int64_t ih = 0; ih < g.in[1]; ++ih) {
        for (int64_t iw = 0; iw < g.in[2]; ++iw) {
          std::fill(acc.begin(), acc.end(), C(0));
          ForEachCover(
              id, g.out[0], g.filter[0], g.stride[0], g.dilation[0], g.pad[0],
              [&](int64_t od, int64_t kd) {
                ForEachCover(
                    ih, g.out[1], g.filter[1], g.stride[1], g.dilation[1],
                    g.pad[1], [&](int64_t oh, int64_t kh) {
                      ForEachCover(
                          iw, g.out[2], g.filter[2], g.stride[2], g.dilation[2],
                          g.pad[2], [&](int64_t ow, int64_t kw) {
                            const C* d =
                                dy + (((b * g.out[0] + od) * g.out[1] + oh) *
                                          g.out[2] +
                                      ow) *
                                         cout;
                            const C* f =
                                filter +
                                ((kd * g.filter[1] + kh) * g.filter[2] + kw) *
                                    cin * cout;
                            for (int64_t ci = 0; ci < cin; ++ci) {
                              C a = acc[ci];
                              for (int64_t co = 0; co < cout; ++co) {
                                a = round(a + d[co] * f[ci * cout + co]);
                              }
                              acc[ci] = a;
                            }
                          });
                    });
              });
          std::copy(
              acc.begin(), acc.end(),
              din + (((b * g.in[0] + id) * g.in[1] + ih) * g.in[2] + iw) * cin);
        }
      }
    }
  }
}

// kNarrowGather's filter gradient: x = input, y = out_backprop.
template <typename C>
void GatherBackpropFilter(const ConvGeometry& g, const C* in, const C* dy,
                          C* dfilter, C (*round)(C)) {
  const int64_t cin = g.in_depth;
  const int64_t cout = g.out_depth;
  const int64_t k = g.patch_size();
  std::fill_n(dfilter, k * cout, C(0));
  std::vector<C> row(k);
  const int64_t positions = g.out_positions();
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t b = 0; b < g.batch; ++b) {
      Im2Col(g, in + b * g.in_positions() * cin, 0, p, 1, row.data());
      const C* d = dy + (b * positions + p) * cout;
      for (int64_t i = 0; i < k; ++i) {
        C* out = dfilter + i * cout;
        for (int64_t co = 0; co < cout; ++co) {
          out[co] = round(out[co] + row[i] * d[co]);
        }
      }
    }
  }
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
  C (*round)(C) = nullptr;                 // set for ConvNumerics::kNarrow
  const ConvEpilogue* epilogue = nullptr;  // float forward passes only
  int64_t rows_per_block = 1;
  int64_t units = 0;  // pieces of work: blocks of rows, or images
  int pieces = 1;
  int64_t scratch_per_piece = 0;
  std::vector<Tensor> keep;  // buffers the pointers above point into

  int64_t UnitBegin(int piece) const { return units * piece / pieces; }

  void Product(const C* a, int64_t lda, GemmOp op_a, const C* b, int64_t ldb,
               GemmOp op_b, C* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
               bool accumulate = false) {
    if (round != nullptr) {
      NarrowProduct(a, lda, op_a, b, ldb, op_b, c, ldc, m, n, k, accumulate,
                    round);
    } else {
      RunGemm(a, lda, op_a, b, ldb, op_b, c, ldc, m, n, k);
    }
  }

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
        if (round != nullptr) {
          // One sequence of rounded sums over every position (one piece).
          std::fill_n(acc, fsize, C(0));
          for (int64_t u = begin; u < end; ++u) {
            BackpropFilterBlock(u, col, acc, /*accumulate=*/true);
          }
          break;
        }
        for (int64_t u = begin; u < end; ++u) {
          BackpropFilterBlock(u, col, u == begin ? acc : tmp, false);
          if (u != begin) {
            for (int64_t i = 0; i < fsize; ++i) acc[i] += tmp[i];
          }
        }
        break;
      }
    }
  }

  // The forward and filter-gradient passes cut the rows of every image,
  // one after another (batch * out_positions rows), into blocks: block
  // `unit` is rows [*row0, *row0 + *rows) of that sequence.
  void BlockRows(int64_t unit, int64_t* row0, int64_t* rows) const {
    *row0 = unit * rows_per_block;
    *rows = std::min(rows_per_block, geo.batch * geo.out_positions() - *row0);
  }

  // The im2col matrix of rows [row0, row0 + rows) of the batch's sequence
  // for channel group `group`, image by image.
  void GatherBlock(int64_t row0, int64_t rows, int64_t group, C* col) const {
    const int64_t positions = geo.out_positions();
    const int64_t k = geo.patch_size();
    for (int64_t r = row0; r < row0 + rows;) {
      const int64_t b = r / positions;
      const int64_t p = r % positions;
      const int64_t n = std::min(positions - p, row0 + rows - r);
      Im2Col(geo, x + b * geo.in_positions() * geo.in_depth, group, p, n,
             col + (r - row0) * k);
      r += n;
    }
  }

  void ForwardBlock(int64_t unit, C* col) {
    int64_t row0, rows;
    BlockRows(unit, &row0, &rows);
    const int64_t k = geo.patch_size();
    const int64_t cout = geo.out_depth;
    const int64_t cout_g = geo.out_depth_per_group();
    C* dst = out + row0 * cout;
    if (geo.is_pointwise()) {
      // Input and output positions match, so the batch's input rows are
      // the im2col matrix.
      Product(x + row0 * geo.in_depth, geo.in_depth, GemmOp::kNoTrans, y, cout,
              GemmOp::kNoTrans, dst, cout, rows, cout, k);
    } else {
      for (int64_t g = 0; g < geo.groups; ++g) {
        GatherBlock(row0, rows, g, col);
        Product(col, k, GemmOp::kNoTrans, y + g * cout_g, cout,
                GemmOp::kNoTrans, dst + g * cout_g, cout, rows, cout_g, k);
      }
    }
    if constexpr (std::is_same<C, float>::value) {
      if (epilogue != nullptr) epilogue->Apply(dst, rows);
    }
  }

  void BackpropInputImage(int64_t b, C* col) {
    const int64_t k = geo.patch_size();
    const int64_t cout = geo.out_depth;
    const int64_t positions = geo.out_positions();
    const C* dy = y + b * positions * cout;
    C* image = out + b * geo.in_positions() * geo.in_depth;
    if (geo.is_pointwise()) {
      Product(dy, cout, GemmOp::kNoTrans, x, cout, GemmOp::kTrans, image, k,
              positions, k, cout);
      return;
    }
    std::fill_n(image, geo.in_positions() * geo.in_depth, C(0));
    for (int64_t row0 = 0; row0 < positions; row0 += rows_per_block) {
      const int64_t rows = std::min(rows_per_block, positions - row0);
      Product(dy + row0 * cout, cout, GemmOp::kNoTrans, x, cout, GemmOp::kTrans,
              col, k, rows, k, cout);
      Col2ImAdd(geo, col, row0, rows, image, round);
    }
  }

  void BackpropFilterBlock(int64_t unit, C* col, C* dst, bool accumulate) {
    int64_t row0, rows;
    BlockRows(unit, &row0, &rows);
    const int64_t k = geo.patch_size();
    const int64_t cout = geo.out_depth;
    const C* dy = y + row0 * cout;
    const C* a = col;
    if (geo.is_pointwise()) {
      a = x + row0 * geo.in_depth;
    } else {
      GatherBlock(row0, rows, 0, col);
    }
    Product(a, k, GemmOp::kTrans, dy, cout, GemmOp::kNoTrans, dst, cout, k,
            cout, rows, accumulate);
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
    absl::Status s =
        ctx->allocate_temp(DataTypeToEnum<C>::value, t.shape(), &w);
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
void LaunchConv(OpKernelContext* ctx, ConvPass pass, ConvNumerics numerics,
                const ConvGeometry& geo, const Tensor& x, const Tensor& y,
                Tensor* out, std::function<void()> done,
                const ConvEpilogue* epilogue) {
  using C = typename ComputeTypeImpl<T>::type;
  if (out->NumElements() == 0) {
    done();
    return;
  }
  auto job = std::make_shared<ConvJob<C>>();
  job->geo = geo;
  job->pass = pass;
  if (epilogue != nullptr && !epilogue->empty()) {
    if (!std::is_same<T, float>::value || pass != ConvPass::kForward) {
      ctx->SetStatus(absl::InternalError(
          "A convolution epilogue applies to float forward passes only"));
      done();
      return;
    }
    job->epilogue = epilogue;
  }
  if constexpr (std::is_same<T, half>::value ||
                std::is_same<T, bfloat16>::value) {
    if (numerics != ConvNumerics::kWide) job->round = &RoundVia<T>;
    if (numerics == ConvNumerics::kNarrowGather && pass != ConvPass::kForward) {
      const C* x_c = nullptr;
      const C* y_c = nullptr;
      absl::Status s = WidenInto<T, C>(ctx, x, &job->keep, &x_c);
      if (s.ok()) s = WidenInto<T, C>(ctx, y, &job->keep, &y_c);
      Tensor out_c;
      if (s.ok()) {
        s = ctx->allocate_temp(DataTypeToEnum<C>::value, out->shape(), &out_c);
      }
      if (!s.ok()) {
        ctx->SetStatus(s);
        done();
        return;
      }
      if (pass == ConvPass::kBackpropInput) {
        GatherBackpropInput(geo, x_c, y_c, out_c.base<C>(), job->round);
      } else {
        GatherBackpropFilter(geo, x_c, y_c, out_c.base<C>(), job->round);
      }
      using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
      using CVec = Eigen::Array<C, Eigen::Dynamic, 1>;
      Eigen::Map<Vec>(out->base<T>(), out->NumElements()) =
          Eigen::Map<const CVec>(out_c.base<C>(), out->NumElements())
              .template cast<T>();
      done();
      return;
    }
  }
  const int64_t k = geo.patch_size();
  const int64_t positions = geo.out_positions();
  // Nothing to sum over: the output is zeros (then the epilogue).
  if (geo.batch == 0 || positions == 0 || k == 0 || geo.out_depth == 0) {
    std::fill_n(out->base<T>(), out->NumElements(), T(0));
    if constexpr (std::is_same<T, float>::value) {
      if (job->epilogue != nullptr) {
        job->epilogue->Apply(out->base<float>(),
                             out->NumElements() / geo.out_depth);
      }
    }
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
  Scheduler* scheduler =
      ctx->env() == nullptr ? nullptr : ctx->env()->scheduler;
  const int threads = scheduler == nullptr ? 1 : scheduler->NumThreads();
  const double flops = static_cast<double>(geo.batch) * positions * k *
                       geo.out_depth_per_group() * geo.groups;
  const int64_t by_flops =
      std::max<int64_t>(1, static_cast<int64_t>(flops / kMinFlopsPerPiece));
  // Backprop input scatters each image's blocks onto that image, so its
  // blocks stay within an image; the other passes block the whole batch's
  // rows, and as many blocks as pieces could run.
  const int64_t rows_total =
      pass == ConvPass::kBackpropInput ? positions : geo.batch * positions;
  const int64_t wanted_pieces = std::min<int64_t>(threads, by_flops);
  int64_t rows_per_block = std::max(kColBlockElements / k, kMinGemmRows);
  rows_per_block = std::min(rows_per_block, kMaxColBlockElements / k);
  if (pass != ConvPass::kBackpropInput) {
    rows_per_block = std::min(rows_per_block,
                              (rows_total + wanted_pieces - 1) / wanted_pieces);
  }
  job->rows_per_block =
      std::max<int64_t>(1, std::min(rows_total, rows_per_block));
  job->units =
      pass == ConvPass::kBackpropInput
          ? geo.batch
          : (rows_total + job->rows_per_block - 1) / job->rows_per_block;
  job->pieces = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>({threads, job->units, by_flops})));
  if (job->round != nullptr && pass == ConvPass::kBackpropFilter) {
    job->pieces = 1;  // one ordered sequence of sums
  }
  const int64_t fsize = k * geo.out_depth;
  job->scratch_per_piece = job->rows_per_block * k +
                           (pass == ConvPass::kBackpropFilter ? 2 * fsize : 0);
  Tensor scratch;
  s = CheckAllocationSize(ctx->op_kernel(),
                          TensorShape({job->pieces, job->scratch_per_piece}),
                          DataTypeToEnum<C>::value);
  if (s.ok()) {
    // im2col rows and the filter-gradient sums are written before read.
    s = ctx->allocate_temp(DataTypeToEnum<C>::value,
                           TensorShape({job->pieces, job->scratch_per_piece}),
                           &scratch, TensorFill::kUninitialized);
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
        const C* acc =
            job->scratch + p * job->scratch_per_piece + job->rows_per_block * k;
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

#define SF_INSTANTIATE_CONV(T)                                               \
  template void LaunchConv<T>(OpKernelContext*, ConvPass, ConvNumerics,      \
                              const ConvGeometry&, const Tensor&,            \
                              const Tensor&, Tensor*, std::function<void()>, \
                              const ConvEpilogue*);
SF_CALL_FLOAT_TYPES(SF_INSTANTIATE_CONV)
SF_INSTANTIATE_CONV(int32_t)
#undef SF_INSTANTIATE_CONV

#define SF_INSTANTIATE_IM2COL(C)                                              \
  template void Im2Col<C>(const ConvGeometry&, const C*, int64_t, int64_t,    \
                          int64_t, C*);                                       \
  template void Col2ImAdd<C>(const ConvGeometry&, const C*, int64_t, int64_t, \
                             C*, C (*)(C));
SF_INSTANTIATE_IM2COL(float)
SF_INSTANTIATE_IM2COL(double)
SF_INSTANTIATE_IM2COL(uint32_t)
#undef SF_INSTANTIATE_IM2COL

}  // namespace stepflow
