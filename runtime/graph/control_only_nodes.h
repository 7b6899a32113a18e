// ConvertControlOnlyNodesToNoOps: skips computations nobody reads.
//
// After pruning, a node can still be in the step only because something
// waits for it through a control edge, never reading its outputs. The
// classic case is TensorFlow's gradient gating: tf.gradients groups both
// outputs of a MatMul's gradient (the input gradient and the weight
// gradient) with a NoOp that the weight update waits on, so the first
// layer's input gradient is computed although nothing uses it. Like
// TensorFlow's dependency optimizer, this pass replaces such a node by a
// NoOp of the same name: its data inputs become control inputs and its
// control outputs stay, so everything that ran before it still runs before
// whatever waited for it, and only the unused computation is gone. A
// producer whose last data consumer was replaced is examined again.
//
// A node is replaced only when all of these hold:
//   * it calls no function (of the graph's library, or through a func
//     attr), is not stateful, not a Placeholder (an unfed one must still
//     fail), not a NoOp, Send/Recv, _Arg/_Retval, ControlTrigger or
//     control-flow op, and has at least one output;
//   * none of its inputs or outputs is a reference or a resource;
//   * none of its inputs comes from a control-flow op (loop frames stay as
//     they are);
//   * it requests no device type other than CPU (NoOp has CPU kernels only);
//   * it is not in `preserve` (the step's targets), and no data edge leaves
//     it (a fetched node has one to its fetch node).
// The observable difference: errors the removed computation would have
// raised (for example mismatched shapes) are no longer raised, as in
// TensorFlow.
//
// Deterministic: nodes are visited in id order, then in the order they
// become candidates. Returns the number of nodes replaced; Internal if the
// graph rejects the NoOp (it cannot for a well-formed op registry).
// Thread-compatible: needs exclusive access to `g`.
#ifndef STEPFLOW_RUNTIME_GRAPH_CONTROL_ONLY_NODES_H_
#define STEPFLOW_RUNTIME_GRAPH_CONTROL_ONLY_NODES_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "runtime/graph/graph.h"

namespace stepflow {

absl::StatusOr<int> ConvertControlOnlyNodesToNoOps(
    Graph* g, const absl::flat_hash_set<std::string>& preserve);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_CONTROL_ONLY_NODES_H_
