// GrpcServer: one task of a cluster served over gRPC — a Worker for the
// task and a Master (so any task can take client sessions), behind one
// GrpcTransport listening on the task's port.
//
//   GrpcServer::Options o;
//   o.worker_addresses = {"127.0.0.1:2222", "127.0.0.1:2223"};
//   o.task_index = 0;
//   std::unique_ptr<GrpcServer> server;
//   GrpcServer::Create(o, &server);   // serving until destroyed
//
// Tasks are "/job:worker/replica:0/task:<i>" at worker_addresses[i]. The
// server binds bind_host (127.0.0.1 by default) at its own address's port;
// port 0 picks a free one (useful for a one-task cluster; other tasks
// could not know it).
// Clients reach the master with the session target "grpc://<address>".
//
// Ownership: the server owns its real Env (threads, clock, random),
// transport, master and worker; destruction stops serving, lets in-flight
// calls finish (bounded) and frees everything.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SERVER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace stepflow {

class GrpcServer {
 public:
  struct Options {
    std::vector<std::string> worker_addresses;  // "host:port" per task.
    int task_index = 0;
    std::string bind_host = "127.0.0.1";
    int cpus = 1;              // CPU devices of this task.
    int inter_op_threads = 0;  // 0: one per core.
    // The master closes sessions idle this long (0: never), e.g. those of
    // a client that went away without closing them.
    int64_t session_gc_seconds = 0;
    // Bytes of tensors this process may hold at once, over all its devices
    // (0: no limit). A step that would go over fails with ResourceExhausted
    // naming the node, the shape and the bytes; the server serves on.
    // server_main's default is a fraction of physical memory.
    int64_t memory_limit_bytes = 0;
  };

  // InvalidArgument for bad options (no addresses, index out of range, an
  // address without a port, a thread count out of range, a negative memory
  // limit); Unavailable if the port cannot be bound.
  static absl::Status Create(const Options& options,
                             std::unique_ptr<GrpcServer>* out);
  ~GrpcServer();

  const std::string& task() const;
  // "host:port" this server listens on (the bound port).
  std::string address() const;

  class Impl;

 private:
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Parses "worker=host:port,host:port" (the only job is "worker").
absl::Status ParseClusterSpec(const std::string& spec,
                              std::vector<std::string>* worker_addresses);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SERVER_H_
