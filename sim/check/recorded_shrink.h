// Shrinking a recorded real run that fails in the simulator.
//
// A recorded run (sim/workloads/recorded_run.h) replayed with a planted bug
// (runtime/framework/planted_bug.h) fails when its client calls' outcomes
// depart from those of the same calls replayed without the bug: the
// bug-free replay is the reference (for the whole run it matches the
// recording itself; for a subset of the calls the recording no longer says
// what the answers should be, since every training step changes the next
// one's values). ShrinkRecordedRun removes client calls by delta debugging
// (ddmin) while that stays true, keeping the recorded faults. Every
// candidate is made well-formed first: a call naming a session, partial
// run or callable handle that a removed call created is removed with it,
// so removing a CreateSession takes the session's calls along.
//
// The result is 1-minimal with respect to removing one call (or stops at
// max_runs replays). It is itself a recorded run whose outcomes (and
// worker-side answers, as counts) are the bug-free replay's: WriteRecordedRun
// saves it as a merged recording that `replay` replays identically and
// `replay --planted_bug=<bug>` departs from. Departures compare the
// client calls' outcomes and the worker-side answer counts
// (sim/workloads/recorded_replay.h), so a bug that only changes what the
// workers are asked (skip_cleanup_graph) shrinks too.
//
// Errors: InvalidArgument if the bug is kNone or the whole run does not
// fail with it (nothing to shrink); the replay's errors.
// Thread-safety: as ReplayRecordedRun (runs must not overlap).
#ifndef STEPFLOW_SIM_CHECK_RECORDED_SHRINK_H_
#define STEPFLOW_SIM_CHECK_RECORDED_SHRINK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/planted_bug.h"
#include "sim/workloads/recorded_run.h"

namespace stepflow {

struct RecordedShrinkResult {
  RecordedRun run;  // The reduced run.
  int original_calls = 0;
  int runs = 0;  // Replays run (two per candidate).
  bool hit_run_limit = false;
  // The reduced run's first departure: the call, and its outcome without
  // and with the bug.
  int64_t departure_index = -1;
  std::string reference;
  std::string with_bug;
};

// The calls of `run` at `keep` (ascending indices into run.calls) that stay
// well-formed on their own (see above), in order.
std::vector<int> WellFormedCalls(const RecordedRun& run,
                                 const std::vector<int>& keep);

absl::Status ShrinkRecordedRun(const RecordedRun& run, PlantedBug bug,
                               int max_runs, RecordedShrinkResult* result);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_CHECK_RECORDED_SHRINK_H_
