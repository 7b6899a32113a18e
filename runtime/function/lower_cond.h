// Lowering of functional conditionals to Switch/Merge, as TensorFlow's
// LowerFunctionalOps pass does before placement.
//
// If/StatelessIf "c" (cond, inputs...; then_branch, else_branch):
//   c/switch_pred = Switch(cond, cond); c/pivot_t, c/pivot_f = Identity of
//   its true/false outputs; c/input_<i> = Switch(input i, cond);
//   c/then, c/else = calls of the branches on the true/false outputs,
//   guarded by the pivots; c/output_<j> = Merge of the branches' output j;
//   c/branch_executed = Merge of per-branch "done" Identities; and "c"
//   itself an IdentityN of the Merges (or a NoOp) waiting for
//   c/branch_executed, so its consumers and control successors need no
//   rewiring. Only the taken branch runs; the other's values are dead.
// Case/StatelessCase "c" (branch_index, inputs...; branches): branch b runs
//   when branch_index == b; an index outside [0, n) runs the last branch
//   (TensorFlow's default). Each branch has its own predicate
//   c/pred_<b>, switch and pivot; the Merges take one input per branch.
// An If that is not marked _lower_using_switch_merge (lowered only when its
// branches ask for other devices, lower_functional_ops.h), or whose cond is
// not bool, first reduces cond as TensorFlow's If kernel does
// (c/cond_to_bool/...: a scalar is true when non-zero, any other tensor
// when it has elements). The control inputs of "c" guard every Switch. The
// branch calls are PartitionedCall nodes, inlined afterwards
// (inline_function.h). Errors: InvalidArgument naming the node for missing or
// malformed attrs or a wrong input count; Unimplemented for an If whose cond is
// a string.
#ifndef STEPFLOW_RUNTIME_FUNCTION_LOWER_COND_H_
#define STEPFLOW_RUNTIME_FUNCTION_LOWER_COND_H_

#include <vector>

#include "absl/status/status.h"
#include "proto/node_def.pb.h"

namespace stepflow {

// `node` must carry its OpDef's default attrs.
absl::Status LowerIf(const NodeDef& node, std::vector<NodeDef>* out);
absl::Status LowerCase(const NodeDef& node, std::vector<NodeDef>* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_LOWER_COND_H_
