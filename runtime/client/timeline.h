// Timeline: turns a step's StepStats (RunMetadata.step_stats, recorded with
// RunOptions.trace_level = FULL_TRACE) into Chrome trace-event JSON, the
// format chrome://tracing, Perfetto's legacy JSON importer and our own
// viewer (tools/timeline_viewer/) load.
//
// Layout of the output:
//   * one process ("lane") per device, named by its full device name,
//     ordered by name; within a device, kernels that overlap in time are
//     packed into the fewest rows (threads "ops #k"), deterministically;
//   * one complete ("X") event per kernel: name = op type, args = node
//     name, inputs and output dtypes/shapes ("float[2,3]");
//   * one flow arrow ("s" at the _Send, "f" at the matching _Recv, same id)
//     per transfer. Sends and Recvs are paired by the bracket the executor
//     writes into the timeline label (runtime/common/step_stats_collector.h:
//     tensor, from, to); the k-th Send of a transfer pairs with its k-th
//     Recv in time order, which keeps loop iterations apart. Transfers to
//     or from the client (feeds and fetches of a distributed step) have no
//     partner kernel and get no arrow.
// Timestamps are microseconds (fractional) relative to the earliest kernel
// start, so a simulated step (virtual nanoseconds) and a real one look the
// same.
//
// Pure functions; thread-compatible.
#ifndef STEPFLOW_RUNTIME_CLIENT_TIMELINE_H_
#define STEPFLOW_RUNTIME_CLIENT_TIMELINE_H_

#include <string>

#include "absl/status/status.h"
#include "proto/step_stats.pb.h"

namespace stepflow {

struct TimelineSummary {
  int lanes = 0;               // Devices with at least one kernel.
  int kernels = 0;             // "X" events.
  int flows = 0;               // Paired Send/Recv arrows.
  int unpaired_transfers = 0;  // Sends or Recvs with no partner in the step.
};

// Writes the Chrome trace JSON for `step_stats` into `*json`. `title` goes
// into the trace's metadata (e.g. the graph file). InvalidArgument if a
// node's times are inconsistent (an end before its start). `summary` may be
// null.
absl::Status StepStatsToChromeTrace(const StepStats& step_stats,
                                    const std::string& title, std::string* json,
                                    TimelineSummary* summary);

// Escapes `s` for use inside a JSON string literal (without the quotes).
std::string JsonEscape(const std::string& s);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_CLIENT_TIMELINE_H_
