// Inlining one function call into a GraphDef, the way TensorFlow's graph
// lowering does it before placement.
//
// For a call node `c` running `body`, the appended nodes are:
//   - every body node renamed "c/<node>" (step stats and timelines show the
//     body under the call's name), with an empty device replaced by the
//     call's device and "loc:@x" colocation entries renamed with x;
//   - each "_Arg" node as an Identity "c/<arg>" of the call's data input,
//     so resource handles flow into the body unchanged;
//   - when the call has inputs, a NoOp "c/input_control_node" that waits
//     for the call's control inputs and for every argument Identity, and
//     that every body node without inputs waits for, so the body runs in
//     the call's frame and after its control inputs, and an argument the
//     body never reads is still computed (pruning, which runs after
//     lowering, keeps every input of a needed call, as it would keep the
//     inputs of the call node itself); the argument Identities wait for
//     the control inputs too;
//   - a node named "c" itself: an IdentityN of the results (output i of
//     the call is output i of it, so consumers need no rewiring) or, for a
//     call without results, a NoOp; it waits for the control_ret nodes and
//     the input control node, so control edges out of the call wait for
//     the whole body.
// InvalidArgument naming the call when its data inputs or its Tin/Tout
// attrs (where present) disagree with the body's arguments and results.
#ifndef STEPFLOW_RUNTIME_FUNCTION_INLINE_FUNCTION_H_
#define STEPFLOW_RUNTIME_FUNCTION_INLINE_FUNCTION_H_

#include <vector>

#include "absl/status/status.h"
#include "proto/node_def.pb.h"
#include "runtime/function/instantiate.h"

namespace stepflow {

absl::Status InlineFunctionCall(const NodeDef& call, const FunctionBody& body,
                                std::vector<NodeDef>* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_INLINE_FUNCTION_H_
