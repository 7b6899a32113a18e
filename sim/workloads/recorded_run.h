// RecordedRun: the recordings of one real run of a cluster (grpc_server
// --record, runtime/distributed/call_recorder.h), merged into one timeline
// a replay can drive.
//
// Input: every recording file of the run — one per server process, so a
// task that was killed and restarted has one file per incarnation — or one
// merged file written by WriteRecordedRun (e.g. a shrunk run). Files are
// put on one timeline by their header's start_unix_ns (wall time; the
// processes' clocks must agree, as on one machine), offsets in the file by
// each record's time_nanos.
//
// What the run is made of:
//   calls   the client's calls: every MasterService record, in the order
//           they arrived (ties: the order answered), with the recorded
//           request, outcome and created handle. All must be served by one
//           task (the run's master).
//   faults  a task's later incarnation (a second file for the task) is a
//           crash of the earlier one and a restart when the later one
//           started. The recording does not say when the process died,
//           only that it was after its last answer: the crash is put at
//           the first instant after that answer when no client call was in
//           flight (a kill between steps), or right after the answer if a
//           client call in flight then failed (it died under the call).
//           The crash also says how many worker answers (heartbeats aside)
//           the dying incarnation gave, so a replay can kill it after as
//           many — at the same point of a step it died in.
//   worker_calls  every WorkerService record (what the workers served),
//           for inspection and comparison, in arrival order.
// The cluster's tasks come from the headers' "cluster", each task's CPUs
// from its own header ("cpus"); the server options a replay reproduces
// (session_gc_ns, health_check_interval_ns, health_check_max_missed,
// session_lease_ns) from the master's header.
//
// Merged file: one header {workload_name "recorded", params "merged" = 1,
// "cluster", "master", "cpus@<task>" per task and the options}, then the
// calls and worker calls as SIM_RPC_DONE records and the faults as
// SIM_FAULT records {fault = crash | restart, answers (a crash's)}, all
// with time_nanos on the run's timeline.
//
// Errors: NotFound / DataLoss for unreadable files (a last record cut off
// by a killed server is dropped, not an error), InvalidArgument for a file
// that is not a recording, client calls on more than one task, or a task
// missing from the cluster.
// Thread-safety: plain data and functions.
#ifndef STEPFLOW_SIM_WORKLOADS_RECORDED_RUN_H_
#define STEPFLOW_SIM_WORKLOADS_RECORDED_RUN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "sim/trace/trace.h"

namespace stepflow {

struct RecordedCall {
  int64_t start_nanos = 0;  // On the run's timeline.
  int64_t end_nanos = 0;
  std::string task;  // The serving task.
  std::string method;
  std::string outcome;  // call_outcome.h.
  std::string handle;   // Created by the answer, if any.
  std::string request;  // Serialized; empty where the recorder kept none.
  uint64_t request_digest = 0;
  // One line for reports: "<method> <outcome>".
  std::string Describe() const;
};

struct RecordedFault {
  enum Kind { kCrash, kRestart };
  int64_t at_nanos = 0;
  Kind kind = kCrash;
  std::string task;
  // A crash: the worker answers (heartbeats aside) the dying incarnation
  // gave; -1 if unknown.
  int64_t answers = -1;
  std::string Describe() const;  // "crash <task>" / "restart <task>".
};

struct RecordedRun {
  std::vector<std::string> tasks;  // Sorted.
  std::map<std::string, int> cpus;
  std::string master_task;
  // session_gc_ns, health_check_interval_ns, health_check_max_missed,
  // session_lease_ns (absent: the simulator's defaults, all off).
  std::map<std::string, int64_t> options;
  std::vector<RecordedCall> calls;
  std::vector<RecordedFault> faults;  // By time.
  std::vector<RecordedCall> worker_calls;
  int files = 0;
};

// Whether an answer to `method` counts towards RecordedFault::answers: a
// worker call other than a heartbeat (GetStatus, whose number follows real
// time).
bool IsCountedWorkerAnswer(absl::string_view method);

// Whether `header` is a recording's (workload_name "recorded").
bool IsRecordedHeader(const TraceHeader& header);

absl::Status LoadRecordedRun(const std::vector<std::string>& paths,
                             RecordedRun* run);

// Gives `visit` each handle a master request names — its session_handle,
// partial_run_handle and callable handle (decimal) fields, where the type
// has them — and stores back what `visit` leaves (a replay translates
// recorded handles into its own).
void ForEachRequestHandle(google::protobuf::Message* request,
                          const std::function<void(std::string*)>& visit);
absl::Status WriteRecordedRun(const std::string& path, const RecordedRun& run);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_WORKLOADS_RECORDED_RUN_H_
