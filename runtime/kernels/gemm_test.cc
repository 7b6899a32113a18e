#include "runtime/kernels/gemm.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

// Element (i, j) of op(X) where X is stored row-major with row stride ld.
template <typename C>
C OpAt(const C* x, int64_t ld, GemmOp op, int64_t i, int64_t j) {
  if (op == GemmOp::kNoTrans) return x[i * ld + j];
  C v = x[j * ld + i];
  if constexpr (std::is_same<C, std::complex<float>>::value ||
                std::is_same<C, std::complex<double>>::value) {
    if (op == GemmOp::kConjTrans) v = std::conj(v);
  }
  return v;
}

template <typename C>
C Value(int64_t seed) {
  const int64_t r = (seed * 2654435761u) % 97;
  if constexpr (std::is_same<C, std::complex<float>>::value ||
                std::is_same<C, std::complex<double>>::value) {
    using R = typename C::value_type;
    return C(static_cast<R>(r % 13) - 6, static_cast<R>(r % 7) - 3);
  } else if constexpr (std::is_integral<C>::value) {
    return static_cast<C>(r * 40503u);  // Large enough to wrap.
  } else {
    return static_cast<C>(r % 17) - static_cast<C>(8);
  }
}

// A product over padded (strided) storage, its naive reference, and checks.
template <typename C>
struct Problem {
  Problem(int64_t m, int64_t n, int64_t k, GemmOp op_a, GemmOp op_b) {
    g.m = m;
    g.n = n;
    g.k = k;
    g.op_a = op_a;
    g.op_b = op_b;
    const int64_t a_rows = op_a == GemmOp::kNoTrans ? m : k;
    const int64_t a_cols = op_a == GemmOp::kNoTrans ? k : m;
    const int64_t b_rows = op_b == GemmOp::kNoTrans ? k : n;
    const int64_t b_cols = op_b == GemmOp::kNoTrans ? n : k;
    g.lda = a_cols + 3;
    g.ldb = b_cols + 1;
    g.ldc = n + 2;
    a.resize(a_rows * g.lda);
    b.resize(b_rows * g.ldb);
    c.assign(m * g.ldc, Value<C>(999));  // Padding must survive.
    for (size_t i = 0; i < a.size(); ++i) a[i] = Value<C>(i);
    for (size_t i = 0; i < b.size(); ++i) b[i] = Value<C>(i + 7);
    g.a = a.data();
    g.b = b.data();
    g.c = c.data();
  }

  // Every entry equals the naive sum (exact: small integers, or wrapping
  // unsigned arithmetic), and the padding columns of C are untouched.
  void Check() const {
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.ldc; ++j) {
        if (j >= g.n) {
          ASSERT_EQ(c[i * g.ldc + j], Value<C>(999)) << "padding " << i;
          continue;
        }
        C want(0);
        for (int64_t p = 0; p < g.k; ++p) {
          want +=
              OpAt(g.a, g.lda, g.op_a, i, p) * OpAt(g.b, g.ldb, g.op_b, p, j);
        }
        ASSERT_EQ(c[i * g.ldc + j], want) << i << "," << j;
      }
    }
  }

  std::vector<C> a, b, c;
  GemmArgs<C> g;
};

template <typename C>
class GemmTest : public ::testing::Test {};
using GemmTypes = ::testing::Types<float, double, std::complex<float>,
                                   std::complex<double>, uint32_t, uint64_t>;
TYPED_TEST_SUITE(GemmTest, GemmTypes);

TYPED_TEST(GemmTest, EveryOperandOpOverStridedStorage) {
  const GemmOp ops[] = {GemmOp::kNoTrans, GemmOp::kTrans, GemmOp::kConjTrans};
  for (GemmOp op_a : ops) {
    for (GemmOp op_b : ops) {
      Problem<TypeParam> p(5, 7, 9, op_a, op_b);
      Gemm(p.g);
      SCOPED_TRACE(testing::Message()
                   << static_cast<int>(op_a) << " " << static_cast<int>(op_b));
      p.Check();
    }
  }
}

TYPED_TEST(GemmTest, EmptyInnerDimensionZeroesTheOutput) {
  Problem<TypeParam> p(3, 4, 0, GemmOp::kNoTrans, GemmOp::kNoTrans);
  Gemm(p.g);
  p.Check();
}

TYPED_TEST(GemmTest, BlocksCoverTheProductExactly) {
  for (GemmOp op : {GemmOp::kNoTrans, GemmOp::kTrans}) {
    // Tall (split by rows) and wide (split by columns).
    for (auto [m, n] : {std::pair<int64_t, int64_t>{37, 5}, {4, 41}}) {
      Problem<TypeParam> p(m, n, 6, op, op);
      const auto blocks = SplitGemm(p.g, 4, 0);
      ASSERT_EQ(blocks.size(), 4u);
      for (const auto& block : blocks) Gemm(block);
      p.Check();
    }
  }
}

TEST(SplitGemmTest, SmallProductsStayWhole) {
  Problem<float> p(64, 64, 64, GemmOp::kNoTrans, GemmOp::kNoTrans);
  // 64^3 = 262144 multiply-adds: at most 2 blocks of 2^17, none of 2^20.
  EXPECT_EQ(SplitGemm(p.g, 8, int64_t{1} << 17).size(), 2u);
  EXPECT_EQ(SplitGemm(p.g, 8, int64_t{1} << 20).size(), 1u);
  EXPECT_EQ(SplitGemm(p.g, 1, 0).size(), 1u);
  // Never more blocks than rows.
  Problem<float> thin(3, 2, 1000, GemmOp::kNoTrans, GemmOp::kNoTrans);
  EXPECT_EQ(SplitGemm(thin.g, 8, 0).size(), 3u);
}

TEST(SplitGemmTest, BlockedFloatProductIsCloseAndRepeatable) {
  // Non-integer operands. A block may take other BLAS kernels than the
  // whole product (edge tiles), so the last bits may differ from the whole
  // product's, but the same cut always gives the same bits.
  const int64_t m = 301, n = 77, k = 513;
  std::vector<float> a(m * k), b(k * n), whole(m * n), split(m * n),
      again(m * n);
  for (int64_t i = 0; i < m * k; ++i) a[i] = 1.0f / (1 + i % 101);
  for (int64_t i = 0; i < k * n; ++i) b[i] = 1.0f / (3 + i % 89);
  GemmArgs<float> g = DenseGemmArgs(a.data(), k, GemmOp::kNoTrans, b.data(), n,
                                    GemmOp::kNoTrans, whole.data(), m, n, k);
  Gemm(g);
  for (std::vector<float>* out : {&split, &again}) {
    g.c = out->data();
    for (const auto& block : SplitGemm(g, 3, 0)) Gemm(block);
  }
  EXPECT_EQ(std::memcmp(split.data(), again.data(), split.size() * 4), 0);
  for (int64_t i = 0; i < m * n; ++i) {
    ASSERT_NEAR(split[i], whole[i], 1e-5f * std::fabs(whole[i])) << i;
  }
}

}  // namespace
}  // namespace stepflow
