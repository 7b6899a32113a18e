// The float inner loops of DepthwiseConv2dNative and its two gradients
// for a channel multiplier of 1 (MobileNet's case), compiled once per
// x86 vector extension (cpu_isa.h) and chosen at run time: AVX-512F, AVX2
// with FMA, or the baseline. Each loop keeps a block of channels' sums in
// vector registers over the filter taps (or, for the filter gradient, over
// the output positions) and stores each result once.
//
// Values: every result is the sum of its products in the order the
// generic kernel adds them (taps in filter order, positions in raster
// order), starting from 0; the AVX2 and AVX-512 loops fuse each multiply
// and add (one rounding instead of two), so they differ from the baseline
// by rounding only. The baseline loop gives the generic kernel's bits.
//
// Thread-safety: the functions are pure; calls on disjoint output ranges
// may run concurrently.
#ifndef STEPFLOW_RUNTIME_KERNELS_DEPTHWISE_CONV_FLOAT_H_
#define STEPFLOW_RUNTIME_KERNELS_DEPTHWISE_CONV_FLOAT_H_

#include <cstdint>

#include "runtime/kernels/cpu_isa.h"

namespace stepflow {
namespace depthwise {

// One image's geometry, channels-last: input in_rows x in_cols x channels,
// output out_rows x out_cols x channels, filter filter_rows x filter_cols x
// channels; equal row and column strides, dilation 1, `pad_top` /
// `pad_left` positions of implicit zeros before the input.
struct FloatGeometry {
  int64_t in_rows = 0, in_cols = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t filter_rows = 0, filter_cols = 0;
  int64_t channels = 0;
  int64_t stride = 1;
  int64_t pad_top = 0, pad_left = 0;
};

struct FloatKernels {
  // Writes output rows [row_begin, row_end) of one image: `in` is the
  // image, `out` the image's output (every element of the rows written).
  void (*forward)(const FloatGeometry& g, const float* in, const float* filter,
                  int64_t row_begin, int64_t row_end, float* out);
  // Writes input-gradient rows [row_begin, row_end) of one image from its
  // output gradient `dy` (every element of the rows written).
  void (*backprop_input)(const FloatGeometry& g, const float* filter,
                         const float* dy, int64_t row_begin, int64_t row_end,
                         float* din);
  // Writes one image's filter gradient (filter_rows x filter_cols x
  // channels, every element written) from its input and output gradient.
  void (*backprop_filter)(const FloatGeometry& g, const float* in,
                          const float* dy, float* dfilter);
  const char* isa;  // CpuIsaName of the ISA they were built for
};

// The loops compiled for `isa`; the caller checks CpuSupports(isa) first.
const FloatKernels& KernelsFor(CpuIsa isa);

// The loops for BestCpuIsa().
const FloatKernels& BestKernels();

}  // namespace depthwise
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_DEPTHWISE_CONV_FLOAT_H_
