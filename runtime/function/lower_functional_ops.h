// LowerFunctionalOps: rewrites a GraphDef so that no node calls a library
// function, the graph-execution half of TensorFlow's function support.
//
// Every call is inlined (inline_function.h): nodes whose op names a library
// function, PartitionedCall and StatefulPartitionedCall (attr `f`).
// If/StatelessIf and Case/StatelessCase become Switch/Merge (lower_cond.h),
// While/StatelessWhile a frame of Enter/Merge/Switch/Exit/NextIteration/
// LoopCond (lower_while.h); their branch, cond and body calls are then
// inlined. Expansion repeats until no such node is left, so nested calls
// and control flow inside functions are lowered too; a body node of call
// "c" is named "c/<node>" (nesting adds further prefixes).
//
// Only the functions the graph reaches are validated (function_library.h):
// recursive calls are InvalidArgument naming the chain, unknown functions
// NotFound, and every error names the node whose lowering failed. The
// output keeps the input's versions and library; a GraphDef without calls
// is copied unchanged. Runs before pruning and placement, so the partitioner
// and the executor see ordinary nodes only.
#ifndef STEPFLOW_RUNTIME_FUNCTION_LOWER_FUNCTIONAL_OPS_H_
#define STEPFLOW_RUNTIME_FUNCTION_LOWER_FUNCTIONAL_OPS_H_

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/framework/op.h"

namespace stepflow {

// True when some node of `graph` calls a function or is functional
// control flow (so LowerFunctionalOps would change it).
bool HasFunctionalOps(const GraphDef& graph, const OpRegistry* ops);

// `out` may alias nothing in `in`.
absl::Status LowerFunctionalOps(const GraphDef& in, const OpRegistry* ops,
                                GraphDef* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_LOWER_FUNCTIONAL_OPS_H_
