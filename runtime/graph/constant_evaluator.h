// Folding of the small integer computations shape functions read as
// constants (a reshape target built with tf.stack, a slice of a known
// shape): TensorFlow evaluates such constant subgraphs while inferring
// shapes. Only ops whose value follows from their inputs' values are
// folded here, on int32/int64 tensors; the ShapeRefiner supplies those
// values (Const nodes, and Shape/Size/Rank of known shapes).
//
// Pure functions; thread-safe.
#ifndef STEPFLOW_RUNTIME_GRAPH_CONSTANT_EVALUATOR_H_
#define STEPFLOW_RUNTIME_GRAPH_CONSTANT_EVALUATOR_H_

#include "absl/types/span.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph.h"

namespace stepflow {

// Whether FoldConstant may compute `node`'s outputs from its inputs.
bool IsFoldableForShapes(const Node& node);

// Output `output` of `node` from the values of all its data inputs
// (`inputs[i]` for input i, none null). False when the op, dtypes or
// attributes are outside what is folded (the value then stays unknown).
bool FoldConstant(const Node& node, int output,
                  absl::Span<const Tensor* const> inputs, Tensor* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_CONSTANT_EVALUATOR_H_
