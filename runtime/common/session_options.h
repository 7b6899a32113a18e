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

struct SessionOptions {
  // "" for a local (in-process) session; "grpc://host:port" for a
  // distributed one.
  std::string target;
  ConfigProto config;
  Env* env = nullptr;
  RendezvousFactory rendezvous_factory;
  MemoryBudget* process_memory = nullptr;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_
