// The loops behind depthwise_conv_float.h, written once over a GCC vector
// type V (sizeof(V) / sizeof(float) lanes) and compiled by each per-ISA
// source (depthwise_conv_float_<isa>.cc) with that ISA's flags.
//
// Private to those sources. Everything here has internal linkage and uses
// no inline function of another header, so no out-of-line copy compiled
// for a wide ISA can be shared with (and run by) code built for the
// baseline.
#ifndef STEPFLOW_RUNTIME_KERNELS_DEPTHWISE_CONV_FLOAT_IMPL_H_
#define STEPFLOW_RUNTIME_KERNELS_DEPTHWISE_CONV_FLOAT_IMPL_H_

#include <cstdint>

#include "runtime/kernels/depthwise_conv_float.h"
#include "runtime/kernels/isa_loop_util.h"

namespace stepflow {
namespace depthwise {
namespace {

inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t Max(int64_t a, int64_t b) { return a > b ? a : b; }

using isa_loop::kLanes;
using isa_loop::Load;
using isa_loop::Store;

// The channel blocks of one position: `Body<N>(c)` for N vectors of
// channels at c (N = 4, then 1), then Body<0>(c) for each channel left.
template <typename V, typename Body>
inline void ForChannelBlocks(int64_t channels, Body&& body) {
  int64_t c = 0;
  for (; c + 4 * kLanes<V> <= channels; c += 4 * kLanes<V>) {
    body.template Run<4>(c);
  }
  for (; c + kLanes<V> <= channels; c += kLanes<V>) body.template Run<1>(c);
  for (; c < channels; ++c) body.template Run<0>(c);
}

// Sums sum_t a[a_off(t) + c] * b[b_off(t) + c] over the taps `Taps` yields
// for N vectors (N = 0: one channel) and stores them at dst + c.
template <typename V, typename Taps>
struct DotBlocks {
  const float* a;
  const float* b;
  float* dst;
  const Taps& taps;

