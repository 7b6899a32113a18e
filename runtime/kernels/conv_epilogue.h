// ConvEpilogue: the element-wise steps a fused convolution applies to its
// output, in order, before anyone reads it: the kernels behind
// _Conv2DWithEpilogue and _DepthwiseConv2dNativeWithEpilogue, which the
// graph rewrite in runtime/graph/conv_epilogue_fusion.h puts in place of a
// convolution and the per-channel Mul, Add/AddV2/BiasAdd, Relu and Relu6
// nodes that followed it.
//
// Each step computes exactly what the node it replaces computes, element by
// element and rounding the same way (a product, then a sum, then the
// activation's comparisons, NaN and -0 included), so a fused graph's values
// are bit for bit those of the unfused one; only the passes over memory are
// saved: each group of four channels goes through every step in registers.
//
// The node's `epilogue` attr lists the steps ("Mul", "BiasAdd", "Relu",
// "Relu6"); "Mul" and "BiasAdd" each take the next of the node's `args`
// inputs, one value per output channel shaped [C] or [1, ..., 1, C].
//
// Thread-safety: Apply is const and may run on several blocks at once.
#ifndef STEPFLOW_RUNTIME_KERNELS_CONV_EPILOGUE_H_
#define STEPFLOW_RUNTIME_KERNELS_CONV_EPILOGUE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {

class ConvEpilogue {
 public:
  enum class Step { kMul, kBiasAdd, kRelu, kRelu6 };

  // Reads the `epilogue` and `num_args` attrs. InvalidArgument for an
  // unknown step or a step count that does not match num_args.
  static absl::Status FromAttrs(OpKernelConstruction* ctx,
                                std::vector<Step>* steps);

  // The epilogue of one call: `steps` with the per-channel vectors in
  // ctx's inputs [first_arg, ...), copied. InvalidArgument naming the node
  // when an argument does not hold one value per channel.
  static absl::Status Bind(OpKernelContext* ctx, const std::vector<Step>& steps,
                           int first_arg, int64_t channels, ConvEpilogue* out);

  // Applies the steps to `rows` rows of `channels` values each, in place.
  void Apply(float* rows, int64_t num_rows) const;

  bool empty() const { return steps_.empty(); }

 private:
  // Rows per chunk Apply works on: about kTileFloats values.
  static constexpr int64_t kTileFloats = 1024;

  std::vector<Step> steps_;
  int64_t channels_ = 0;
  int64_t tile_rows_ = 1;
  // Per step: its argument repeated tile_rows_ times (empty for the
  // activations), so that a chunk is one flat loop.
  std::vector<std::vector<float>> tiled_args_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CONV_EPILOGUE_H_
