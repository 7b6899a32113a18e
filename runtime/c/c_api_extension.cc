#include "runtime/c/c_api_extension.h"

#include <utility>

#include "runtime/c/c_api_internal.h"

namespace stepflow {

void SetSessionOptionsEnv(TF_SessionOptions* options, Env* env) {
  options->env = env;
}

void SetSessionOptionsRendezvousFactory(TF_SessionOptions* options,
                                        RendezvousFactory factory) {
  options->rendezvous_factory = std::move(factory);
}

Session* SessionFromHandle(TF_Session* session) {
  return session == nullptr ? nullptr : session->session.get();
}

}  // namespace stepflow
