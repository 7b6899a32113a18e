// The per-ISA depthwise float loops against a direct definition of the
// three passes: the baseline loops must give the same bits as plain float
// sums in the generic kernel's order, every loop this CPU runs must agree
// with a double-precision sum to float rounding, over shapes that exercise
// padding on every side, strides 1-3, filters larger than the input and
// channel counts that leave every kind of vector tail.
#include "runtime/kernels/depthwise_conv_float.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace stepflow {
namespace depthwise {
namespace {

struct Case {
  int64_t in_rows, in_cols, channels, filter_rows, filter_cols, stride;
  int64_t pad_top, pad_left, out_rows, out_cols;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const int64_t channel_counts[] = {1, 3, 4, 8, 13, 16, 37, 64, 70};
  for (int64_t ch : channel_counts) {
    for (int64_t stride : {1, 2, 3}) {
      for (int64_t f : {1, 3, 5}) {
        for (int64_t pad : {0, 1, 2}) {
          Case c{7, 6, ch, f, f == 5 ? 2 : f, stride, pad, pad / 2, 0, 0};
          // Outputs as SAME / VALID / EXPLICIT would give, plus one more
          // row than fits (its windows fall in the padding past the end).
          c.out_rows = (c.in_rows + 2 * pad - c.filter_rows) / stride + 1;
          c.out_cols = (c.in_cols + pad - c.filter_cols) / stride + 1;
          if (c.out_rows < 1 || c.out_cols < 1) continue;
          cases.push_back(c);
          Case tall = c;
          tall.out_rows += 1;
          cases.push_back(tall);
        }
      }
    }
  }
  // A filter larger than the input (outputs only over padding on one side).
  cases.push_back({2, 2, 5, 4, 4, 1, 2, 2, 3, 3});
  return cases;
}

FloatGeometry GeometryOf(const Case& c) {
  FloatGeometry g;
  g.in_rows = c.in_rows;
  g.in_cols = c.in_cols;
  g.out_rows = c.out_rows;
  g.out_cols = c.out_cols;
  g.filter_rows = c.filter_rows;
  g.filter_cols = c.filter_cols;
  g.channels = c.channels;
  g.stride = c.stride;
  g.pad_top = c.pad_top;
  g.pad_left = c.pad_left;
  return g;
}

std::vector<float> Random(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(*rng);
  return v;
}

// Calls fn(in_offset, filter_offset, out_offset) for every product of the
// convolution, outputs in raster order and taps in filter order (the
// generic kernel's order).
template <typename Fn>
void ForEachProduct(const FloatGeometry& g, Fn fn) {
  for (int64_t oy = 0; oy < g.out_rows; ++oy) {
    for (int64_t ox = 0; ox < g.out_cols; ++ox) {
      for (int64_t ky = 0; ky < g.filter_rows; ++ky) {
        const int64_t iy = oy * g.stride - g.pad_top + ky;
        if (iy < 0 || iy >= g.in_rows) continue;
        for (int64_t kx = 0; kx < g.filter_cols; ++kx) {
          const int64_t ix = ox * g.stride - g.pad_left + kx;
          if (ix < 0 || ix >= g.in_cols) continue;
          for (int64_t c = 0; c < g.channels; ++c) {
            fn((iy * g.in_cols + ix) * g.channels + c,
               (ky * g.filter_cols + kx) * g.channels + c,
               (oy * g.out_cols + ox) * g.channels + c);
          }
        }
      }
    }
  }
}

// The three passes summed in T, in the generic order.
template <typename T>
struct Reference {
  std::vector<T> out, din, dfilter;
};

template <typename T>
Reference<T> Compute(const FloatGeometry& g, const std::vector<float>& in,
                     const std::vector<float>& filter,
                     const std::vector<float>& dy) {
  Reference<T> r;
  r.out.assign(g.out_rows * g.out_cols * g.channels, T(0));
  r.din.assign(in.size(), T(0));
  r.dfilter.assign(filter.size(), T(0));
  ForEachProduct(g, [&](int64_t i, int64_t f, int64_t o) {
    r.out[o] += T(in[i]) * T(filter[f]);
    r.din[i] += T(dy[o]) * T(filter[f]);
    r.dfilter[f] += T(in[i]) * T(dy[o]);
  });
  return r;
}

// Runs the three passes of `k`, the row-split ones as two calls split at a
// middle row (as two threads would), onto outputs prefilled with garbage.
void RunPasses(const FloatKernels& k, const FloatGeometry& g,
               const std::vector<float>& in, const std::vector<float>& filter,
               const std::vector<float>& dy, Reference<float>* got) {
  got->out.assign(g.out_rows * g.out_cols * g.channels, -7.0f);
  got->din.assign(in.size(), -7.0f);
  got->dfilter.assign(filter.size(), -7.0f);
  const int64_t out_mid = g.out_rows / 2, in_mid = g.in_rows / 2;
  k.forward(g, in.data(), filter.data(), 0, out_mid, got->out.data());
  k.forward(g, in.data(), filter.data(), out_mid, g.out_rows, got->out.data());
  k.backprop_input(g, filter.data(), dy.data(), 0, in_mid, got->din.data());
  k.backprop_input(g, filter.data(), dy.data(), in_mid, g.in_rows,
                   got->din.data());
  k.backprop_filter(g, in.data(), dy.data(), got->dfilter.data());
}

std::string Describe(const Case& c) {
  return "in " + std::to_string(c.in_rows) + "x" + std::to_string(c.in_cols) +
         "x" + std::to_string(c.channels) + " filter " +
         std::to_string(c.filter_rows) + "x" + std::to_string(c.filter_cols) +
         " stride " + std::to_string(c.stride) + " pad " +
         std::to_string(c.pad_top) + "," + std::to_string(c.pad_left) +
         " out " + std::to_string(c.out_rows) + "x" +
         std::to_string(c.out_cols);
}

// |got - want| within float rounding of a sum of up to ~50 products:
// 8e-6 (about 64 float ulps) of the sum of the products' magnitudes.
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want,
                 const std::vector<double>& magnitude,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t e = 0; e < got.size(); ++e) {
    const double tol = 8e-6 * magnitude[e];
    ASSERT_LE(std::fabs(got[e] - want[e]), tol)
        << what << " element " << e << ": " << got[e] << " vs " << want[e];
  }
}

