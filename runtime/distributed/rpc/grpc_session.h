// GrpcSession: the "grpc://host:port" Session. It talks to the master of a
// cluster (a grpc_server task) through its own GrpcTransport and otherwise
// is a DistributedSession (runtime/distributed/distributed_session.h): the
// same graph, run, close and error semantics, with gRPC underneath.
//
// Linking this library registers the "GRPC_SESSION" factory, which accepts
// targets starting with "grpc://"; NewSession(options) then returns one.
// options.env supplies the clock, scheduler and random; the transport is
// the session's own, speaking mutual TLS when options.tls names the PEM
// files (tls_credentials.h).
//
// Ownership: the session owns its transport and the Env copy that carries
// it. Thread-safety: as Session.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SESSION_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SESSION_H_

#include <memory>

#include "absl/status/status.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"

namespace stepflow {

// InvalidArgument for a target that is not "grpc://host:port", an
// options.env without a scheduler, or options.tls files that are missing,
// unreadable or half given.
absl::Status NewGrpcSession(const SessionOptions& options,
                            std::unique_ptr<Session>* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SESSION_H_
