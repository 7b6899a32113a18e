// The reference interpreter's ops and function calls
// (testing/reference_eval.h):
// evaluates, over float scalars, the call sites testing/function_generators
// draws, by interpreting the FunctionDefs of the graph's library directly
// (no runtime code, no lowering).
//
// Call sites: a library function's name as the op, PartitionedCall and
// StatefulPartitionedCall (attr f), If / StatelessIf (input 0 is the cond:
// true when non-zero), Case / StatelessCase (input 0 is the branch index;
// one outside [0, n) runs the last branch) and While / StatelessWhile
// (cond and body called until cond is false). Function bodies may hold
// Const (float or int32 scalar), Identity, Add, AddV2, Mul, Less and
// further call sites; references are "arg" and "node:out_arg:i". Bools are
// 1 and 0.
//
// Errors: Unimplemented for an op or form outside that set;
// InvalidArgument for an unknown function, a malformed reference, a wrong
// argument count, recursion deeper than 64 calls or a loop running more
// than 100000 iterations.
#ifndef STEPFLOW_TESTING_REFERENCE_CALL_H_
#define STEPFLOW_TESTING_REFERENCE_CALL_H_

#include <vector>

#include "absl/status/status.h"
#include "proto/function.pb.h"
#include "proto/node_def.pb.h"

namespace stepflow::graph_testing {

// True when `call` is a call site (its op a library function or one of
// the call and functional control-flow ops above).
bool IsReferenceCallSite(const NodeDef& call, const FunctionDefLibrary& lib);

// Evaluates `node` (one of the body ops above or a call site) on its data
// inputs in order; `outputs` receives one value per output.
absl::Status EvalReferenceNode(const FunctionDefLibrary& lib,
                               const NodeDef& node,
                               const std::vector<float>& inputs,
                               std::vector<float>* outputs);

}  // namespace stepflow::graph_testing

#endif  // STEPFLOW_TESTING_REFERENCE_CALL_H_
