// Gemm: one row-major matrix product C = op(A) * op(B), the building block
// of the MatMul and BatchMatMul kernels.
//
// float, double, complex64 and complex128 products go to OpenBLAS's CBLAS,
// which picks its kernels for the CPU it runs on (AVX2+FMA, AVX-512, or the
// baseline SSE2 build), so one stepflow binary is both portable and fast.
// Other element types (the unsigned arithmetic types of int32/int64, see
// ArithType) use Eigen's GEMM.
//
// Threads: OpenBLAS is pinned to one thread the first time Gemm runs.
// stepflow parallelises a large product itself, by cutting it into blocks
// (SplitGemm) that the kernel schedules on the Env's Scheduler; in
// simulation the Scheduler has one thread, so every product runs inline.
//
// Determinism: the same product on the same machine gives the same bits.
// OpenBLAS selects its kernels per CPU model, so the last bits of a float
// product may differ between CPU generations; set OPENBLAS_CORETYPE (for
// example Haswell) to pin the kernel set when replaying across machines.
//
// Thread-safety: Gemm and SplitGemm are reentrant. Errors: none; callers
// validate shapes first (dimensions must be consistent and non-negative).
#ifndef STEPFLOW_RUNTIME_KERNELS_GEMM_H_
#define STEPFLOW_RUNTIME_KERNELS_GEMM_H_

#include <cstdint>
#include <vector>

namespace stepflow {

// How an operand enters the product: as stored, transposed, or conjugate-
// transposed (the adjoint; equal to kTrans for real types).
enum class GemmOp { kNoTrans, kTrans, kConjTrans };

// C (m x n, row stride ldc) = op_a(A) * op_b(B), where op_a(A) is m x k and
// op_b(B) is k x n. A and B are row-major with row strides lda and ldb: A is
// stored m x k when op_a is kNoTrans and k x m otherwise; likewise B is
// stored k x n or n x k. C is overwritten (never read). m, n, k may be 0.
template <typename C>
struct GemmArgs {
  const C* a = nullptr;
  int64_t lda = 0;
  GemmOp op_a = GemmOp::kNoTrans;
  const C* b = nullptr;
  int64_t ldb = 0;
  GemmOp op_b = GemmOp::kNoTrans;
  C* c = nullptr;
  int64_t ldc = 0;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// The product op_a(A) * op_b(B) into a dense m x n C (ldc = n).
template <typename C>
GemmArgs<C> DenseGemmArgs(const C* a, int64_t lda, GemmOp op_a, const C* b,
                          int64_t ldb, GemmOp op_b, C* c, int64_t m, int64_t n,
                          int64_t k) {
  GemmArgs<C> g;
  g.a = a;
  g.lda = lda;
  g.op_a = op_a;
  g.b = b;
  g.ldb = ldb;
  g.op_b = op_b;
  g.c = c;
  g.ldc = n;
  g.m = m;
  g.n = n;
  g.k = k;
  return g;
}

// Computes one product. Instantiated for float, double, std::complex<float>,
// std::complex<double>, uint32_t and uint64_t (wrapping integer products).
template <typename C>
void Gemm(const GemmArgs<C>& args);

// Cuts `args` into at most `max_blocks` products over disjoint blocks of C:
// row blocks when C has at least as many rows as columns, column blocks
// otherwise. Blocks hold at least `min_flops_per_block` multiply-adds
// (m * n * k) where the product allows, so small products stay whole.
// Running every block computes exactly `args`. Returns one block (args
// itself) when no cut is worth it.
template <typename C>
std::vector<GemmArgs<C>> SplitGemm(const GemmArgs<C>& args, int max_blocks,
                                   int64_t min_flops_per_block);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_GEMM_H_
