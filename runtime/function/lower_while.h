// Lowering of While/StatelessWhile to a TF1 frame, as TensorFlow's
// LowerFunctionalOps pass does before placement.
//
// For While "w" with loop variables 0..n-1 the frame is named "w" (node
// names are unique, so frames are too, nested loops included) and runs
// `parallel_iterations` iterations at once:
//   w/enter_<i>          = Enter(input i), waiting for w's control inputs
//   w/merge_<i>          = Merge(w/enter_<i>, w/next_iteration_<i>)
//   w/cond               = call of `cond` on the Merges
//   w/loop_cond          = LoopCond(w/cond)
//   w/switch_<i>         = Switch(w/merge_<i>, w/loop_cond)
//   w/exit_<i>           = Exit(w/switch_<i>:0)
//   w/body               = call of `body` on the Switches' true outputs
//   w/next_iteration_<i> = NextIteration(w/body:i)
// and "w" itself, an IdentityN of the Exits. Loop-invariant variables
// (the body returns its argument) pass through the same way. The calls
// are PartitionedCall nodes, inlined afterwards (inline_function.h).
// Errors: InvalidArgument naming the node for missing attrs, a T that
// disagrees with the inputs, or no loop variables; cond must return one
// bool (checked when its call is inlined).
#ifndef STEPFLOW_RUNTIME_FUNCTION_LOWER_WHILE_H_
#define STEPFLOW_RUNTIME_FUNCTION_LOWER_WHILE_H_

#include <vector>

#include "absl/status/status.h"
#include "proto/node_def.pb.h"

namespace stepflow {

// `node` must carry its OpDef's default attrs.
absl::Status LowerWhile(const NodeDef& node, std::vector<NodeDef>* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_LOWER_WHILE_H_
