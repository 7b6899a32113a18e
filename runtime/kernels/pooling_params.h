// Pooling geometry shared by the pooling kernels (MaxPool, AvgPool, their
// 3-D forms and gradients): reading the window attrs, checking them the
// way TensorFlow's CPU kernels do, and the windows themselves.
//
// Every pooling kernel runs channels-last (NHWC / NDHWC) on the CPU, viewed
// as [batch, planes, rows, cols, depth]; 2-D pooling has one plane. The
// channels-first formats are refused with InvalidArgument, as TensorFlow's
// CPU kernels refuse them, except MaxPoolV2's NCHW_VECT_C
// (PoolOptions::vect_c).
//
// Error contract: every function returns an absl::Status naming the node:
// InvalidArgument for malformed attrs, ranks and sizes (a negative output
// size), Unimplemented for pooling over the batch dimension and for the
// depth-pooling combinations no CPU kernel implements, ResourceExhausted
// for outputs too large to allocate. Nothing here aborts.
#ifndef STEPFLOW_RUNTIME_KERNELS_POOLING_PARAMS_H_
#define STEPFLOW_RUNTIME_KERNELS_POOLING_PARAMS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

enum class PoolPadding { kSame, kValid, kExplicit };

// A pooling node's attrs. ksize and strides are in the data format's order
// (N, [D,] H, W, C); empty when the op takes them as inputs (the V2 ops).
struct PoolOptions {
  int spatial_dims = 2;  // 2 or 3
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  PoolPadding padding = PoolPadding::kValid;
  std::vector<int64_t> explicit_paddings;  // 2 per dimension, EXPLICIT only
  // MaxPoolV2's NCHW_VECT_C: input [N, C/4, H, W, 4], ksize/strides in
  // NCHW order; the buffer is pooled as NHWC [N, H, W, C], as TensorFlow's
  // CPU kernel pools it.
  bool vect_c = false;
};

// Reads and checks data_format, ksize, strides (when `sizes_from_attrs`),
// padding and explicit_paddings (when the op has it).
absl::Status ReadPoolOptions(OpKernelConstruction* ctx, const OpKernel& kernel,
                             int spatial_dims, bool sizes_from_attrs,
                             PoolOptions* options);

// Checks ksize/strides lists (attrs, or the V2 ops' inputs): their length,
// positive window sizes, no pooling over the batch dimension (nor, in 3-D,
// over depth).
absl::Status CheckPoolSizes(const OpKernel& kernel, int spatial_dims,
                            const std::vector<int64_t>& ksize,
                            const std::vector<int64_t>& strides);

// Reads a V2 op's ksize and strides inputs (int32, any shape, flattened)
// into options and checks them.
absl::Status ReadPoolSizeInputs(OpKernelContext* ctx, int ksize_index,
                                PoolOptions* options);

// The windows of one pooling pass. Spatial arrays are [planes, rows, cols].
struct PoolGeometry {
  int64_t batch = 0;
  int64_t depth = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t window[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};  // padding before each dimension
  // Max pooling across depth (2-D MaxPool only): windows of depth_window
  // channels, out_depth = depth / depth_window; spatially the identity.
  int64_t depth_window = 1;
  int64_t out_depth = 0;

  int64_t in_pixels() const { return in[0] * in[1] * in[2]; }
  int64_t out_pixels() const { return out[0] * out[1] * out[2]; }
  // The input range [*begin, *end) output index `o` of dimension `dim`
  // covers, clipped to the input.
  void Window(int dim, int64_t o, int64_t* begin, int64_t* end) const {
    const int64_t start = o * stride[dim] - pad[dim];
    *begin = std::max<int64_t>(start, 0);
    *end = std::min(start + window[dim], in[dim]);
  }
  // The forward output's shape (rank 4 or 5).
  TensorShape OutputShape(int spatial_dims) const;
};

// The flat pixel index of (b, p, r, c) in a [batch, planes, rows, cols]
// grid with spatial sizes `dims`.
inline int64_t PixelIndex(const int64_t dims[3], int64_t b, int64_t p,
                          int64_t r, int64_t c) {
  return ((b * dims[0] + p) * dims[1] + r) * dims[2] + c;
}

