// RunMultiClientPlan (sim/workloads/multi_client_workload.h): executes a
// plan's ops through the C API inside one SimEnv, several clients at once,
// and checks every invariant after every op. This file drives the clients
// (ordering, parking, failures, teardown); see multi_client_runner.h for
// the other pieces.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/c/c_api_test_util.h"
#include "sim/workloads/multi_client_runner.h"

namespace stepflow {
namespace {

// What a budget failure leaves the closed sessions to unwind in.
constexpr uint64_t kTeardownEvents = 1000000;
constexpr int64_t kTeardownNanos = int64_t{3600} * 1000000000;

}  // namespace

absl::Status MultiClientRunner::Validate() {
  std::set<std::string> graphs, sessions;
  for (const SimGraph& g : plan_.graphs()) {
    if (!graphs.insert(g.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate graph ", g.name()));
    }
    if (g.num_devices() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph ", g.name(), " has no devices"));
    }
  }
  for (int i = 0; i < plan_.ops_size(); ++i) {
    const SimOp& op = plan_.ops(i);
    if (graphs.count(op.graph()) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("op #", i, " names unknown graph '", op.graph(), "'"));
    }
    if (op.client() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("op #", i, " has no client"));
    }
  }
  return absl::OkStatus();
}

bool MultiClientRunner::Exclusive(const SimOp& op) const {
  switch (op.kind()) {
    case SimOp::RUN:
    case SimOp::PRUN_SETUP:
    case SimOp::PRUN:
    case SimOp::CLOSE_SESSION:
      return graphs_.at(op.graph()).spec->kind() == SimGraph::TRAINING;
    default:
      return true;
  }
}

bool MultiClientRunner::Ready(int index) const {
  const SimOp& op = plan_.ops(index);
  const bool exclusive = Exclusive(op);
  for (int j : graph_ops_.at(op.graph())) {
    if (j >= index) break;
    if (!finished_[j] && (exclusive || Exclusive(plan_.ops(j)))) return false;
  }
  return true;
}

void MultiClientRunner::ScheduleNext(int client) {
  ClientState& c = clients_.at(client);
  if (c.next >= c.ops.size()) {
    c.done = true;
    return;
  }
  const int index = c.ops[c.next];
  sim_->loop.ScheduleAfterLabeled(
      plan_.ops(index).think_nanos(),
      absl::StrCat("client ", client, " op #", index),
      [this, client] { ClientEvent(client); });
}

void MultiClientRunner::WakeParked() {
  for (auto& [client, c] : clients_) {
    if (!c.parked || !Ready(c.ops[c.next])) continue;
    c.parked = false;
    const int index = c.ops[c.next];
    sim_->loop.ScheduleLabeled(
        absl::StrCat("client ", client, " op #", index, " (unparked)"),
        [this, client = client] { ClientEvent(client); });
  }
}

void MultiClientRunner::ClientEvent(int client) {
  if (stopped_) return;
  ClientState& c = clients_.at(client);
  const int index = c.ops[c.next];
  if (!Ready(index)) {
    c.parked = true;
    return;
  }
  result_->max_event_depth =
      std::max(result_->max_event_depth, sim_->loop.event_depth());
  absl::Status s = Execute(index);
  if (!s.ok()) {
    // A malformed plan (an op on an object it never created or already
    // deleted): stop issuing ops; Run() returns the error.
    if (plan_error_.ok()) plan_error_ = s;
    stopped_ = true;
    return;
  }
  if (stopped_) return;
  finished_[index] = true;
  ++result_->ops_run;
  ++c.next;
  AfterOp(index);
  WakeParked();
  ScheduleNext(client);
}

absl::Status MultiClientRunner::Execute(int index) {
  const SimOp& op = plan_.ops(index);
  const std::string where =
      absl::StrCat("op #", index, " (", DescribeOp(op), ")");
  TraceOpStart(index, op);
  GraphState& g = graphs_.at(op.graph());
  auto need_session = [&]() -> absl::Status {
    auto it = sessions_.find(op.session());
    if (it == sessions_.end() || it->second.deleted) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": session ", op.session(), " does not exist"));
    }
    return absl::OkStatus();
  };
  switch (op.kind()) {
    case SimOp::NEW_GRAPH:
      if (g.created) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": graph ", op.graph(), " already created"));
      }
      g.graph = TF_NewGraph();
      g.created = true;
      return absl::OkStatus();
    case SimOp::IMPORT:
      return DoImport(op, where);
    case SimOp::NEW_SESSION:
      return DoNewSession(op, where);
    case SimOp::RUN:
      return DoRun(index, op, where);
    case SimOp::PRUN_SETUP:
      return DoPRunSetup(op, where);
    case SimOp::PRUN:
      return DoPRun(index, op, where);
    case SimOp::CLOSE_SESSION: {
      absl::Status s = need_session();
      if (!s.ok()) return s;
      SessionState& session = sessions_.at(op.session());
      CStatus status;
      TF_CloseSession(session.session, status.get());
      checker_.CheckErrorCode(where, status.status());
      session.closed = true;
      return absl::OkStatus();
    }
    case SimOp::DELETE_SESSION: {
      absl::Status s = need_session();
      if (!s.ok()) return s;
      DoDeleteSession(op, where);
      return absl::OkStatus();
    }
    case SimOp::DELETE_GRAPH:
      if (!g.created || g.delete_requested) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": graph ", op.graph(), " does not exist"));
      }
      DoDeleteGraph(op, where);
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": unknown op kind"));
  }
}

