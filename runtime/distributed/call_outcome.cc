#include "runtime/distributed/call_outcome.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/master.pb.h"
#include "proto/worker.pb.h"
#include "runtime/framework/fnv64.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace {

// Feeds `name` and the canonical encoding of `proto` into `h`.
void HashTensor(const std::string& name, const TensorProto& proto, Fnv64* h) {
  h->UpdateString(name);
  Tensor t;
  TensorProto canonical;
  if (TensorFromProto(proto, &t).ok()) {
    TensorToProto(t, &canonical);
  } else {
    canonical = proto;  // Not decodable: its own bytes stand for it.
  }
  h->UpdateString(canonical.SerializeAsString());
}

std::string Values(int n, const Fnv64& h) {
  return absl::StrFormat(" tensors=%d values=%016x", n, h.value());
}

}  // namespace

std::string DescribeCallOutcome(absl::string_view method,
                                const absl::Status& status,
                                const google::protobuf::Message& response) {
  std::string out =
      absl::StrCat("code=", absl::StatusCodeToString(status.code()));
  if (!status.ok()) return out;
  if (method == "MasterService/RunStep") {
    const auto& r = static_cast<const RunStepResponse&>(response);
    Fnv64 h;
    for (const NamedTensorProto& t : r.tensor())
      HashTensor(t.name(), t.tensor(), &h);
    absl::StrAppend(&out, Values(r.tensor_size(), h));
    if (r.status_code() != 0) {
      absl::StrAppend(&out, " body_code=",
                      absl::StatusCodeToString(
                          static_cast<absl::StatusCode>(r.status_code())));
    }
  } else if (method == "MasterService/RunCallable") {
    const auto& r = static_cast<const RunCallableResponse&>(response);
    Fnv64 h;
    for (const TensorProto& t : r.fetch()) HashTensor("", t, &h);
    absl::StrAppend(&out, Values(r.fetch_size(), h));
  } else if (method == "MasterService/CreateSession") {
    absl::StrAppend(
        &out, " graph_version=",
        static_cast<const CreateSessionResponse&>(response).graph_version());
  } else if (method == "MasterService/ExtendSession") {
    absl::StrAppend(&out, " graph_version=",
                    static_cast<const ExtendSessionResponse&>(response)
                        .new_graph_version());
  } else if (method == "MasterService/ListDevices") {
    const auto& r = static_cast<const ListDevicesResponse&>(response);
    absl::StrAppend(
        &out, " devices=", r.local_device_size() + r.remote_device_size());
  } else if (method == "WorkerService/RunGraph") {
    const auto& r = static_cast<const RunGraphResponse&>(response);
    Fnv64 h;
    for (const NamedTensorProto& t : r.recv())
      HashTensor(t.name(), t.tensor(), &h);
    absl::StrAppend(&out, Values(r.recv_size(), h));
  } else if (method == "WorkerService/RecvTensor") {
    const auto& r = static_cast<const RecvTensorResponse&>(response);
    Fnv64 h;
    HashTensor("", r.tensor(), &h);
    absl::StrAppend(&out, absl::StrFormat(" values=%016x", h.value()));
  }
  return out;
}

std::string CallResultHandle(absl::string_view method,
                             const google::protobuf::Message& response) {
  if (method == "MasterService/CreateSession") {
    return static_cast<const CreateSessionResponse&>(response).session_handle();
  }
  if (method == "MasterService/PartialRunSetup") {
    return static_cast<const PartialRunSetupResponse&>(response)
        .partial_run_handle();
  }
  if (method == "MasterService/MakeCallable") {
    return absl::StrCat(
        static_cast<const MakeCallableResponse&>(response).handle());
  }
  return "";
}

}  // namespace stepflow
