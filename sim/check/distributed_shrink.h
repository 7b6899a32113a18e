// Shrinking a failing distributed-workload run to a small reproducer.
//
// The distributed workload has no plan: a run is its seed and options
// (sim/distributed_workload.h). Shrinking therefore simplifies the options
// at the same seed, greedily and to a fixpoint: fewer workers, one client,
// fewer steps, a smaller graph, one CPU per worker, no partial runs, no
// faults of each kind,
// no broken or duplicated messages — each change kept only when the run
// still fails the same invariant. The result is 1-minimal with respect to
// those single simplifications (or stops at max_runs simulations). A
// simplification changes what the seed draws, so the reduced run is a
// different (smaller) world that fails the same way, replayable as
// `simulate --workload=distributed --seed=S --seeds=1 --options=...`.
//
// Errors: InvalidArgument if spec is not a distributed workload or the
// original run does not fail `invariant`.
// Thread-safety: as RunSimulation (runs must not overlap).
#ifndef STEPFLOW_SIM_DISTRIBUTED_SHRINK_H_
#define STEPFLOW_SIM_DISTRIBUTED_SHRINK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sim/workloads/workload_runner.h"

namespace stepflow {

struct DistributedShrinkResult {
  SimRunSpec spec;  // The reduced spec (same seed).
  std::string invariant;
  std::string failure_detail;     // Its first such failure in the reduced run.
  std::vector<std::string> kept;  // The simplifications kept, in order.
  int runs = 0;
  bool hit_run_limit = false;
};

absl::Status ShrinkDistributedRun(const SimRunSpec& spec,
                                  const std::string& invariant, int max_runs,
                                  DistributedShrinkResult* result);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_DISTRIBUTED_SHRINK_H_
