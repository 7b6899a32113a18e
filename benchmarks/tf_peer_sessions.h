// The C API sessions a TensorFlow-peer row opens on a GraphDef at a thread
// count: TensorFlow's and stepflow's, both as a CSession
// (benchmarks/c_session.h) configured with SessionConfig(threads).
//
//  * NewTfSession: TensorFlow's C API (benchmarks/tf_c_api_library.h);
//    returns LoadTensorFlow()'s status when TensorFlow is unavailable.
//  * StepflowCSession: stepflow's C API, the session running on a RealEnv
//    of its own with `threads` inter-op threads (TF_SessionOptions::env).
//
// Errors are CSession::Create's. Thread-compatible.
#ifndef STEPFLOW_BENCHMARKS_TF_PEER_SESSIONS_H_
#define STEPFLOW_BENCHMARKS_TF_PEER_SESSIONS_H_

#include <memory>

#include "absl/status/status.h"
#include "benchmarks/c_session.h"
#include "proto/graph.pb.h"
#include "runtime/env/real/real_env.h"

namespace stepflow::bench {

absl::Status NewTfSession(const GraphDef& graph, int threads,
                          std::unique_ptr<CSession>* out);

// Owns the env and the session (declared after it, so destroyed first).
struct StepflowCSession {
  absl::Status Create(const GraphDef& graph, int threads);

  std::unique_ptr<RealEnv> env;
  std::unique_ptr<CSession> session;
};

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_TF_PEER_SESSIONS_H_
