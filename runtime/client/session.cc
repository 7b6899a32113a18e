#include "runtime/client/session.h"

#include "absl/strings/str_cat.h"
#include "runtime/env/real/process_env.h"

namespace stepflow {
namespace client {
namespace {

thread_local std::vector<Session*>* default_sessions = nullptr;

std::vector<Session*>& DefaultSessions() {
  if (default_sessions == nullptr)
    default_sessions = new std::vector<Session*>();
  return *default_sessions;
}

absl::Status CheckGraph(const Graph& graph, const Graph& other,
                        const std::string& what) {
  if (graph != other) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot use this session with ", what,
                     ": it belongs to a different graph than the session's"));
  }
  return absl::OkStatus();
}

// The default session for Eval()/Run(), checked against `graph`.
absl::Status DefaultFor(const Graph& graph, const std::string& what,
                        Session** session) {
  *session = Session::Default();
  if (*session == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("No default session is registered for ", what,
                     ": use Session::AsDefault() or an InteractiveSession"));
  }
  return CheckGraph((*session)->graph(), graph, what);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> Session::Create(
    const Graph& graph, const SessionOptions& options) {
  SessionOptions opts = options;
  if (opts.env == nullptr) opts.env = ProcessEnv();
  std::unique_ptr<stepflow::Session> session;
  absl::Status s = NewSession(opts, &session);
  if (!s.ok()) return s;
  return std::unique_ptr<Session>(new Session(graph, std::move(session)));
}

Session::Session(Graph graph, std::unique_ptr<stepflow::Session> session)
    : graph_(std::move(graph)), session_(std::move(session)) {}

Session::~Session() { Close().IgnoreError(); }

absl::Status Session::ExtendLocked() {
  int num_nodes = 0;
  GraphDef delta = graph_.NodesSince(nodes_sent_, &num_nodes);
  if (created_ && delta.node_size() == 0) return absl::OkStatus();
  absl::Status s = created_ ? session_->Extend(delta) : session_->Create(delta);
  if (!s.ok()) return s;
  created_ = true;
  nodes_sent_ = num_nodes;
  return absl::OkStatus();
}

absl::Status Session::Run(const FeedMap& feeds,
                          const std::vector<Output>& fetches,
                          const std::vector<Operation>& targets,
                          std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr);
}

absl::Status Session::Run(const RunOptions& run_options, const FeedMap& feeds,
                          const std::vector<Output>& fetches,
                          const std::vector<Operation>& targets,
                          std::vector<Tensor>* outputs,
                          RunMetadata* run_metadata) {
  stepflow::Session::FeedList inputs;
  for (const auto& [out, value] : feeds) {
    if (!out.valid()) {
      return absl::InvalidArgumentError("Run: a feed key is invalid");
    }
    absl::Status s = CheckGraph(graph_, out.op().graph(),
                                absl::StrCat("feed '", out.name(), "'"));
    if (!s.ok()) return s;
    inputs.emplace_back(out.name(), value);
  }
  std::vector<std::string> fetch_names, target_names;
  for (const Output& out : fetches) {
    if (!out.valid())
      return absl::InvalidArgumentError("Run: a fetch is invalid");
    absl::Status s = CheckGraph(graph_, out.op().graph(),
                                absl::StrCat("fetch '", out.name(), "'"));
    if (!s.ok()) return s;
    fetch_names.push_back(out.name());
  }
  for (const Operation& op : targets) {
    if (!op.valid())
      return absl::InvalidArgumentError("Run: a target is invalid");
    absl::Status s = CheckGraph(graph_, op.graph(),
                                absl::StrCat("target '", op.name(), "'"));
    if (!s.ok()) return s;
    target_names.push_back(op.name());
  }
  {
    absl::MutexLock l(&mu_);
    if (closed_) {
      return absl::CancelledError("Session has been closed.");
    }
    absl::Status s = ExtendLocked();
    if (!s.ok()) return s;
  }
  return session_->Run(run_options, inputs, fetch_names, target_names, outputs,
                       run_metadata);
}

absl::Status Session::Close() {
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
  }
  return session_->Close();
}

Session::DefaultGuard::DefaultGuard(Session* session) : session_(session) {
  DefaultSessions().push_back(session);
}

Session::DefaultGuard::~DefaultGuard() {
  auto& stack = DefaultSessions();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (*it == session_) {
      stack.erase(std::next(it).base());
      break;
    }
  }
}

Session* Session::Default() {
  auto& stack = DefaultSessions();
  return stack.empty() ? nullptr : stack.back();
}

InteractiveSession::InteractiveSession(const Graph& graph,
                                       const SessionOptions& options) {
  auto session = Session::Create(graph, options);
  if (!session.ok()) {
    status_ = session.status();
    return;
  }
  session_ = std::move(*session);
  guard_ = std::make_unique<Session::DefaultGuard>(session_.get());
}

InteractiveSession::~InteractiveSession() {
  guard_.reset();
  session_.reset();
}

absl::Status Operation::Run() const {
  Session* session = nullptr;
  absl::Status s =
      DefaultFor(graph_, absl::StrCat("operation '", name_, "'"), &session);
  if (!s.ok()) return s;
  std::vector<Tensor> unused;
  return session->Run({}, {}, {*this}, &unused);
}

absl::StatusOr<Tensor> Output::Eval() const {
  if (!valid())
    return absl::InvalidArgumentError("Eval: the output is invalid");
  Session* session = nullptr;
  absl::Status s =
      DefaultFor(op_.graph(), absl::StrCat("tensor '", name(), "'"), &session);
  if (!s.ok()) return s;
  std::vector<Tensor> out;
  s = session->Run({}, {*this}, {}, &out);
  if (!s.ok()) return s;
  return out[0];
}

}  // namespace client
}  // namespace stepflow