void MultiClientRunner::OnFailure(const SimFailure& failure) {
  if (stopped_) return;
  stopped_ = true;
  std::string message = failure.message;
  if (message.size() > 4000) message = message.substr(0, 4000) + "...";
  checker_.Report(kInvariantLiveness, message);
  // The wait that found the failure sits inside a Session::Run whose step
  // the runtime still owns: returning to it before the step ends would let
  // it free what the executors still write. Close every session so their
  // steps are cancelled; the loop then runs the cancellations and the wait
  // unwinds normally (SimEventLoop::RunUntilNotified).
  for (auto& [name, session] : sessions_) {
    if (session.deleted || session.closed || session.session == nullptr) {
      continue;
    }
    CStatus status;
    TF_CloseSession(session.session, status.get());
    session.closed = true;
  }
  // After a budget failure the loop would stop where it is; let it run the
  // cancellations (once: the next failure finds stopped_ set).
  if (failure.kind == SimFailure::Kind::kEventBudget ||
      failure.kind == SimFailure::Kind::kTimeBudget) {
    sim_->loop.AllowTeardown(kTeardownEvents, kTeardownNanos);
  }
}

void MultiClientRunner::Teardown() {
  for (auto& [name, s] : sessions_) {
    if (s.deleted || s.session == nullptr) continue;
    CStatus status;
    TF_DeleteSession(s.session, status.get());
    s.session = nullptr;
    s.deleted = true;
    GraphState& g = graphs_.at(s.graph);
    if (--g.live_sessions == 0 && g.delete_requested) g.freed = true;
  }
  for (auto& [name, p] : pruns_) {
    if (p.handle != nullptr) TF_DeletePRunHandle(p.handle);
    p.handle = nullptr;
  }
  for (auto& [name, g] : graphs_) {
    if (!g.created || g.delete_requested) continue;
    TF_DeleteGraph(g.graph);
    g.delete_requested = true;
    if (g.live_sessions == 0) g.freed = true;
  }
}

absl::Status MultiClientRunner::Run() {
  *result_ = MultiClientWorkloadResult();
  result_->seed = plan_.seed();
  for (const SimGraph& spec : plan_.graphs()) graphs_[spec.name()].spec = &spec;
  absl::Status s = Validate();
  if (!s.ok()) return s;
  s = OpenTraceFile();
  if (!s.ok()) return s;
  SimEventLoop::Options loop_options = options_.loop;
  loop_options.allow_nested_waits = true;
  sim_ = std::make_unique<SimEnv>(plan_.seed(), loop_options);
  sim_->loop.set_recorder(&recorder_);
  sim_->loop.set_failure_handler([this](const SimFailure& f) { OnFailure(f); });

  base_live_graphs_ = TF_TestOnlyLiveGraphCount();
  finished_.assign(plan_.ops_size(), false);
  for (int i = 0; i < plan_.ops_size(); ++i) {
    const SimOp& op = plan_.ops(i);
    clients_[op.client()].ops.push_back(i);
    graph_ops_[op.graph()].push_back(i);
  }
  for (auto& [client, c] : clients_) ScheduleNext(client);
  sim_->loop.RunUntilIdle();

  if (!stopped_) {
    for (const auto& [client, c] : clients_) {
      if (!c.done) {
        checker_.Report(
            kInvariantLiveness,
            absl::StrCat("client ", client, " never got to run op #",
                         c.ops[c.next], " (",
                         DescribeOp(plan_.ops(c.ops[c.next])), ")"));
      }
    }
  }
  Teardown();
  if (!stopped_) {
    sim_->loop.RunUntilIdle();
    CheckRefcount("end of the workload");
    for (auto& [name, session] : sessions_) {
      if (session.stats != nullptr) CheckLeaks(session, "end of the workload");
    }
  }

  s = FinishTrace();
  return plan_error_.ok() ? s : plan_error_;
}

absl::Status RunMultiClientPlan(const SimWorkloadPlan& plan,
                                const MultiClientRunOptions& options,
                                MultiClientWorkloadResult* result) {
  MultiClientRunner runner(plan, options, result);
  return runner.Run();
}

std::string SummarizeResult(const MultiClientWorkloadResult& r) {
  std::vector<std::string> codes;
  for (const auto& [code, n] : r.steps_by_code) {
    codes.push_back(absl::StrCat(code, "=", n));
  }
  std::vector<std::string> violations;
  for (const InvariantViolation& v : r.violations)
    violations.push_back(v.invariant);
  return absl::StrCat(
      "seed ", r.seed, ": ops=", r.ops_run, " steps=", r.steps_run, " {",
      absl::StrJoin(codes, " "), "} calls=", r.function_calls,
      " overlapping=", r.overlapping_steps, " depth=", r.max_event_depth,
      " events=", r.events_run, " t=", r.virtual_nanos,
      "ns hash=", absl::Hex(r.trace_hash, absl::kZeroPad16),
      " violations=", r.violations.size(),
      violations.empty()
          ? ""
          : absl::StrCat(" [", absl::StrJoin(violations, ","), "]"));
}

}  // namespace stepflow
