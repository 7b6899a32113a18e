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
#ifndef STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_
#define STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "proto/config.pb.h"
#include "runtime/env/env.h"

namespace stepflow {

class Rendezvous;  // runtime/framework/rendezvous.h

using RendezvousFactory = std::function<Rendezvous*(int64_t step_id)>;

struct SessionOptions {
  // "" for a local (in-process) session; "grpc://host:port" for a
  // distributed one.
  std::string target;
  ConfigProto config;
  Env* env = nullptr;
  RendezvousFactory rendezvous_factory;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_SESSION_OPTIONS_H_
