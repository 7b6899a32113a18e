// The C++ client's sessions: a session runs a client::Graph that several
// sessions may share, extending itself with the nodes added since its last
// run (TensorFlow 1.x's tf.Session over tf.Graph), plus TF's default
// session stack and InteractiveSession.
//
//   client::Graph g;  ... build ...
//   SessionOptions opts;                 // target "" = in-process,
//   opts.target = "";                    // "grpc://host:port" = remote
//   auto a = client::Session::Create(g, opts);   // StatusOr
//   auto b = client::Session::Create(g, opts);   // shares g
//   (*a)->Run({{x, Tensor::Scalar(1.0f)}}, {y}, {}, &out);
//   {
//     auto guard = (*a)->AsDefault();
//     y.Eval();  train_op.Run();         // through the default session
//   }
//   client::InteractiveSession s(g);     // default until destroyed
//
// Lifetime (RAII): a Session closes its runtime session when destroyed;
// the graph lives while any handle (Graph, Operation, Session) refers to
// it. Close() is idempotent; Run after Close fails with Cancelled (as the
// runtime's sessions do).
//
// Env: SessionOptions.env may be null: the session then uses the
// process-wide real Env (threads, clock) the C API uses.
// Targets: "" runs in process (DirectSession); "grpc://host:port" runs on
// the cluster whose master serves there (this library links the gRPC
// session factory).
//
// Thread-safety: Run/Close are thread-safe (extension is serialised). The
// default-session stack is per thread, and a guard must be destroyed on
// the thread that made it.
#ifndef STEPFLOW_RUNTIME_CLIENT_SESSION_H_
#define STEPFLOW_RUNTIME_CLIENT_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "proto/config.pb.h"
#include "runtime/client/graph.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"

namespace stepflow {
namespace client {

using FeedMap = std::vector<std::pair<Output, Tensor>>;

class Session {
 public:
  // A session over `graph` created through the session factory
  // (options.target picks the implementation).
  static absl::StatusOr<std::unique_ptr<Session>> Create(
      const Graph& graph, const SessionOptions& options = SessionOptions());

  virtual ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Extends the runtime session with new graph nodes, then runs. Fetches
  // and targets must belong to this session's graph (InvalidArgument
  // otherwise); other errors are the runtime session's.
  absl::Status Run(const FeedMap& feeds, const std::vector<Output>& fetches,
                   const std::vector<Operation>& targets,
                   std::vector<Tensor>* outputs);
  absl::Status Run(const RunOptions& run_options, const FeedMap& feeds,
                   const std::vector<Output>& fetches,
                   const std::vector<Operation>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* run_metadata);

  absl::Status Close();

  const Graph& graph() const { return graph_; }
  // The runtime session (for APIs the client does not wrap).
  stepflow::Session* runtime_session() { return session_.get(); }

  // Makes this the calling thread's default session until the guard dies.
  class DefaultGuard {
   public:
    explicit DefaultGuard(Session* session);
    ~DefaultGuard();
    DefaultGuard(const DefaultGuard&) = delete;
    DefaultGuard& operator=(const DefaultGuard&) = delete;

   private:
    Session* const session_;
  };
  DefaultGuard AsDefault() { return DefaultGuard(this); }
  // The calling thread's default session, or null.
  static Session* Default();

 private:
  Session(Graph graph, std::unique_ptr<stepflow::Session> session);

  // Sends the nodes added since the last extension.
  absl::Status ExtendLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Graph graph_;
  absl::Mutex mu_;
  std::unique_ptr<stepflow::Session> session_;
  int nodes_sent_ ABSL_GUARDED_BY(mu_) = 0;
  bool created_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// A session that is the constructing thread's default session for its
// whole life (tf.InteractiveSession): Output::Eval() and Operation::Run()
// use it without a guard. Create it and destroy it on the same thread.
// A session that cannot be created leaves status() non-OK; then every Run
// returns that status.
class InteractiveSession {
 public:
  explicit InteractiveSession(const Graph& graph = Graph::Default(),
                              const SessionOptions& options = SessionOptions());
  ~InteractiveSession();
  InteractiveSession(const InteractiveSession&) = delete;
  InteractiveSession& operator=(const InteractiveSession&) = delete;

  const absl::Status& status() const { return status_; }
  Session* session() { return session_.get(); }

 private:
  absl::Status status_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<Session::DefaultGuard> guard_;
};

}  // namespace client
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_CLIENT_SESSION_H_
