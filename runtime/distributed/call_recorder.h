// CallRecorder: records every call one task serves — the order, the
// timing, the sizes, the outcome and (for the calls a replay re-issues)
// the request itself — into a file in the simulator's trace format, so a
// real run can be replayed against the real Master/Worker code in the
// simulator (sim/workloads/recorded_run.h).
//
//   CallRecorder::Options o;
//   o.path = "/tmp/task0.rec"; o.task = task; o.clock = env.clock;
//   o.params = {{"cluster", ...}, {"cpus", "1"}, ...};
//   std::unique_ptr<CallRecorder> recorder;
//   CallRecorder::Create(&mux, o, &recorder);
//   transport->Serve(task, recorder.get());   // instead of &mux
//
// It is an RpcHandler that forwards each call to the handler it wraps and,
// when the answer is ready (before `done` runs), appends one record.
//
// File: length-delimited SimTraceRecord protos (proto/sim_trace.proto), as
// sim/trace/trace.h reads them: a header {format "stepflow.sim_trace.v1",
// workload_name "recorded", params: "task" and Options::params, then
// "start_clock_ns" (the clock when recording began)}, then one event per
// answered call:
//   time_nanos      when the call arrived, clock nanoseconds since the start
//   sequence        the record's number (1, 2, ...)
//   kind            SIM_RPC_DONE
//   task            the serving task
//   fields          method, outcome (call_outcome.h), end_ns (when it was
//                   answered, same scale as time_nanos), request_bytes,
//                   response_bytes, and handle (call_outcome.h) when the
//                   answer created one
//   payload_digest  FNV-1a of the serialized request
//   payload         the serialized request, for every MasterService call and
//                   for WorkerService/RegisterGraph (the graphs registered);
//                   empty for the other worker calls
// Records follow the order answers were ready in. There is no footer: every
// record is flushed as it is written, so a server killed at any point
// leaves a readable file of everything it answered.
//
// Errors: Create fails Unavailable if the file cannot be created. A later
// write failure stops recording (calls are still served); status() says so.
// Ownership: `inner` and Options::clock are borrowed and must outlive the
// recorder; calls must be over before it is destroyed.
// Thread-safety: thread-safe (records are serialised under a mutex).
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_CALL_RECORDER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_CALL_RECORDER_H_

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/clock.h"
#include "runtime/env/transport.h"

namespace stepflow {

// The trace format and workload name of a recording (the simulator's
// kSimTraceFormat, sim/trace/trace.h).
inline constexpr char kRecordedTraceFormat[] = "stepflow.sim_trace.v1";
inline constexpr char kRecordedWorkload[] = "recorded";

class CallRecorder : public RpcHandler {
 public:
  struct Options {
    std::string path;
    std::string task;
    const Clock* clock = nullptr;
    // Header params after "task" (the cluster, this task's devices and the
    // server options a replay must reproduce).
    std::vector<std::pair<std::string, std::string>> params;
  };

  static absl::Status Create(RpcHandler* inner, const Options& options,
                             std::unique_ptr<CallRecorder>* out);
  ~CallRecorder() override;

  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override;

  // OK, or DataLoss once a write failed (nothing is recorded after it).
  absl::Status status() const;
  int64_t calls_recorded() const;

 private:
  CallRecorder(RpcHandler* inner, const Options& options);

  RpcHandler* const inner_;
  const Options options_;
  const int64_t start_nanos_;

  mutable absl::Mutex mu_;
  std::ofstream out_ ABSL_GUARDED_BY(mu_);
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t recorded_ ABSL_GUARDED_BY(mu_) = 0;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_CALL_RECORDER_H_
