// The im2col + GEMM engine behind Conv2D, Conv3D and their gradients, on
// channels-last tensors (N, D, H, W, C) described by a ConvGeometry.
//
// Forward: each block of output positions (the batch's positions, image
// after image, so a block may span images) gathers its input windows into a
// matrix (im2col, one row per position, one column per filter tap and input
// channel of a group) and multiplies it by the filter seen as a
// [patch_size, out_depth] matrix. Blocks have at least a few hundred rows
// where the batch has them, since each product packs the whole filter. Backprop
// input multiplies the output gradient by the filter's transpose and scatters
// the rows back onto the input positions they came from (col2im, adding).
// Backprop filter multiplies the transposed im2col matrix by the output
// gradient and sums the blocks. A 1x1 stride-1 unpadded convolution skips
// im2col.
//
// Products go through Gemm (OpenBLAS for float and double, Eigen for the
// wrapping int32 product); half and bfloat16 convert to float first and
// back at the end. Work is cut into independent pieces (blocks of output
// positions; whole images for backprop input, whose scatter overlaps;
// per-piece filter sums added in a fixed order for backprop filter) run on
// the Env's Scheduler through ParallelForAsync. The cut depends only on the
// shapes and the Scheduler's thread count, so results repeat for a given
// thread count.
//
// Ownership: LaunchConv keeps what it needs (tensor copies share buffers)
// until `done`, which it calls exactly once, possibly on another thread.
// Errors (ResourceExhausted for scratch space) are set on ctx before done.
#ifndef STEPFLOW_RUNTIME_KERNELS_CONV_ENGINE_H_
#define STEPFLOW_RUNTIME_KERNELS_CONV_ENGINE_H_

#include <cstdint>
#include <functional>

#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/conv_epilogue.h"
#include "runtime/kernels/conv_geometry.h"

namespace stepflow {

enum class ConvPass {
  kForward,         // out = conv(x = input, y = filter)
  kBackpropInput,   // out = d input from (x = filter, y = out_backprop)
  kBackpropFilter,  // out = d filter from (x = input, y = out_backprop)
};

// How half and bfloat16 sum their products (float, double and int32 always
// use Gemm): kWide sums in float and rounds each result once; the others
// round every partial sum to the 16-bit type, in the order TensorFlow's CPU
// kernel of the op does (its Eigen contraction's order within one GEMM
// block: a few hundred products per output), so the last bits agree with
// TensorFlow's on such shapes:
//   kNarrow: the im2col products (patch order; the filter gradient over
//     positions image by image), and col2im adds in position order;
//   kNarrowGather: each input gradient element sums over the output
//     positions whose windows hold it (ascending, output channel
//     innermost); each filter gradient element over the output positions
//     (ascending, image innermost).
enum class ConvNumerics { kWide, kNarrow, kNarrowGather };

// Runs `pass` of the convolution `geo` in T (half, bfloat16, float, double,
// int32) into `out`, already allocated with the result's shape. x and y are
// as ConvPass lists them, channels-last; the filter is [fd, fh, fw,
// in_depth / groups, out_depth] (for 2-D without fd). Backprop passes
// require groups == 1.
//
// `epilogue` (float forward passes only; may be null) is applied to each
// block of output rows right after its product, while it is in cache; it
// must stay alive until `done`.
template <typename T>
void LaunchConv(OpKernelContext* ctx, ConvPass pass, ConvNumerics numerics,
                const ConvGeometry& geo, const Tensor& x, const Tensor& y,
                Tensor* out, std::function<void()> done,
                const ConvEpilogue* epilogue = nullptr);

// The gather and scatter steps, exposed for tests: rows
// [row_begin, row_begin + rows) of image's im2col matrix for channel group
// `group`, and the adding inverse (which rounds each sum with `round`
// when given).
template <typename C>
void Im2Col(const ConvGeometry& geo, const C* image, int64_t group,
            int64_t row_begin, int64_t rows, C* col);
template <typename C>
void Col2ImAdd(const ConvGeometry& geo, const C* col, int64_t row_begin,
               int64_t rows, C* image, C (*round)(C) = nullptr);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CONV_ENGINE_H_
