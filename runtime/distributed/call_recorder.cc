#include "runtime/distributed/call_recorder.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "proto/sim_trace.pb.h"
#include "runtime/distributed/call_outcome.h"
#include "runtime/framework/fnv64.h"

namespace stepflow {
namespace {

// Requests a replay re-issues or inspects keep their bytes.
bool KeepsRequest(absl::string_view method) {
  return absl::StartsWith(method, "MasterService/") ||
         method == "WorkerService/RegisterGraph";
}

void AddField(SimTraceEvent* e, const std::string& key,
              const std::string& value) {
  SimTraceField* f = e->add_fields();
  f->set_key(key);
  f->set_value(value);
}

}  // namespace

CallRecorder::CallRecorder(RpcHandler* inner, const Options& options)
    : inner_(inner),
      options_(options),
      start_nanos_(options.clock->NowNanos()) {}

CallRecorder::~CallRecorder() {
  absl::MutexLock lock(&mu_);
  out_.close();
}

absl::Status CallRecorder::Create(RpcHandler* inner, const Options& options,
                                  std::unique_ptr<CallRecorder>* out) {
  if (inner == nullptr || options.clock == nullptr) {
    return absl::InvalidArgumentError(
        "a call recorder needs a handler and a clock");
  }
  std::unique_ptr<CallRecorder> r(new CallRecorder(inner, options));
  SimTraceRecord record;
  SimTraceHeader* h = record.mutable_header();
  h->set_format(kRecordedTraceFormat);
  h->set_workload_name(kRecordedWorkload);
  h->set_workload(absl::StrCat("calls served by ", options.task));
  auto add = [h](const std::string& key, const std::string& value) {
    SimTraceField* f = h->add_params();
    f->set_key(key);
    f->set_value(value);
  };
  add("task", options.task);
  for (const auto& [key, value] : options.params) add(key, value);
  add("start_clock_ns", absl::StrCat(r->start_nanos_));
  {
    absl::MutexLock lock(&r->mu_);
    r->out_.open(options.path,
                 std::ios::binary | std::ios::out | std::ios::trunc);
    if (!r->out_.is_open()) {
      return absl::UnavailableError(
          absl::StrCat("Cannot create the call record ", options.path));
    }
    if (!google::protobuf::util::SerializeDelimitedToOstream(record,
                                                             &r->out_) ||
        !r->out_.flush()) {
      return absl::UnavailableError(
          absl::StrCat("Cannot write the call record ", options.path));
    }
  }
  *out = std::move(r);
  return absl::OkStatus();
}

void CallRecorder::Handle(absl::string_view method,
                          const google::protobuf::Message& request,
                          google::protobuf::Message* response,
                          DoneCallback done) {
  const int64_t start = options_.clock->NowNanos() - start_nanos_;
  auto bytes = std::make_shared<std::string>(request.SerializeAsString());
  std::string name(method);
  inner_->Handle(
      method, request, response,
      [this, start, bytes, name, response,
       done = std::move(done)](const absl::Status& s) {
        const int64_t end = options_.clock->NowNanos() - start_nanos_;
        SimTraceRecord record;
        SimTraceEvent* e = record.mutable_event();
        e->set_time_nanos(start);
        e->set_kind(SIM_RPC_DONE);
        e->set_task(options_.task);
        AddField(e, "method", name);
        AddField(e, "outcome", DescribeCallOutcome(name, s, *response));
        AddField(e, "end_ns", absl::StrCat(end));
        AddField(e, "request_bytes", absl::StrCat(bytes->size()));
        AddField(e, "response_bytes", absl::StrCat(response->ByteSizeLong()));
        if (s.ok()) {
          const std::string handle = CallResultHandle(name, *response);
          if (!handle.empty()) AddField(e, "handle", handle);
        }
        e->set_payload_digest(Fnv1a64(*bytes));
        if (KeepsRequest(name)) e->set_payload(*bytes);
        {
          absl::MutexLock lock(&mu_);
          if (!write_failed_) {
            e->set_sequence(++next_sequence_);
            if (google::protobuf::util::SerializeDelimitedToOstream(record,
                                                                    &out_) &&
                out_.flush()) {
              ++recorded_;
            } else {
              write_failed_ = true;
            }
          }
        }
        done(s);
      });
}

absl::Status CallRecorder::status() const {
  absl::MutexLock lock(&mu_);
  if (write_failed_) {
    return absl::DataLossError(
        absl::StrCat("Writing the call record ", options_.path, " failed"));
  }
  return absl::OkStatus();
}

int64_t CallRecorder::calls_recorded() const {
  absl::MutexLock lock(&mu_);
  return recorded_;
}

}  // namespace stepflow
