#include "runtime/distributed/methods.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "proto/master.pb.h"
#include "proto/worker.pb.h"

namespace stepflow {
namespace {

using MethodTable = std::map<std::string, MethodInfo, std::less<>>;

template <typename Req, typename Resp>
void Add(MethodTable* t, const std::string& name) {
  (*t)[name] = MethodInfo{&Req::default_instance(), &Resp::default_instance()};
}

const MethodTable& Table() {
  static const MethodTable* table = [] {
    auto* t = new MethodTable;
    Add<CreateSessionRequest, CreateSessionResponse>(
        t, "MasterService/CreateSession");
    Add<ExtendSessionRequest, ExtendSessionResponse>(
        t, "MasterService/ExtendSession");
    Add<RunStepRequest, RunStepResponse>(t, "MasterService/RunStep");
    Add<PartialRunSetupRequest, PartialRunSetupResponse>(
        t, "MasterService/PartialRunSetup");
    Add<CloseSessionRequest, CloseSessionResponse>(
        t, "MasterService/CloseSession");
    Add<ListDevicesRequest, ListDevicesResponse>(t,
                                                 "MasterService/ListDevices");
    Add<ResetRequest, ResetResponse>(t, "MasterService/Reset");
    Add<MakeCallableRequest, MakeCallableResponse>(
        t, "MasterService/MakeCallable");
    Add<RunCallableRequest, RunCallableResponse>(t,
                                                 "MasterService/RunCallable");
    Add<ReleaseCallableRequest, ReleaseCallableResponse>(
        t, "MasterService/ReleaseCallable");
    Add<GetStatusRequest, GetStatusResponse>(t, "WorkerService/GetStatus");
    Add<CreateWorkerSessionRequest, CreateWorkerSessionResponse>(
        t, "WorkerService/CreateWorkerSession");
    Add<DeleteWorkerSessionRequest, DeleteWorkerSessionResponse>(
        t, "WorkerService/DeleteWorkerSession");
    Add<RegisterGraphRequest, RegisterGraphResponse>(
        t, "WorkerService/RegisterGraph");
    Add<DeregisterGraphRequest, DeregisterGraphResponse>(
        t, "WorkerService/DeregisterGraph");
    Add<RunGraphRequest, RunGraphResponse>(t, "WorkerService/RunGraph");
    Add<CleanupGraphRequest, CleanupGraphResponse>(
        t, "WorkerService/CleanupGraph");
    Add<RecvTensorRequest, RecvTensorResponse>(t, "WorkerService/RecvTensor");
    Add<CleanupAllRequest, CleanupAllResponse>(t, "WorkerService/CleanupAll");
    Add<LoggingRequest, LoggingResponse>(t, "WorkerService/Logging");
    Add<TracingRequest, TracingResponse>(t, "WorkerService/Tracing");
    return t;
  }();
  return *table;
}

}  // namespace

absl::Status LookupMethod(absl::string_view method, MethodInfo* info) {
  const MethodTable& t = Table();
  auto it = t.find(method);
  if (it == t.end()) {
    return absl::UnimplementedError(
        absl::StrCat("Unknown RPC method '", method, "'"));
  }
  *info = it->second;
  return absl::OkStatus();
}

std::vector<std::string> ListMethods() {
  std::vector<std::string> out;
  for (const auto& [name, info] : Table()) out.push_back(name);
  return out;
}

absl::Status NewRequestAndResponse(
    absl::string_view method,
    std::unique_ptr<google::protobuf::Message>* request,
    std::unique_ptr<google::protobuf::Message>* response) {
  MethodInfo info;
  absl::Status s = LookupMethod(method, &info);
  if (!s.ok()) return s;
  request->reset(info.request_prototype->New());
  response->reset(info.response_prototype->New());
  return absl::OkStatus();
}

}  // namespace stepflow
