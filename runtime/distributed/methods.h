// The RPC methods of the distributed runtime and their message types: one
// table shared by every Transport implementation (loopback, simulated,
// gRPC), so a transport can make a fresh request/response of the right type
// for a method name without knowing the services.
//
// Method names are "<Service>/<Method>": "MasterService/RunStep",
// "WorkerService/RecvTensor", ... (see ListMethods()): TensorFlow's
// services and methods, which GrpcTransport puts on the wire as
// "/tensorflow.<Service>/<Method>".
//
// Thread-safety: the table is immutable; every function is thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_METHODS_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_METHODS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace stepflow {

struct MethodInfo {
  // Default instances (owned by the protobuf runtime); New() makes fresh ones.
  const google::protobuf::Message* request_prototype = nullptr;
  const google::protobuf::Message* response_prototype = nullptr;
};

// The method's message types, or Unimplemented naming an unknown method.
absl::Status LookupMethod(absl::string_view method, MethodInfo* info);

// Every known method name, sorted.
std::vector<std::string> ListMethods();

// Fresh, empty messages of the method's request / response types.
absl::Status NewRequestAndResponse(
    absl::string_view method,
    std::unique_ptr<google::protobuf::Message>* request,
    std::unique_ptr<google::protobuf::Message>* response);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_METHODS_H_
