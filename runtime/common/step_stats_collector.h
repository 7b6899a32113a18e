// StepStatsCollector: gathers per-node execution statistics of one step
// from every executor of the step (RunOptions trace level > NO_TRACE).
//
// Executors Save() one NodeExecStats per node they process; Finalize()
// writes a StepStats with one DeviceStepStats per device, devices sorted by
// name and each device's nodes sorted by (all_start_nanos, node_name), so
// the output does not depend on thread interleaving beyond the recorded
// times.
//
// Thread-safety: all methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_COMMON_STEP_STATS_COLLECTOR_H_
#define STEPFLOW_RUNTIME_COMMON_STEP_STATS_COLLECTOR_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "proto/step_stats.pb.h"

namespace stepflow {

// The NodeExecStats.timeline_label executors record for `def`:
//   "<name> = <op>(<input>, <input>...)"
// and for the rendezvous ops (_Send, _Recv, _HostSend, _HostRecv) the
// transfer they take part in, so a timeline can pair them:
//   "<name> = _Send(<input>) [tensor=<tensor_name> from=<send_device>
//    to=<recv_device>]"   (one line; the same bracket for _Recv)
// with " client" before the "]" when the transfer is client-terminated (a
// feed or fetch of a distributed step: its other end is the client, not a
// kernel).
std::string TimelineLabel(const NodeDef& def);

class StepStatsCollector {
 public:
  StepStatsCollector() = default;
  StepStatsCollector(const StepStatsCollector&) = delete;
  StepStatsCollector& operator=(const StepStatsCollector&) = delete;

  // Records `stats` for a node that ran on `device` (full device name).
  void Save(const std::string& device, NodeExecStats stats);

  // Replaces the contents of `*step_stats` with everything saved so far.
  void Finalize(StepStats* step_stats) const;

  // Total NodeExecStats saved (all devices).
  size_t NumSaved() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::vector<NodeExecStats>> by_device_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_STEP_STATS_COLLECTOR_H_
