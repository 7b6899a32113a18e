// WorkerRpcLog: a worker's RPC logging (WorkerService/Logging, as
// TensorFlow's worker cache logger): while enabled, every RecvTensor the
// worker answers is recorded as one NodeExecStats under its step id (node
// "RecvTensor", the source device as the device, start/end of the answer,
// a timeline label naming the rendezvous key and the bytes sent); a Logging
// call returns, and forgets, the records of the steps it names.
//
// At most kMaxSteps steps are kept: the oldest step is forgotten first, so
// a client that enables logging and never fetches cannot grow the worker
// without bound. Disabling keeps what was recorded (fetch it later);
// `clear` forgets everything.
//
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_RPC_LOG_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_RPC_LOG_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "proto/step_stats.pb.h"
#include "proto/worker.pb.h"

namespace stepflow {

class WorkerRpcLog {
 public:
  static constexpr size_t kMaxSteps = 1024;

  // Applies a Logging request: enable/disable/clear, then moves the
  // records of req.fetch_step_id() (in that order; steps without records
  // are left out) into `resp`.
  void Handle(const LoggingRequest& req, LoggingResponse* resp);

  bool enabled() const;

  // Records one RecvTensor answer (a no-op while disabled).
  void RecordRecvTensor(int64_t step_id, const std::string& src_device,
                        const std::string& rendezvous_key, int64_t bytes,
                        int64_t start_micros, int64_t end_micros);

 private:
  mutable absl::Mutex mu_;
  bool enabled_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int64_t, StepStats> steps_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> order_ ABSL_GUARDED_BY(mu_);  // Oldest first.
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_RPC_LOG_H_