class DepthwiseFloatTest : public ::testing::TestWithParam<CpuIsa> {};

TEST_P(DepthwiseFloatTest, MatchesDirectSums) {
  if (!CpuSupports(GetParam())) {
    GTEST_SKIP() << "this CPU lacks the ISA";
  }
  const FloatKernels& k = KernelsFor(GetParam());
  std::mt19937 rng(17);
  int checked = 0;
  for (const Case& c : Cases()) {
    const FloatGeometry g = GeometryOf(c);
    const std::vector<float> in =
        Random(c.in_rows * c.in_cols * c.channels, &rng);
    const std::vector<float> filter =
        Random(c.filter_rows * c.filter_cols * c.channels, &rng);
    const std::vector<float> dy =
        Random(c.out_rows * c.out_cols * c.channels, &rng);
    Reference<float> got;
    RunPasses(k, g, in, filter, dy, &got);
    const std::string what = std::string(k.isa) + " " + Describe(c);
    if (GetParam() == CpuIsa::kBaseline) {
      const Reference<float> want = Compute<float>(g, in, filter, dy);
      ASSERT_EQ(got.out, want.out) << what << " forward";
      ASSERT_EQ(got.din, want.din) << what << " input gradient";
      ASSERT_EQ(got.dfilter, want.dfilter) << what << " filter gradient";
    }
    const Reference<double> exact = Compute<double>(g, in, filter, dy);
    std::vector<float> abs_in(in.size()), abs_filter(filter.size()),
        abs_dy(dy.size());
    for (size_t e = 0; e < in.size(); ++e) abs_in[e] = std::fabs(in[e]);
    for (size_t e = 0; e < filter.size(); ++e) {
      abs_filter[e] = std::fabs(filter[e]);
    }
    for (size_t e = 0; e < dy.size(); ++e) abs_dy[e] = std::fabs(dy[e]);
    const Reference<double> mag =
        Compute<double>(g, abs_in, abs_filter, abs_dy);
    ExpectClose(got.out, exact.out, mag.out, what + " forward");
    ExpectClose(got.din, exact.din, mag.din, what + " input gradient");
    ExpectClose(got.dfilter, exact.dfilter, mag.dfilter,
                what + " filter gradient");
    ++checked;
  }
  EXPECT_GT(checked, 400);
}

INSTANTIATE_TEST_SUITE_P(AllIsas, DepthwiseFloatTest,
                         ::testing::Values(CpuIsa::kBaseline, CpuIsa::kAvx2,
                                           CpuIsa::kAvx512),
                         [](const ::testing::TestParamInfo<CpuIsa>& info) {
                           return std::string(CpuIsaName(info.param));
                         });

TEST(DepthwiseFloatDispatchTest, BestIsTheWidestSupported) {
  EXPECT_EQ(&BestKernels(), &KernelsFor(BestCpuIsa()));
  EXPECT_STREQ(BestKernels().isa, CpuIsaName(BestCpuIsa()));
  if (CpuSupports(CpuIsa::kAvx512)) {
    EXPECT_EQ(BestCpuIsa(), CpuIsa::kAvx512);
  } else if (CpuSupports(CpuIsa::kAvx2)) {
    EXPECT_EQ(BestCpuIsa(), CpuIsa::kAvx2);
  } else {
    EXPECT_EQ(BestCpuIsa(), CpuIsa::kBaseline);
  }
}

}  // namespace
}  // namespace depthwise
}  // namespace stepflow
