// Shrinking a failing multi-client plan to a small one that still fails
// the same way.
//
// The predicate: RunSimulation of the spec with the candidate plan (same
// seed, options and planted bug) succeeds and still reports the same
// failure: one of the same invariant whose FailureSignature equals the
// original's (so a deadlock does not "shrink" into an op that cannot run
// at all, though both are `liveness`). Shrinking runs in two phases:
//   1. delta debugging (ddmin) over the plan's ops. Every candidate subset
//      is first made well-formed by WellFormedOps: an op whose graph,
//      session or partial run is not (or no longer) there in the candidate
//      is dropped with it — so removing a TF_NewGraph takes the graph's
//      imports, sessions and runs along, and a candidate never makes the
//      runner reject the plan.
//   2. the ops that remain are simplified one piece at a time: imported
//      nodes (and the faults on them) are dropped, and runs lose fetches,
//      targets and feeds, each change kept when the predicate still holds.
// The result is 1-minimal with respect to single-op removal (or stops at
// options.max_runs simulations).
//
// Errors: InvalidArgument if spec is not a multi-client workload with a plan,
// or if the original plan does not fail `invariant` (nothing to shrink).
// Thread-safety: as RunSimulation (runs must not overlap).
#ifndef STEPFLOW_SIM_SHRINK_H_
#define STEPFLOW_SIM_SHRINK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/sim_workload.pb.h"
#include "sim/workloads/workload_runner.h"

namespace stepflow {

struct ShrinkOptions {
  // Upper bound on simulations run (the original run included).
  int max_runs = 3000;
  // Phase 2 (nodes, fetches, targets, feeds).
  bool shrink_graphs = true;
};

struct ShrinkResult {
  SimWorkloadPlan plan;        // The reduced plan.
  std::string invariant;       // The failure it keeps.
  std::string signature;       // Its FailureSignature.
  std::string failure_detail;  // That failure's detail in the reduced run.
  int original_ops = 0;
  int runs = 0;             // Simulations run.
  int simplifications = 0;  // Phase-2 edits kept.
  bool hit_run_limit = false;
};

// The shape of a failure, free of where it happened: "<invariant>: " and
// the first line of its detail with every parenthesised group removed,
// digits replaced by '#' (runs of '#' and of spaces collapsed), cut before
// its second ':'. E.g. "op #3 (client 1: TF_DeleteGraph g0): 2 live graphs,
// model says 3" and "op #19 (...): 1 live graphs, model says 12" both give
// "refcount: op # : # live graphs, model says #".
std::string FailureSignature(const SimInvariantFailure& failure);

// The ops of `plan` at `keep` (ascending indices into plan.ops()) that
// stay well-formed on their own, in order (see above).
std::vector<int> WellFormedOps(const SimWorkloadPlan& plan,
                               const std::vector<int>& keep);

// Shrinks spec.plan (a serialized SimWorkloadPlan) keeping a failure of
// `invariant` (the original run's first such failure fixes the signature).
absl::Status ShrinkPlan(const SimRunSpec& spec, const std::string& invariant,
                        const ShrinkOptions& options, ShrinkResult* result);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SHRINK_H_
