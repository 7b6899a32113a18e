// LowerFunctionalOps: rewrites a GraphDef's function calls and functional
// control flow, the graph-execution half of TensorFlow's function support,
// with the policy a TensorFlow 1.x session applies (its LowerFunctionalOps
// pass and its graph optimizer's function inlining):
//   - If/StatelessIf and Case/StatelessCase become Switch/Merge
//     (lower_cond.h), While/StatelessWhile a frame of Enter/Merge/Switch/
//     Exit/NextIteration/LoopCond (lower_while.h), only when the node's
//     bool attr `_lower_using_switch_merge` is true (tf.cond, tf.case and
//     tf.while_loop set it under control flow v2; tf.raw_ops and graphs
//     that cleared it do not). Otherwise the node stays and runs as a call
//     kernel (runtime/kernels/functional_ops: the function runtime runs its
//     branches, cond and body as graphs of their own).
//   - Calls are inlined (inline_function.h): nodes whose op names a library
//     function, PartitionedCall and StatefulPartitionedCall (attr `f`),
//     except a call of a function whose FunctionDef attr `_noinline` is
//     true, which stays a call kernel (a node whose op names the function
//     becomes the equivalent StatefulPartitionedCall, same name, inputs
//     and outputs). The branch, cond and body calls that lowering creates
//     carry `_lower_as_multi_device_function` and are always inlined.
//   - Device fallback: a node that would stay a call kernel is lowered or
//     inlined instead when some node of a function it reaches requests a
//     device that the node's own device request does not already specify
//     (a function runtime runs a body on the caller's device only), so the
//     placer and partitioner still honour such requests, across devices
//     and workers.
// Expansion repeats until no node to expand is left, so nested calls and
// control flow inside inlined functions follow the same policy; a body node
// of call "c" is named "c/<node>" (nesting adds further prefixes). The
// function runtime applies the same pass to the bodies it runs.
//
// Only the functions the graph reaches are validated (function_library.h):
// recursive calls are InvalidArgument naming the chain, unknown functions
// NotFound, and every error names the node whose lowering failed. The
// output keeps the input's versions and library; a GraphDef without calls
// is copied unchanged. Runs before pruning and placement.
#ifndef STEPFLOW_RUNTIME_FUNCTION_LOWER_FUNCTIONAL_OPS_H_
#define STEPFLOW_RUNTIME_FUNCTION_LOWER_FUNCTIONAL_OPS_H_

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/framework/op.h"

namespace stepflow {

// True when some node of `graph` calls a function or is functional
// control flow (so LowerFunctionalOps may change it).
bool HasFunctionalOps(const GraphDef& graph, const OpRegistry* ops);

// `out` may alias nothing in `in`.
absl::Status LowerFunctionalOps(const GraphDef& in, const OpRegistry* ops,
                                GraphDef* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_LOWER_FUNCTIONAL_OPS_H_
