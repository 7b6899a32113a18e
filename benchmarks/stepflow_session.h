// StepflowSession: a stepflow DirectSession over a RealEnv of its own, the
// way the benchmarks run stepflow through C++ (Session::Run).
//
// Create(graph, threads) makes a RealEnv of `threads` inter-op threads and
// a session on it (NewSession with default SessionOptions but the env),
// and creates the graph in it; errors are NewSession's and
// Session::Create's. The destructor closes the session (ignoring the
// status) and destroys it before the env, which it must not outlive.
//
// Ownership: owns both; `session` is null until Create has made it.
// Thread-safety: as Session's for `session`; Create and destruction by one
// thread.
#ifndef STEPFLOW_BENCHMARKS_STEPFLOW_SESSION_H_
#define STEPFLOW_BENCHMARKS_STEPFLOW_SESSION_H_

#include <memory>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"

namespace stepflow::bench {

struct StepflowSession {
  ~StepflowSession();

  absl::Status Create(const GraphDef& graph, int threads);

  std::unique_ptr<RealEnv> env;
  std::unique_ptr<Session> session;
};

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_STEPFLOW_SESSION_H_
