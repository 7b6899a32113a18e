#include "benchmarks/stepflow_session.h"

namespace stepflow::bench {

absl::Status StepflowSession::Create(const GraphDef& graph, int threads) {
  env = RealEnv::Create(threads);
  SessionOptions options;
  options.env = env->env();
  absl::Status s = NewSession(options, &session);
  if (s.ok()) s = session->Create(graph);
  return s;
}

StepflowSession::~StepflowSession() {
  if (session != nullptr) session->Close().IgnoreError();
  session.reset();
  env.reset();
}

}  // namespace stepflow::bench
