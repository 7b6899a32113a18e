// GrpcTransport: the production Transport (runtime/env/transport.h) over
// gRPC, using gRPC's generic callback API — no generated stubs, no thread
// blocked per call, one method table (runtime/distributed/methods.h) for
// every transport.
//
// Wire mapping: Call(task, "WorkerService/RunGraph", ...) is a unary gRPC
// call to "/tensorflow.WorkerService/RunGraph" on the task's address (from
// Options::addresses) — TensorFlow's method paths, with TensorFlow's message
// encodings (proto/master.proto, proto/worker.proto), so TensorFlow's
// clients and servers are peers — with metadata "sf-task: <task>" naming
// the task, so one server may host several tasks. A call without that
// metadata (every call TensorFlow makes) reaches the handler registered
// under kDefaultTask. A task name that is not a "/job:..." name and has no
// address entry is taken as an address itself ("host:port", as in a
// "grpc://host:port" session target) and is sent without the metadata. Messages
// are serialised in one pass into a slice the ByteBuffer owns and parsed
// straight from the received slices; a large RecvTensor answer's tensor
// bytes go out without any copy (wire_coding.h).
//
// Semantics are the Transport contract: `done` runs through the Scheduler
// given at creation, never inline and never on a gRPC thread; timeouts
// become gRPC deadlines (DeadlineExceeded); CallOptions.cancellation
// cancels the call (Cancelled); an unreachable address, an unknown task
// or a task no longer served gives Unavailable. gRPC status codes carry
// over unchanged (both use the canonical codes).
//
// TLS (Options::tls, tls_credentials.h): the server and every channel use
// it; a connection that fails its TLS handshake fails the call with
// Unavailable saying so (ExplainConnectFailure), as does a plaintext
// connection a TLS server closes.
//
// Out of memory: a std::bad_alloc while parsing a request, inside a
// handler's Handle() call, or while encoding its response fails that call
// with ResourceExhausted, and one while parsing a response fails the
// client's call the same way; the server serves on. (A bad_alloc in work a
// handler scheduled is absorbed by the ThreadPoolScheduler; that call then
// ends by its deadline.)
//
// Reconnecting: calls are fail-fast (no wait-for-ready), so a down peer
// fails a call at once with Unavailable. gRPC would then hold the
// address's channel in TRANSIENT_FAILURE through its reconnect backoff
// (1 s, growing to 2 min), failing every call even after the peer is back;
// instead a channel found in TRANSIENT_FAILURE is replaced by a fresh one
// (with its own subchannel), so each call to a down peer makes one quick
// connection attempt and a restarted peer (same address) is reached by the
// first call after it listens.
//
// Ownership: the transport owns its server and channels; handlers given to
// Serve() are borrowed until StopServing() returns. Destroying the
// transport cancels its outstanding client calls and waits until their
// `done` callbacks have run (so the Scheduler must still be running), then
// shuts the server down: calls still in a handler after a short grace
// period are cancelled, and a handler's late answer is dropped.
// Thread-safety: all methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_TRANSPORT_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_TRANSPORT_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "runtime/distributed/rpc/tls_credentials.h"
#include "runtime/env/scheduler.h"
#include "runtime/env/transport.h"

namespace stepflow {

class GrpcTransport : public Transport {
 public:
  // Serve(kDefaultTask, h): h answers calls addressed to this server by
  // address rather than by task name.
  static constexpr char kDefaultTask[] = "";

  struct Options {
    // Task name ("/job:worker/replica:0/task:1") -> "host:port".
    std::map<std::string, std::string> addresses;
    // Where this process's server listens ("127.0.0.1:2222"; port 0 picks
    // a free one). Empty: client only.
    std::string listen_address;
    // Largest message sent or received, both ways.
    int max_message_bytes = 1 << 30;
    // Mutual TLS for the server and every channel (tls_credentials.h);
    // plaintext unless tls.enabled().
    TlsConfig tls;
  };

  // Starts the server (if listen_address is set). InvalidArgument for a
  // malformed option; Unavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcTransport>> Create(
      const Options& options, Scheduler* scheduler);
  ~GrpcTransport() override;

  // The port the server bound (0 without a server).
  int bound_port() const;

  // Stops serving, boundedly: the server takes no new call; calls still in
  // a handler after `grace` are cancelled (their clients see Cancelled, a
  // late answer is dropped); then this transport's outstanding client
  // calls are cancelled too (their `done` still runs, through the
  // Scheduler). Blocks for at most about `grace` unless a gRPC callback
  // thread is itself wedged. Idempotent; destruction does it with a 2 s
  // grace if it was not done.
  void Shutdown(absl::Duration grace);

  // Sets (or replaces) the address of `task`: for a task whose port was
  // only known once its server bound port 0.
  void SetAddress(const std::string& task, const std::string& address);

  void Call(absl::string_view task, absl::string_view method,
            const google::protobuf::Message& request,
            google::protobuf::Message* response, const CallOptions& options,
            DoneCallback done) override;
  absl::Status Serve(absl::string_view task, RpcHandler* handler) override;
  void StopServing(absl::string_view task) override;

  class Impl;

 private:
  explicit GrpcTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_GRPC_TRANSPORT_H_
