// Shrinks a program on which stepflow and TensorFlow disagree to a small
// one that still shows the disagreement, by the program's own structure
// rather than by the generator's choices:
//   1. run one step instead of several, and keep the one fetch that still
//      disagrees with the fewest nodes behind it, pruning every node the
//      fetches and the init target do not need;
//   2. cut: replace a node by a Placeholder fed with the value TensorFlow
//      computes for it (its consumers then read the feed), prune again, and
//      keep the cut when the disagreement remains; repeat, latest nodes
//      first, until no cut helps.
// A bug inside one kernel thus shrinks to that kernel fed with the values
// that expose it (for a swapped Sub: two Placeholders and the Sub).
//
// Nodes are cut only where a fed constant means the same thing: not the
// Switch, Enter, NextIteration and LoopCond machinery (an Exit or a cond's
// Merge may be cut), nothing inside a while loop's frame, nothing
// downstream of a variable when the program runs several steps, nothing
// that produces refs or a dead value.
//
// Thread-compatible; `judge` and `evaluate` are called synchronously.
#ifndef STEPFLOW_TESTING_TF_ORACLE_CASE_SHRINKER_H_
#define STEPFLOW_TESTING_TF_ORACLE_CASE_SHRINKER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "testing/differential_graphs.h"

namespace stepflow {
namespace oracle {

struct ShrinkHooks {
  // OK when the systems agree on `g`; FailedPrecondition when they differ;
  // anything else aborts the shrink.
  std::function<absl::Status(const graph_testing::DifferentialGraph& g)> judge;
  // TensorFlow's values of `endpoints` in `g` (one step, after the init
  // targets), or its error.
  std::function<absl::Status(const graph_testing::DifferentialGraph& g,
                             const std::vector<std::string>& endpoints,
                             std::vector<Tensor>* values)>
      evaluate;
};

// Shrinks `*g`, which must disagree. On return `*g` still disagrees. Only
// `hooks` errors other than a difference are returned.
absl::Status ShrinkDisagreement(const ShrinkHooks& hooks,
                                graph_testing::DifferentialGraph* g);

// Removes the nodes that neither the fetches nor the init targets need
// (transitively, through data and control inputs), the feeds of removed
// placeholders, and init dependencies on removed nodes. Exposed for tests.
void PruneDifferentialGraph(graph_testing::DifferentialGraph* g);

}  // namespace oracle
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TF_ORACLE_CASE_SHRINKER_H_
