#include "runtime/kernels/gemm.h"

#include <algorithm>
#include <complex>
#include <limits>
#include <mutex>
#include <type_traits>

#include "Eigen/Core"

// CBLAS and OpenBLAS entry points, declared here rather than through
// <cblas.h>: Debian's alternatives may point that header at another BLAS,
// and only the standard CBLAS ABI (int dimensions, the reference enum
// values) is relied on.
extern "C" {
enum SfCblasLayout { kSfCblasRowMajor = 101 };
enum SfCblasTranspose {
  kSfCblasNoTrans = 111,
  kSfCblasTrans = 112,
  kSfCblasConjTrans = 113
};
void cblas_sgemm(SfCblasLayout layout, SfCblasTranspose ta, SfCblasTranspose tb,
                 int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(SfCblasLayout layout, SfCblasTranspose ta, SfCblasTranspose tb,
                 int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc);
void cblas_cgemm(SfCblasLayout layout, SfCblasTranspose ta, SfCblasTranspose tb,
                 int m, int n, int k, const void* alpha, const void* a, int lda,
                 const void* b, int ldb, const void* beta, void* c, int ldc);
void cblas_zgemm(SfCblasLayout layout, SfCblasTranspose ta, SfCblasTranspose tb,
                 int m, int n, int k, const void* alpha, const void* a, int lda,
                 const void* b, int ldb, const void* beta, void* c, int ldc);
void openblas_set_num_threads(int num_threads);
}

namespace stepflow {
namespace {

template <typename C>
using RowMajor =
    Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename C>
using ConstStrided =
    Eigen::Map<const RowMajor<C>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename C>
using Strided = Eigen::Map<RowMajor<C>, Eigen::Unaligned, Eigen::OuterStride<>>;

// The stored operand, viewed through `op`, multiplied into `out`.
template <typename C, typename Out, typename B>
void EigenTimes(const ConstStrided<C>& a, GemmOp op_a, const B& b, Out& out) {
  switch (op_a) {
    case GemmOp::kNoTrans:
      out.noalias() = a * b;
      return;
    case GemmOp::kTrans:
      out.noalias() = a.transpose() * b;
      return;
    case GemmOp::kConjTrans:
      out.noalias() = a.adjoint() * b;
      return;
  }
}

template <typename C>
void EigenGemm(const GemmArgs<C>& g) {
  const bool a_stored_t = g.op_a != GemmOp::kNoTrans;
  const bool b_stored_t = g.op_b != GemmOp::kNoTrans;
  ConstStrided<C> a(g.a, a_stored_t ? g.k : g.m, a_stored_t ? g.m : g.k,
                    Eigen::OuterStride<>(g.lda));
  ConstStrided<C> b(g.b, b_stored_t ? g.n : g.k, b_stored_t ? g.k : g.n,
                    Eigen::OuterStride<>(g.ldb));
  Strided<C> c(g.c, g.m, g.n, Eigen::OuterStride<>(g.ldc));
  switch (g.op_b) {
    case GemmOp::kNoTrans:
      EigenTimes<C>(a, g.op_a, b, c);
      return;
    case GemmOp::kTrans:
      EigenTimes<C>(a, g.op_a, b.transpose(), c);
      return;
    case GemmOp::kConjTrans:
      EigenTimes<C>(a, g.op_a, b.adjoint(), c);
      return;
  }
}

template <typename C>
constexpr bool IsBlasType() {
  return std::is_same<C, float>::value || std::is_same<C, double>::value ||
         std::is_same<C, std::complex<float>>::value ||
         std::is_same<C, std::complex<double>>::value;
}

SfCblasTranspose ToCblas(GemmOp op) {
  switch (op) {
    case GemmOp::kNoTrans:
      return kSfCblasNoTrans;
    case GemmOp::kTrans:
      return kSfCblasTrans;
    case GemmOp::kConjTrans:
      return kSfCblasConjTrans;
  }
  return kSfCblasNoTrans;
}

// CBLAS takes int dimensions and strides.
template <typename C>
bool FitsCblas(const GemmArgs<C>& g) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  return g.m <= kMax && g.n <= kMax && g.k <= kMax && g.lda <= kMax &&
         g.ldb <= kMax && g.ldc <= kMax;
}

void PinBlasToOneThread() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

template <typename C>
void BlasGemm(const GemmArgs<C>& g) {
  PinBlasToOneThread();
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n),
            k = static_cast<int>(g.k), lda = static_cast<int>(g.lda),
            ldb = static_cast<int>(g.ldb), ldc = static_cast<int>(g.ldc);
  const SfCblasTranspose ta = ToCblas(g.op_a), tb = ToCblas(g.op_b);
  if constexpr (std::is_same<C, float>::value) {
    cblas_sgemm(kSfCblasRowMajor, ta, tb, m, n, k, 1.0f, g.a, lda, g.b, ldb,
                0.0f, g.c, ldc);
  } else if constexpr (std::is_same<C, double>::value) {
    cblas_dgemm(kSfCblasRowMajor, ta, tb, m, n, k, 1.0, g.a, lda, g.b, ldb, 0.0,
                g.c, ldc);
  } else {
    const C one(1), zero(0);
    if constexpr (std::is_same<C, std::complex<float>>::value) {
      cblas_cgemm(kSfCblasRowMajor, ta, tb, m, n, k, &one, g.a, lda, g.b, ldb,
                  &zero, g.c, ldc);
    } else {
      cblas_zgemm(kSfCblasRowMajor, ta, tb, m, n, k, &one, g.a, lda, g.b, ldb,
                  &zero, g.c, ldc);
    }
  }
}

}  // namespace

