// Replaying recorded simulations.
//
// A trace file's header (sim/workload_runner.h: SpecTraceHeader) names the
// workload, seed, options, planted bug and plan of the run that wrote it.
// ReplayTrace re-runs that spec with a recorder and compares the new trace
// with the file event for event: the first index at which they differ is
// reported with both records (TraceEvent::DebugString), and so is a
// length difference (one trace a prefix of the other; a recorded run that
// died before its footer is compared over the events it has). Without a
// divergence the replay reproduces the recorded run exactly, including its
// invariant failures (which the runner also records into the trace as
// SIM_NOTE {event=invariant_failure, invariant, detail} at the end).
//
// Plan files: a shrunk (or any) spec saved on its own, without events —
// one serialized SimTraceHeader with format kSimPlanFormat. ReplaySpecFile
// runs one and reports its failures; there is nothing to compare.
//
// Errors: NotFound / DataLoss for unreadable or corrupt files,
// InvalidArgument for a header that does not describe a replayable run,
// and whatever RunSimulation returns. A divergence is not an error: it is
// reported in the ReplayReport.
#ifndef STEPFLOW_SIM_REPLAY_H_
#define STEPFLOW_SIM_REPLAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sim/trace/trace.h"
#include "sim/workloads/workload_runner.h"

namespace stepflow {

inline constexpr char kSimPlanFormat[] = "stepflow.sim_plan.v1";

struct ReplayReport {
  SimRunSpec spec;
  // False for a plan file (nothing recorded to compare with).
  bool compared = false;
  // -1 when the traces agree event for event.
  int64_t divergence_index = -1;
  // The records at divergence_index ("<end of trace>" past one's end).
  std::string recorded_event;
  std::string replayed_event;
  uint64_t recorded_events = 0;
  uint64_t recorded_hash = 0;
  bool recorded_has_footer = false;
  // The replayed run.
  SimRunResult result;
};

// Writes `spec` (with `plan`, as SpecTraceHeader) to `path` as a plan file.
absl::Status WriteSpecFile(const std::string& path, const SimRunSpec& spec,
                           const std::string& plan);
// Reads a plan file or the header of a trace file; *is_trace says which.
absl::Status ReadSpecFile(const std::string& path, SimRunSpec* spec,
                          bool* is_trace);

// Replays a trace file (comparing) or a plan file (running).
absl::Status Replay(const std::string& path, ReplayReport* report);

// Human-readable summary of a report: the divergence with both records, or
// the failures reproduced and the hash.
std::string DescribeReplay(const ReplayReport& report);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_REPLAY_H_
