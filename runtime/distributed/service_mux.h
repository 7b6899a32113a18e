// ServiceMux: one RpcHandler for a task that runs several services (a
// server task is both a master and a worker): routes "<Service>/<Method>"
// to the handler registered for <Service>.
//
// Errors: a method of an unregistered service is Unimplemented naming it.
// Ownership: handlers are borrowed and must outlive the mux.
// Thread-safety: Add() before serving; Handle() is thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_SERVICE_MUX_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_SERVICE_MUX_H_

#include <map>
#include <string>

#include "runtime/env/transport.h"

namespace stepflow {

class ServiceMux : public RpcHandler {
 public:
  // `service` is "MasterService", "WorkerService", ...
  void Add(const std::string& service, RpcHandler* handler) {
    handlers_[service] = handler;
  }

  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override;

 private:
  std::map<std::string, RpcHandler*, std::less<>> handlers_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_SERVICE_MUX_H_
