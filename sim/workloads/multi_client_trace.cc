// MultiClientRunner's tracing: the recorder's options and file, and the
// events each op adds to the trace (see multi_client_runner.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/trace/digest.h"
#include "sim/trace/tensor_digest.h"
#include "sim/workloads/multi_client_runner.h"

namespace stepflow {

TraceRecorder::Options MultiClientRunner::RecorderOptions(
    const MultiClientRunOptions& options, InvariantChecker* checker) {
  TraceRecorder::Options o;
  o.keep_events = options.keep_events;
  o.observer = [checker](const TraceEvent& e) { checker->OnTraceEvent(e); };
  return o;
}

absl::Status MultiClientRunner::OpenTraceFile() {
  if (options_.trace_path.empty()) return absl::OkStatus();
  TraceHeader header;
  header.seed = plan_.seed();
  header.workload = "multi-client C API workload";
  header.params = {{"ops", absl::StrCat(plan_.ops_size())},
                   {"clients", absl::StrCat(plan_.num_clients())}};
  return recorder_.OpenFile(options_.trace_path, header);
}

void MultiClientRunner::TraceOpStart(int index, const SimOp& op) {
  sim_->loop.Trace(SIM_STEP_START, absl::StrCat("client", op.client()),
                   {{"op", index},
                    {"kind", SimOp::Kind_Name(op.kind())},
                    {"session", op.session()},
                    {"graph", op.graph()}});
}

void MultiClientRunner::RecordStep(const SimOp& op, int index,
                                   const absl::Status& status,
                                   const std::vector<Tensor>& outputs) {
  ++result_->steps_run;
  if (status.ok()) ++result_->steps_ok;
  ++result_->steps_by_code[absl::StatusCodeToString(status.code())];
  Fnv64 digest;
  for (const Tensor& t : outputs) HashTensorInto(t, &digest);
  sim_->loop.Trace(SIM_STEP_DONE, absl::StrCat("client", op.client()),
                   {{"op", index},
                    {"session", op.session()},
                    {"status", absl::StatusCodeToString(status.code())}},
                   status.ok() ? digest.value() : 0);
}

absl::Status MultiClientRunner::FinishTrace() {
  result_->checks = checker_.checks();
  result_->events_run = sim_->loop.events_run();
  result_->virtual_nanos = sim_->loop.NowNanos();
  sim_->loop.set_recorder(nullptr);
  sim_.reset();
  result_->trace_hash = recorder_.hash();
  result_->trace_events = recorder_.event_count();
  if (options_.keep_events) result_->events = recorder_.events();
  return recorder_.Close();
}

}  // namespace stepflow