  template <int N>
  void Run(int64_t c) const {
    if constexpr (N == 0) {
      float acc = 0;
      taps([&](int64_t ao, int64_t bo) { acc += a[ao + c] * b[bo + c]; });
      dst[c] = acc;
    } else {
      // Unrolled, so that the N sums stay in registers.
      V acc[N];
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) acc[j] = V{};
      taps([&](int64_t ao, int64_t bo) {
#pragma GCC unroll 4
        for (int j = 0; j < N; ++j) {
          acc[j] += Load<V>(a + ao + c + j * kLanes<V>) *
                    Load<V>(b + bo + c + j * kLanes<V>);
        }
      });
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) Store<V>(dst + c + j * kLanes<V>, acc[j]);
    }
  }
};

template <typename V, typename Taps>
inline void Dot(int64_t channels, const float* a, const float* b, float* dst,
                const Taps& taps) {
  ForChannelBlocks<V>(channels, DotBlocks<V, Taps>{a, b, dst, taps});
}

template <typename V>
void Forward(const FloatGeometry& g, const float* in, const float* filter,
             int64_t row_begin, int64_t row_end, float* out) {
  const int64_t ch = g.channels;
  for (int64_t oy = row_begin; oy < row_end; ++oy) {
    const int64_t iy0 = oy * g.stride - g.pad_top;
    const int64_t ky_begin = Max(0, -iy0);
    const int64_t ky_end = Min(g.filter_rows, g.in_rows - iy0);
    for (int64_t ox = 0; ox < g.out_cols; ++ox) {
      const int64_t ix0 = ox * g.stride - g.pad_left;
      const int64_t kx_begin = Max(0, -ix0);
      const int64_t kx_end = Min(g.filter_cols, g.in_cols - ix0);
      // Taps in filter order: (input offset, filter offset).
      auto taps = [&](auto&& fn) {
        for (int64_t ky = ky_begin; ky < ky_end; ++ky) {
          const int64_t in_row = ((iy0 + ky) * g.in_cols + ix0) * ch;
          const int64_t f_row = ky * g.filter_cols * ch;
          for (int64_t kx = kx_begin; kx < kx_end; ++kx) {
            fn(in_row + kx * ch, f_row + kx * ch);
          }
        }
      };
      Dot<V>(ch, in, filter, out + (oy * g.out_cols + ox) * ch, taps);
    }
  }
}

// The taps k (0 <= k < filter) and output positions o = (t - k) / stride
// (0 <= o < outs) with t - k a multiple of the stride, for the input
// position whose padded index is t, in increasing o (decreasing k, the
// order in which the generic kernel adds them): k runs from *first down
// to *last (inclusive) by stride; none when *first < *last.
inline void GradTaps(int64_t t, int64_t filter, int64_t outs, int64_t stride,
                     int64_t* first, int64_t* last) {
  const int64_t lower = Max(0, t - stride * (outs - 1));
  *last = lower + (t - lower) % stride;
  const int64_t end = Min(filter, t + 1);
  *first =
      end <= *last ? *last - 1 : *last + (end - 1 - *last) / stride * stride;
}

template <typename V>
void BackpropInput(const FloatGeometry& g, const float* filter, const float* dy,
                   int64_t row_begin, int64_t row_end, float* din) {
  const int64_t ch = g.channels;
  const int64_t s = g.stride;
  for (int64_t iy = row_begin; iy < row_end; ++iy) {
    const int64_t ty = iy + g.pad_top;
    int64_t ky_first, ky_last;
    GradTaps(ty, g.filter_rows, g.out_rows, s, &ky_first, &ky_last);
    for (int64_t ix = 0; ix < g.in_cols; ++ix) {
      const int64_t tx = ix + g.pad_left;
      int64_t kx_first, kx_last;
      GradTaps(tx, g.filter_cols, g.out_cols, s, &kx_first, &kx_last);
      // Taps in the generic kernel's order: (output-gradient offset,
      // filter offset).
      auto taps = [&](auto&& fn) {
        for (int64_t ky = ky_first; ky >= ky_last; ky -= s) {
          const int64_t oy = (ty - ky) / s;
          for (int64_t kx = kx_first; kx >= kx_last; kx -= s) {
            const int64_t ox = (tx - kx) / s;
            fn((oy * g.out_cols + ox) * ch, (ky * g.filter_cols + kx) * ch);
          }
        }
      };
      Dot<V>(ch, dy, filter, din + (iy * g.in_cols + ix) * ch, taps);
    }
  }
}

template <typename V>
void BackpropFilter(const FloatGeometry& g, const float* in, const float* dy,
                    float* dfilter) {
  const int64_t ch = g.channels;
  for (int64_t ky = 0; ky < g.filter_rows; ++ky) {
    // Output rows whose window row ky lies inside the input.
    const int64_t oy_begin = Max(0, (g.pad_top - ky + g.stride - 1) / g.stride);
    const int64_t oy_end =
        Min(g.out_rows,
            Max(0, (g.in_rows + g.pad_top - ky + g.stride - 1) / g.stride));
    for (int64_t kx = 0; kx < g.filter_cols; ++kx) {
      const int64_t ox_begin =
          Max(0, (g.pad_left - kx + g.stride - 1) / g.stride);
      const int64_t ox_end =
          Min(g.out_cols,
              Max(0, (g.in_cols + g.pad_left - kx + g.stride - 1) / g.stride));
      // Positions in raster order: (input offset, output-gradient offset).
      auto taps = [&](auto&& fn) {
        for (int64_t oy = oy_begin; oy < oy_end; ++oy) {
          const int64_t iy = oy * g.stride - g.pad_top + ky;
          for (int64_t ox = ox_begin; ox < ox_end; ++ox) {
            const int64_t ix = ox * g.stride - g.pad_left + kx;
            fn((iy * g.in_cols + ix) * ch, (oy * g.out_cols + ox) * ch);
          }
        }
      };
      Dot<V>(ch, in, dy, dfilter + (ky * g.filter_cols + kx) * ch, taps);
    }
  }
}

template <typename V>
constexpr FloatKernels MakeKernels(const char* isa) {
  return FloatKernels{&Forward<V>, &BackpropInput<V>, &BackpropFilter<V>, isa};
}

}  // namespace
}  // namespace depthwise
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_DEPTHWISE_CONV_FLOAT_IMPL_H_