template <typename C>
void Gemm(const GemmArgs<C>& g) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) {
    for (int64_t i = 0; i < g.m; ++i) std::fill_n(g.c + i * g.ldc, g.n, C(0));
    return;
  }
  if constexpr (IsBlasType<C>()) {
    if (FitsCblas(g)) {
      BlasGemm(g);
      return;
    }
  }
  EigenGemm(g);
}

template <typename C>
std::vector<GemmArgs<C>> SplitGemm(const GemmArgs<C>& g, int max_blocks,
                                   int64_t min_flops_per_block) {
  const bool by_rows = g.m >= g.n;
  const int64_t extent = by_rows ? g.m : g.n;
  const int64_t per_unit = (by_rows ? g.n : g.m) * g.k;  // flops per row/col
  int64_t blocks = std::min<int64_t>(max_blocks, extent);
  if (min_flops_per_block > 0 && per_unit > 0) {
    blocks = std::min(blocks, extent * per_unit / min_flops_per_block);
  }
  if (blocks <= 1) return {g};
  std::vector<GemmArgs<C>> out;
  out.reserve(blocks);
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t begin = extent * i / blocks;
    const int64_t end = extent * (i + 1) / blocks;
    GemmArgs<C> part = g;
    if (by_rows) {
      // Rows [begin, end) of op(A) and of C.
      part.m = end - begin;
      part.a = g.op_a == GemmOp::kNoTrans ? g.a + begin * g.lda : g.a + begin;
      part.c = g.c + begin * g.ldc;
    } else {
      // Columns [begin, end) of op(B) and of C.
      part.n = end - begin;
      part.b = g.op_b == GemmOp::kNoTrans ? g.b + begin : g.b + begin * g.ldb;
      part.c = g.c + begin;
    }
    out.push_back(part);
  }
  return out;
}

#define SF_INSTANTIATE_GEMM(C)                                            \
  template void Gemm<C>(const GemmArgs<C>&);                              \
  template std::vector<GemmArgs<C>> SplitGemm<C>(const GemmArgs<C>&, int, \
                                                 int64_t);
SF_INSTANTIATE_GEMM(float)
SF_INSTANTIATE_GEMM(double)
SF_INSTANTIATE_GEMM(std::complex<float>)
SF_INSTANTIATE_GEMM(std::complex<double>)
SF_INSTANTIATE_GEMM(uint32_t)
SF_INSTANTIATE_GEMM(uint64_t)
#undef SF_INSTANTIATE_GEMM

}  // namespace stepflow
