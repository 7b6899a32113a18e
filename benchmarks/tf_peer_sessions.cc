#include "benchmarks/tf_peer_sessions.h"

#include "benchmarks/c_api_table.h"
#include "benchmarks/tf_c_api_library.h"
#include "runtime/c/c_api_extension.h"

namespace stepflow::bench {

absl::Status NewTfSession(const GraphDef& graph, int threads,
                          std::unique_ptr<CSession>* out) {
  const TensorFlowLibrary& tf = LoadTensorFlow();
  if (!tf.status.ok()) return tf.status;
  return CSession::Create(tf.api, graph, SessionConfig(threads), nullptr, out);
}

absl::Status StepflowCSession::Create(const GraphDef& graph, int threads) {
  env = RealEnv::Create(threads);
  Env* e = env->env();
  return CSession::Create(
      StepflowCApi(), graph, SessionConfig(threads),
      [e](TF_SessionOptions* opts) { SetSessionOptionsEnv(opts, e); },
      &session);
}

}  // namespace stepflow::bench
