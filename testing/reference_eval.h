// A plain reference interpreter for the float graphs of
// testing/graph_generators (plus the simulator's fault ops), written over
// GraphDef with no runtime code, to check what a session fetches.
//
// Supported ops: Const (float or int32 scalar), Placeholder, Identity, Add,
// AddV2, Mul, NoOp, SimDelay (forwards its input), SimFail (fails with its
// `code` attr), and the function call sites of testing/function_generators
// over the graph's library, interpreted by testing/reference_call.h (a call
// site may have several outputs). Inputs are "x", "x:i" or "^x".
//
// ReferenceEvaluate(graph, feeds, fetches, targets) predicts one step:
// the nodes that run are exactly the reference pruned set
// (testing/reference_prune.h); the step fails if any of them is an unfed
// Placeholder (InvalidArgument) or a SimFail (its code) — with several
// such nodes any of their codes may be the one reported — and otherwise
// fetch i has the value computed in float, op by op, as the kernels do.
//
// Errors (the graph is outside what this interpreter knows, or the
// request names unknown nodes): InvalidArgument / Unimplemented; callers
// then skip the check.
#ifndef STEPFLOW_TESTING_REFERENCE_EVAL_H_
#define STEPFLOW_TESTING_REFERENCE_EVAL_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/graph.pb.h"

namespace stepflow::graph_testing {

struct ReferenceOutcome {
  // Non-empty: the step must fail with one of these codes.
  std::set<absl::StatusCode> error_codes;
  // One per fetch when error_codes is empty.
  std::vector<float> values;
};

// `feeds` maps endpoints ("x" or "x:0") to their fed values.
absl::Status ReferenceEvaluate(const GraphDef& graph,
                               const std::map<std::string, float>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets,
                               ReferenceOutcome* outcome);

}  // namespace stepflow::graph_testing

#endif  // STEPFLOW_TESTING_REFERENCE_EVAL_H_
