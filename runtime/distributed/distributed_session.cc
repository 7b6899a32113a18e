#include "runtime/distributed/distributed_session.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/master.pb.h"
#include "runtime/env/notification.h"
#include "runtime/env/transport.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace {

absl::Status ClosedError() {
  return absl::CancelledError("Session has been closed.");
}

absl::Status NoGraphError() {
  return absl::InvalidArgumentError(
      "Session was not created with a graph before Run()!");
}

// The fetched tensors in the order of `output_names`. A master answers
// them by name, in an order of its own (TensorFlow's goes partition by
// partition); a nameless answer is taken in request order.
absl::Status FetchesByName(const std::vector<std::string>& output_names,
                           RunStepResponse* resp,
                           std::vector<Tensor>* outputs) {
  std::map<std::string, std::vector<size_t>> slots;
  for (size_t i = 0; i < output_names.size(); ++i) {
    slots[output_names[i]].push_back(i);
  }
  std::vector<Tensor> out(output_names.size());
  for (int i = 0; i < resp->tensor_size(); ++i) {
    const NamedTensorProto& t = resp->tensor(i);
    if (t.name().empty()) {
      SF_RETURN_IF_ERROR(TensorFromProto(t.tensor(), &out[i]));
      continue;
    }
    auto it = slots.find(t.name());
    if (it == slots.end()) {
      return absl::InternalError(absl::StrCat("The master returned '", t.name(),
                                              "', which was not fetched"));
    }
    Tensor value;
    SF_RETURN_IF_ERROR(TensorFromProto(t.tensor(), &value));
    for (size_t slot : it->second) out[slot] = value;
  }
  *outputs = std::move(out);
  return absl::OkStatus();
}

}  // namespace

absl::Status MasterTaskFromTarget(const std::string& target,
                                  std::string* task) {
  const size_t scheme = target.find("://");
  *task = scheme == std::string::npos ? target : target.substr(scheme + 3);
  if (task->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Target '", target, "' names no master"));
  }
  return absl::OkStatus();
}

int64_t DistributedSession::MasterCallTimeoutNanos(int64_t timeout_ms) {
  if (timeout_ms <= 0) return 0;
  return (timeout_ms + kMasterCallGraceMs) * 1000000;
}

DistributedSession::DistributedSession(const SessionOptions& options,
                                       std::string master_task)
    : options_(options), master_task_(std::move(master_task)) {}

DistributedSession::~DistributedSession() { Close().IgnoreError(); }

std::string DistributedSession::handle() const {
  absl::MutexLock l(&mu_);
  return handle_;
}

absl::Status DistributedSession::CheckNotClosed() const {
  return closed_.load() ? ClosedError() : absl::OkStatus();
}

absl::Status DistributedSession::CallMaster(
    const std::string& method, const google::protobuf::Message& request,
    google::protobuf::Message* response, int64_t timeout_ms) {
  Env* env = options_.env;
  if (env == nullptr || env->transport == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "A distributed session needs an Env with a transport (", method, ")"));
  }
  // Shared with the callback, which may outlive a wait cut short by nothing
  // (WaitFor returns only after Notify, so this is belt and braces).
  struct Wait {
    Notification done;
    absl::Status status;
  };
  auto wait = std::make_shared<Wait>();
  CallOptions call_options;
  call_options.timeout_nanos = MasterCallTimeoutNanos(timeout_ms);
  env->transport->Call(master_task_, method, request, response, call_options,
                       [wait](const absl::Status& s) {
                         wait->status = s;
                         wait->done.Notify();
                       });
  env->scheduler->WaitFor(&wait->done);
  return wait->status;
}

absl::Status DistributedSession::CreateLocked(const GraphDef& graph) {
  CreateSessionRequest req;
  *req.mutable_graph_def() = graph;
  *req.mutable_config() = options_.config;
  req.set_target(options_.target);
  CreateSessionResponse resp;
  SF_RETURN_IF_ERROR(CallMaster("MasterService/CreateSession", req, &resp));
  handle_ = resp.session_handle();
  graph_version_ = resp.graph_version();
  return absl::OkStatus();
}

absl::Status DistributedSession::Create(const GraphDef& graph) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  if (graph.node_size() == 0) return absl::OkStatus();
  absl::MutexLock l(&mu_);
  if (!handle_.empty()) {
    return absl::AlreadyExistsError(
        "A Graph has already been created for this session.");
  }
  return CreateLocked(graph);
}

absl::Status DistributedSession::Extend(const GraphDef& graph) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  absl::MutexLock l(&mu_);
  if (handle_.empty()) {
    if (graph.node_size() == 0) return absl::OkStatus();
    return CreateLocked(graph);
  }
  ExtendSessionRequest req;
  req.set_session_handle(handle_);
  *req.mutable_graph_def() = graph;
  req.set_current_graph_version(graph_version_);
  ExtendSessionResponse resp;
  SF_RETURN_IF_ERROR(CallMaster("MasterService/ExtendSession", req, &resp));
  graph_version_ = resp.new_graph_version();
  return absl::OkStatus();
}

