// ServerInterface and the server factory registry: how a process that only
// has a ServerDef (the C API's TF_NewServer) gets a server for it without
// depending on a transport. Each transport package registers a factory for
// its protocol at static initialisation (the gRPC one is
// runtime/distributed/rpc/grpc_server_factory.cc, "grpc"); linking it is
// what makes the protocol available.
//
// Thread-safety: the registry is thread-safe; a ServerInterface's methods
// may be called from any thread (Join blocks until Stop).
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_SERVER_LIB_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_SERVER_LIB_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "proto/cluster.pb.h"

namespace stepflow {

// One task of a cluster, serving the master and worker services.
// Lifecycle (TensorFlow's): created (not serving) -> Start (serving) ->
// Stop (not serving, for good) ; Join returns once stopped.
class ServerInterface {
 public:
  virtual ~ServerInterface() = default;
  // Starts serving; a second Start is a no-op. FailedPrecondition after
  // Stop; Unavailable if the port cannot be bound.
  virtual absl::Status Start() = 0;
  // Stops serving (client calls in flight get a short grace). Idempotent.
  virtual absl::Status Stop() = 0;
  // Blocks until the server is stopped.
  virtual absl::Status Join() = 0;
  // The session target of this server's master ("grpc://host:port").
  virtual std::string target() const = 0;
};

using ServerFactory = std::function<absl::Status(
    const ServerDef& server_def, std::unique_ptr<ServerInterface>* out)>;

// Registers `factory` for ServerDef.protocol == `protocol`. Returns true so
// a static can hold the result; a second registration of a protocol
// replaces the first.
bool RegisterServerFactory(const std::string& protocol, ServerFactory factory);

// A server for `server_def` from its protocol's factory ("grpc" if empty).
// NotFound naming the protocol and the registered ones if none accepts it;
// the factory's error otherwise.
absl::Status NewServer(const ServerDef& server_def,
                       std::unique_ptr<ServerInterface>* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_SERVER_LIB_H_
