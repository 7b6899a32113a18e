// TF_NewServer and friends: an in-process server for one task of a
// cluster, created from a serialized ServerDef through the server factory
// registry (runtime/distributed/server_lib.h). The C API itself links no
// transport: programs get the "grpc" protocol by linking
// //runtime/distributed/rpc:grpc_server_factory (libtensorflow.so.2 does).
//
// Errors: InvalidArgument for an unparseable ServerDef ("Could not parse
// ServerDef", as TensorFlow); the factory's errors (NotFound for a protocol
// nobody registered, InvalidArgument for a cluster the transport cannot
// serve); Start's (Unavailable for a port in use). TF_ServerJoin blocks
// until TF_ServerStop. TF_ServerTarget's string lives as long as the
// server.
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "proto/cluster.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/distributed/server_lib.h"

struct TF_Server {
  std::unique_ptr<stepflow::ServerInterface> server;
  std::string target;  // Refreshed by TF_ServerTarget.
};

using stepflow::c_api::Set;

extern "C" {

TF_Server* TF_NewServer(const void* proto, size_t proto_len,
                        TF_Status* status) {
  stepflow::ServerDef def;
  if ((proto == nullptr && proto_len > 0) ||
      !def.ParseFromArray(proto, static_cast<int>(proto_len))) {
    Set(status, absl::InvalidArgumentError("Could not parse ServerDef"));
    return nullptr;
  }
  std::unique_ptr<stepflow::ServerInterface> server;
  absl::Status s = stepflow::NewServer(def, &server);
  if (!s.ok()) {
    Set(status, std::move(s));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return new TF_Server{std::move(server), ""};
}

void TF_ServerStart(TF_Server* server, TF_Status* status) {
  if (server == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_ServerStart: server is NULL"));
    return;
  }
  Set(status, server->server->Start());
}

void TF_ServerStop(TF_Server* server, TF_Status* status) {
  if (server == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_ServerStop: server is NULL"));
    return;
  }
  Set(status, server->server->Stop());
}

void TF_ServerJoin(TF_Server* server, TF_Status* status) {
  if (server == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_ServerJoin: server is NULL"));
    return;
  }
  Set(status, server->server->Join());
}

const char* TF_ServerTarget(TF_Server* server) {
  if (server == nullptr) return "";
  server->target = server->server->target();
  return server->target.c_str();
}

void TF_DeleteServer(TF_Server* server) { delete server; }

}  // extern "C"
