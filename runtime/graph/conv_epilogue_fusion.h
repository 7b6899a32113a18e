// FuseConvEpilogues: the graph rewrite that folds the element-wise nodes
// after a convolution into it (in the manner of TensorFlow's grappler
// remapper, which makes _FusedConv2D). A float, channels-last Conv2D or
// DepthwiseConv2dNative placed on a CPU, followed by a chain of
//
//   Mul(conv, s) or Mul(s, conv)        s: one value per output channel,
//                                       shaped [C] or [1, ..., 1, C]
//   Add/AddV2(conv, b), either order,   b: the same
//   or BiasAdd(conv, b) (NHWC, b: [C])
//   Relu, Relu6
//
// becomes one _Conv2DWithEpilogue / _DepthwiseConv2dNativeWithEpilogue
// node (runtime/kernels/conv_epilogue.h) that computes the same values bit
// for bit in one pass over the output instead of one per node. Keras's
// inference-mode batch normalisation (Mul by gamma * rsqrt(var + eps), Add
// of beta - mean * that) followed by its activation is the common case:
// most of a frozen MobileNet or ResNet.
//
// A node joins the chain only when it is the previous node's sole consumer
// (one data edge, no control edge out), is on the same device, and the
// shape inference of its other operand (and of the filter) proves that
// operand one value per output channel, so no broadcast or shape error
// changes. The fused node takes the last node's name, inputs
// from every member's producers, every member's control inputs, and the
// last node's out-edges; a fetched or fed tensor inside a chain is never
// folded (fetching adds a consumer, feeding removes the producer edge).
//
// Errors: only from Graph mutation (Internal); a graph it cannot prove
// safe is left as it is. Returns the number of nodes fused away.
#ifndef STEPFLOW_RUNTIME_GRAPH_CONV_EPILOGUE_FUSION_H_
#define STEPFLOW_RUNTIME_GRAPH_CONV_EPILOGUE_FUSION_H_

#include "absl/status/statusor.h"
#include "runtime/graph/graph.h"

namespace stepflow {

absl::StatusOr<int> FuseConvEpilogues(Graph* graph);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_CONV_EPILOGUE_FUSION_H_
