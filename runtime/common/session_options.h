// SessionOptions: what a session is created with.
//
// `env` is borrowed and must outlive the session. Production main()s build a
// real Env (runtime/env/real); tests and the simulator build their own.
//
// `rendezvous_factory` (optional) makes each step's Rendezvous for sessions
// that use one per step (DirectSession): called with the step id, it returns
// a new rendezvous holding one reference, which the session releases with
// Unref() when the step's state goes away. Unset: the session's default
// (IntraProcessRendezvous). The simulator uses it to trace rendezvous
// traffic. Must be callable from any thread the session runs on.
//
// `process_memory` (optional, borrowed; must outlive the session and every
// tensor it returned, so main()s never free it) is the
// process's memory budget that every device of the session charges its
// tensors to, on top of config.memory_options' per-device limit. main()s
// size it (a fraction of physical memory, or --memory_limit); null: no
// process budget (failed allocations are still ResourceExhausted).
//
// `tls` (optional) turns on mutual TLS for a distributed ("grpc://")
// session: PEM files of the client's certificate chain and private key,
// and of the CA that signed the cluster's servers (a server started with
// --tls_ca refuses clients without a certificate its CA signed). All
// empty: plaintext. Local sessions ignore it.
#ifndef STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_
#define STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "proto/config.pb.h"
#include "runtime/env/env.h"

namespace stepflow {

class MemoryBudget;  // runtime/framework/memory_budget.h
class Rendezvous;    // runtime/framework/rendezvous.h

using RendezvousFactory = std::function<Rendezvous*(int64_t step_id)>;

// PEM files for TLS; see SessionOptions::tls.
struct TlsFiles {
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
};

struct SessionOptions {
  // "" for a local (in-process) session; "grpc://host:port" for a
  // distributed one.
  std::string target;
  ConfigProto config;
  Env* env = nullptr;
  RendezvousFactory rendezvous_factory;
  MemoryBudget* process_memory = nullptr;
  TlsFiles tls;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_