// Calls fn(input pixel index) for every input pixel in the window of output
// pixel (b, p, r, c), planes then rows then columns ascending.
template <typename Fn>
void ForEachWindowPixel(const PoolGeometry& g, int64_t b, int64_t p, int64_t r,
                        int64_t c, Fn&& fn) {
  int64_t p0, p1, r0, r1, c0, c1;
  g.Window(0, p, &p0, &p1);
  g.Window(1, r, &r0, &r1);
  g.Window(2, c, &c0, &c1);
  for (int64_t ip = p0; ip < p1; ++ip) {
    for (int64_t ir = r0; ir < r1; ++ir) {
      const int64_t row = PixelIndex(g.in, b, ip, ir, 0);
      for (int64_t ic = c0; ic < c1; ++ic) fn(row + ic);
    }
  }
}

// The number of input pixels in output pixel (p, r, c)'s window.
inline int64_t WindowPixelCount(const PoolGeometry& g, int64_t p, int64_t r,
                                int64_t c) {
  int64_t n = 1;
  const int64_t o[3] = {p, r, c};
  for (int d = 0; d < 3; ++d) {
    int64_t begin, end;
    g.Window(d, o[d], &begin, &end);
    n *= std::max<int64_t>(end - begin, 0);
  }
  return n;
}

// For output pixel (b, p, r, c) of a max pooling: max[d] over its window
// and pixel[d], the input pixel holding it: the first in window order among
// equal maxima (a NaN never replaces a number); -1 with max[d] the lowest
// value for an empty window.
template <typename T>
void WindowArgMax(const PoolGeometry& g, const T* in, int64_t b, int64_t p,
                  int64_t r, int64_t c, T* max, int64_t* pixel) {
  const int64_t depth = g.depth;
  std::fill(max, max + depth, Eigen::NumTraits<T>::lowest());
  std::fill(pixel, pixel + depth, int64_t{-1});
  ForEachWindowPixel(g, b, p, r, c, [&](int64_t pix) {
    const T* x = in + pix * depth;
    for (int64_t d = 0; d < depth; ++d) {
      if (pixel[d] < 0 || max[d] < x[d]) {
        max[d] = x[d];
        pixel[d] = pix;
      }
    }
  });
}

// Calls fn(b, p, r, c, pixel) for every output pixel of the output rows
// [begin, end) of a loop over [batch, planes, rows], pixel being the flat
// output pixel index.
template <typename Fn>
void ForEachOutputPixel(const PoolGeometry& g, int64_t begin, int64_t end,
                        Fn&& fn) {
  for (int64_t u = begin; u < end; ++u) {
    const int64_t r = u % g.out[1];
    const int64_t p = (u / g.out[1]) % g.out[0];
    const int64_t b = u / (g.out[1] * g.out[0]);
    for (int64_t c = 0; c < g.out[2]; ++c) {
      fn(b, p, r, c, PixelIndex(g.out, b, p, r, c));
    }
  }
}

// The geometry of `options` over an input of `input_shape`. Depth windows
// other than 1 are accepted only when `allow_depth_pooling` (MaxPool).
absl::Status ComputePoolGeometry(const OpKernel& kernel,
                                 const PoolOptions& options,
                                 const TensorShape& input_shape,
                                 bool allow_depth_pooling,
                                 PoolGeometry* geometry);

// The same for a gradient op whose input shape arrives as an int32 vector
// (AvgPoolGrad's orig_input_shape); InvalidArgument unless it holds
// spatial_dims + 2 non-negative sizes.
absl::Status PoolInputShapeFromTensor(const OpKernel& kernel,
                                      const Tensor& shape_tensor,
                                      int spatial_dims, TensorShape* shape);

// InvalidArgument unless `t` has `shape` (`what` names the input).
absl::Status CheckPoolShape(const OpKernel& kernel, const char* what,
                            const Tensor& t, const TensorShape& shape);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_POOLING_PARAMS_H_