absl::Status DistributedSession::Run(
    const RunOptions& run_options, const FeedList& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata) {
  return RunStep(run_options, inputs, output_names, target_names,
                 /*partial_run_handle=*/"", outputs, run_metadata);
}

absl::Status DistributedSession::RunStep(
    const RunOptions& run_options, const FeedList& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names,
    const std::string& partial_run_handle, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  RunStepRequest req;
  {
    absl::MutexLock l(&mu_);
    if (handle_.empty()) return NoGraphError();
    req.set_session_handle(handle_);
  }
  req.set_partial_run_handle(partial_run_handle);
  for (const auto& [name, t] : inputs) {
    NamedTensorProto* f = req.add_feed();
    f->set_name(name);
    TensorToProto(t, f->mutable_tensor());
  }
  for (const auto& name : output_names) req.add_fetch(name);
  for (const auto& name : target_names) req.add_target(name);
  *req.mutable_options() = run_options;
  req.set_request_id(
      static_cast<int64_t>(options_.env->random->NewNonZero64() >> 1));
  RunStepResponse resp;
  const int64_t step_timeout_ms =
      run_options.timeout_in_ms() > 0
          ? run_options.timeout_in_ms()
          : options_.config.operation_timeout_in_ms();
  absl::Status s =
      CallMaster("MasterService/RunStep", req, &resp, step_timeout_ms);
  if (!s.ok()) {
    if (closed_.load() && (absl::IsCancelled(s) || absl::IsAborted(s))) {
      return ClosedError();
    }
    return s;
  }
  if (resp.tensor_size() != static_cast<int>(output_names.size())) {
    return absl::InternalError(absl::StrCat("The master returned ",
                                            resp.tensor_size(), " tensors for ",
                                            output_names.size(), " fetches"));
  }
  SF_RETURN_IF_ERROR(FetchesByName(output_names, &resp, outputs));
  if (run_metadata != nullptr) *run_metadata = resp.metadata();
  return absl::OkStatus();
}

absl::Status DistributedSession::PRunSetup(
    const std::vector<std::string>& input_names,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names, std::string* handle) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  PartialRunSetupRequest req;
  {
    absl::MutexLock l(&mu_);
    if (handle_.empty()) return NoGraphError();
    req.set_session_handle(handle_);
  }
  for (const auto& name : input_names) req.add_feed(name);
  for (const auto& name : output_names) req.add_fetch(name);
  for (const auto& name : target_names) req.add_target(name);
  req.set_request_id(
      static_cast<int64_t>(options_.env->random->NewNonZero64() >> 1));
  PartialRunSetupResponse resp;
  absl::Status s = CallMaster("MasterService/PartialRunSetup", req, &resp);
  if (!s.ok()) {
    if (closed_.load() && (absl::IsCancelled(s) || absl::IsAborted(s))) {
      return ClosedError();
    }
    return s;
  }
  *handle = resp.partial_run_handle();
  return absl::OkStatus();
}

absl::Status DistributedSession::PRun(
    const std::string& handle, const FeedList& inputs,
    const std::vector<std::string>& output_names,
    std::vector<Tensor>* outputs) {
  if (handle.empty()) {
    return absl::InvalidArgumentError(
        "Must run 'setup' before performing partial runs!");
  }
  return RunStep(RunOptions(), inputs, output_names, {}, handle, outputs,
                 nullptr);
}

absl::Status DistributedSession::ListDevices(
    std::vector<DeviceAttributes>* devices) {
  ListDevicesRequest req;
  {
    absl::MutexLock l(&mu_);
    if (!closed_.load()) req.set_session_handle(handle_);
  }
  ListDevicesResponse resp;
  SF_RETURN_IF_ERROR(CallMaster("MasterService/ListDevices", req, &resp));
  devices->clear();
  for (const auto& d : resp.local_device()) devices->push_back(d);
  for (const auto& d : resp.remote_device()) devices->push_back(d);
  return absl::OkStatus();
}

absl::Status DistributedSession::Close() {
  if (closed_.exchange(true)) return absl::OkStatus();
  std::string handle;
  {
    absl::MutexLock l(&mu_);
    handle = handle_;
  }
  if (handle.empty()) return absl::OkStatus();
  CloseSessionRequest req;
  req.set_session_handle(handle);
  CloseSessionResponse resp;
  return CallMaster("MasterService/CloseSession", req, &resp);
}

absl::Status DistributedSession::Reset(
    const std::vector<std::string>& containers) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  ResetRequest req;
  for (const auto& c : containers) req.add_container(c);
  ResetResponse resp;
  return CallMaster("MasterService/Reset", req, &resp);
}

}  // namespace stepflow
