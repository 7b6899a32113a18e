// GrpcServer: one task of a cluster served over gRPC — a Worker for the
// task and a Master (so any task can take client sessions), behind one
// GrpcTransport listening on the task's port.
//
//   GrpcServer::Options o;
//   o.cluster.AddTask("chief", 0, "127.0.0.1:2222");
//   o.cluster.AddTask("ps", 0, "127.0.0.1:2223");
//   o.job_name = "chief";
//   o.task_index = 0;
//   std::unique_ptr<GrpcServer> server;
//   GrpcServer::Create(o, &server);   // serving until destroyed
//
// Task i of job J is "/job:J/replica:0/task:i" at its cluster address,
// whatever the job's name ("worker", "ps", "chief", ...); every task of
// every job is one of the master's workers, and the master's own task's
// CPU:0 is its sessions' client device. The server binds bind_host
// (127.0.0.1 by default) at its own address's port; port 0 picks a free
// one (useful for a one-task cluster; other tasks could not know it).
// Clients reach the master with the session target "grpc://<address>".
//
// With Options::tls set (tls_credentials.h), the server speaks only TLS
// and requires every caller — clients and the other tasks — to present a
// certificate signed by tls's CA; its own calls to the other tasks present
// tls's certificate and verify theirs against the same CA.
//
// Shutdown(grace) stops it boundedly: new client (MasterService) calls
// other than CloseSession are refused Unavailable naming the task, client
// calls in flight get
// `grace` to finish (the worker keeps serving its peers meanwhile, so
// multi-task steps can complete), then every call still running, served or
// made, is cancelled. Destruction then aborts the worker's remaining steps
// (Aborted) and joins the threads — which a kernel still computing delays
// until it returns: a process that must exit in bounded time puts a
// watchdog around the destruction (runtime/bin/shutdown_watchdog.h, as
// grpc_server does).
//
// Ownership: the server owns its real Env (threads, clock, random),
// transport, master and worker; destruction stops serving (Shutdown with
// a 2 s grace, if not called) and frees everything.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SERVER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/distributed/rpc/cluster_spec.h"
#include "runtime/distributed/rpc/tls_credentials.h"

namespace stepflow {

class GrpcServer {
 public:
  struct Options {
    ClusterSpec cluster;
    // This server's task: task_index of job job_name in `cluster`.
    std::string job_name = "worker";
    int task_index = 0;
    // Mutual TLS (see above); disabled (plaintext) by default.
    TlsConfig tls;
    std::string bind_host = "127.0.0.1";
    int cpus = 1;              // CPU devices of this task.
    int inter_op_threads = 0;  // 0: one per core.
    // The most blocks one kernel cuts its work into (the server-wide
    // ConfigProto.intra_op_parallelism_threads of TensorFlow's servers);
    // the blocks run on the inter-op threads. 0: their number.
    int intra_op_threads = 0;
    // The master closes sessions idle this long (0: never), e.g. those of
    // a client that went away without closing them.
    int64_t session_gc_seconds = kDefaultSessionGcSeconds;
    // The master's heartbeat to every worker (0: none, and no leases); a
    // step fails Unavailable naming a task that misses
    // health_check_max_missed heartbeats in a row.
    int64_t health_check_interval_ms = 2000;
    int health_check_max_missed = 3;
    // The worker drops the sessions of a master it has not heard from
    // this long (0: never).
    int64_t session_lease_seconds = 60;
    // Bytes of tensors this process may hold at once, over all its devices
    // (0: no limit). A step that would go over fails with ResourceExhausted
    // naming the node, the shape and the bytes; the server serves on.
    // server_main's default is a fraction of physical memory.
    int64_t memory_limit_bytes = 0;
    // Records every call this task serves (master and worker) to this file
    // in the simulator's trace format (runtime/distributed/call_recorder.h);
    // empty: no recording. The header names the task, the cluster, the
    // CPUs, the options above that a replay reproduces and the worker's
    // incarnation. Create fails Unavailable if the file cannot be created.
    std::string record_path;
  };
  static constexpr int64_t kDefaultSessionGcSeconds = 600;

  // InvalidArgument for bad options (an empty cluster, a job or task index
  // the cluster does not have, a thread count out of range, a negative
  // memory limit, TLS without a certificate and key); Unavailable if the
  // port cannot be bound.
  static absl::Status Create(const Options& options,
                             std::unique_ptr<GrpcServer>* out);
  ~GrpcServer();

  // See above. Returns whether every client call finished within `grace`
  // (false: some were cancelled). Call once, before destruction.
  bool Shutdown(absl::Duration grace);

  const std::string& task() const;
  // "host:port" this server listens on (the bound port).
  std::string address() const;

  class Impl;

 private:
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_SERVER_H_
