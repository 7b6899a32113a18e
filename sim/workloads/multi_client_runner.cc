// RunMultiClientPlan (sim/workloads/multi_client_workload.h): executes a plan's ops through the C
// API inside one SimEnv, several clients at once, and checks every
// invariant after every op.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/config.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/common/direct_session.h"
#include "runtime/framework/tensor_id.h"
#include "sim/env/sim_env.h"
#include "sim/trace/digest.h"
#include "sim/trace/tensor_digest.h"
#include "sim/trace/traced_rendezvous.h"
#include "sim/workloads/multi_client_graphs.h"
#include "sim/workloads/multi_client_workload.h"
#include "testing/reference_eval.h"
#include "testing/reference_prune.h"

namespace stepflow {
namespace {

// The fetched values of a TF_SessionRun / TF_SessionPRun as Tensors, in
// order: int32 and float scalars by value, anything else as an empty
// Tensor (the checker reports its type). Deletes the TF_Tensors.
std::vector<Tensor> TakeScalarResults(std::vector<TF_Tensor*>* outputs) {
  std::vector<Tensor> results;
  for (TF_Tensor* t : *outputs) {
    if (t == nullptr) continue;
    const bool scalar = TF_TensorElementCount(t) == 1;
    if (scalar && TF_TensorType(t) == TF_INT32) {
      int32_t v;
      std::memcpy(&v, TF_TensorData(t), sizeof(v));
      results.push_back(Tensor::Scalar<int32_t>(v));
    } else if (scalar && TF_TensorType(t) == TF_FLOAT) {
      float v;
      std::memcpy(&v, TF_TensorData(t), sizeof(v));
      results.push_back(Tensor::Scalar<float>(v));
    } else {
      results.push_back(Tensor());
    }
    TF_DeleteTensor(t);
  }
  outputs->clear();
  return results;
}

constexpr double kTrainingTolerance = 1e-4;
// What a budget failure leaves the closed sessions to unwind in.
constexpr uint64_t kTeardownEvents = 1000000;
constexpr int64_t kTeardownNanos = int64_t{3600} * 1000000000;

std::pair<std::string, int> SplitEndpoint(const std::string& endpoint) {
  const size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos) return {endpoint, 0};
  return {endpoint.substr(0, colon), std::atoi(endpoint.c_str() + colon + 1)};
}

absl::Status FromC(const TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(TF_GetCode(s)),
                      TF_Message(s));
}

// Owns a TF_Status for one call.
class CStatus {
 public:
  CStatus() : s_(TF_NewStatus()) {}
  ~CStatus() { TF_DeleteStatus(s_); }
  CStatus(const CStatus&) = delete;
  CStatus& operator=(const CStatus&) = delete;
  TF_Status* get() { return s_; }
  absl::Status status() const { return FromC(s_); }

 private:
  TF_Status* s_;
};

class MultiClientRunner {
 public:
  MultiClientRunner(const SimWorkloadPlan& plan, const MultiClientRunOptions& options,
              MultiClientWorkloadResult* result)
      : plan_(plan),
        options_(options),
        result_(result),
        checker_(&result->violations),
        recorder_(RecorderOptions(options, &checker_)) {}

  absl::Status Run();

 private:
  struct GraphState {
    const SimGraph* spec = nullptr;
    TF_Graph* graph = nullptr;
    bool created = false;
    bool delete_requested = false;
    bool freed = false;
    int live_sessions = 0;
    GraphDef nodes;  // Everything imported, faults applied.
    std::map<std::string, TF_Operation*> ops;
  };
  struct SessionState {
    std::string name;
    std::string graph;
    TF_Session* session = nullptr;
    bool closed = false;
    bool deleted = false;
    int in_flight = 0;
    int open_pruns = 0;
    std::shared_ptr<RendezvousStats> stats;
    int64_t leaked_seen = 0;
    // Training graphs: what the variables hold.
    bool vars_known = true;
    bool vars_initialized = false;
    multi_client::SgdState sgd;
  };
  struct PRunState {
    std::string session;
    const char* handle = nullptr;
    bool failed = false;
    std::map<std::string, float> fed;
    std::set<std::string> declared_fetches;
    std::set<std::string> fetched;
    std::vector<std::string> targets;
  };
  struct ClientState {
    std::vector<int> ops;
    size_t next = 0;
    bool parked = false;
    bool done = false;
  };

  static TraceRecorder::Options RecorderOptions(const MultiClientRunOptions& options,
                                                InvariantChecker* checker) {
    TraceRecorder::Options o;
    o.keep_events = options.keep_events;
    o.observer = [checker](const TraceEvent& e) { checker->OnTraceEvent(e); };
    return o;
  }

  absl::Status Validate();
  bool Exclusive(const SimOp& op) const;
  bool Ready(int index) const;
  void ScheduleNext(int client);
  void ClientEvent(int client);
  void WakeParked();
  absl::Status Execute(int index);
  void AfterOp(int index);

  absl::Status DoImport(const SimOp& op, const std::string& where);
  absl::Status DoNewSession(const SimOp& op, const std::string& where);
  absl::Status DoRun(int index, const SimOp& op, const std::string& where);
  absl::Status DoPRunSetup(const SimOp& op, const std::string& where);
  absl::Status DoPRun(int index, const SimOp& op, const std::string& where);
  void DoDeleteSession(const SimOp& op, const std::string& where);
  void DoDeleteGraph(const SimOp& op, const std::string& where);

  // TF_Output for an endpoint of `g`; InvalidArgument if unknown.
  absl::Status Output(const GraphState& g, const std::string& endpoint,
                      TF_Output* out) const;
  void CheckLeaks(SessionState& s, const std::string& where);
  void CheckRefcount(const std::string& where);
  int64_t ExpectedLiveGraphs() const;
  StepExpectation DagExpectation(const GraphState& g,
                                 const std::map<std::string, float>& feeds,
                                 const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets,
                                 const std::string& where);
  void RecordStep(const SimOp& op, int index, const absl::Status& status,
                  const std::vector<Tensor>& outputs);
  void OnFailure(const SimFailure& failure);
  void Teardown();

  const SimWorkloadPlan& plan_;
  const MultiClientRunOptions& options_;
  MultiClientWorkloadResult* const result_;
  InvariantChecker checker_;
  TraceRecorder recorder_;  // Outlives sim_ (declared before it).
  std::unique_ptr<SimEnv> sim_;

  std::map<std::string, GraphState> graphs_;
  std::map<std::string, SessionState> sessions_;
  std::map<std::string, PRunState> pruns_;
  std::map<int, ClientState> clients_;
  // Plan indices of the ops on each graph, in plan order.
  std::map<std::string, std::vector<int>> graph_ops_;
  std::vector<bool> finished_;
  int64_t base_live_graphs_ = 0;
  int runs_waiting_ = 0;
  bool stopped_ = false;
  absl::Status plan_error_;
};

absl::Status MultiClientRunner::Validate() {
  std::set<std::string> graphs, sessions;
  for (const SimGraph& g : plan_.graphs()) {
    if (!graphs.insert(g.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate graph ", g.name()));
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
      return absl::InvalidArgumentError(absl::StrCat("op #", i, " has no client"));
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

absl::Status MultiClientRunner::Output(const GraphState& g, const std::string& endpoint,
                                 TF_Output* out) const {
  auto [node, index] = SplitEndpoint(endpoint);
  auto it = g.ops.find(node);
  if (it == g.ops.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "endpoint '", endpoint, "' names no node of graph ", g.spec->name()));
  }
  out->oper = it->second;
  out->index = index;
  return absl::OkStatus();
}

int64_t MultiClientRunner::ExpectedLiveGraphs() const {
  int64_t n = base_live_graphs_;
  for (const auto& [name, g] : graphs_) n += g.created && !g.freed ? 1 : 0;
  return n;
}

void MultiClientRunner::CheckRefcount(const std::string& where) {
  checker_.CheckRefcount(where, ExpectedLiveGraphs(), TF_TestOnlyLiveGraphCount());
}

void MultiClientRunner::CheckLeaks(SessionState& s, const std::string& where) {
  LeakSnapshot snap;
  snap.live_rendezvous = s.stats->live;
  snap.pending_recvs = s.stats->pending_recvs;
  snap.leaked_rendezvous_entries = s.stats->leaked_entries - s.leaked_seen;
  s.leaked_seen = s.stats->leaked_entries;
  if (!s.deleted && s.session != nullptr) {
    auto* ds = dynamic_cast<DirectSession*>(s.session->session.get());
    if (ds != nullptr) {
      for (Device* d : ds->device_mgr()->ListDevices()) {
        for (const std::string& c : d->resource_manager()->Containers()) {
          if (absl::StartsWith(c, "__per_step_")) snap.step_containers.push_back(c);
        }
      }
      snap.cancellation_registrations =
          static_cast<int64_t>(ds->num_cancellation_registrations());
      snap.partial_runs = static_cast<int64_t>(ds->num_partial_runs());
    }
  }
  checker_.CheckLeaks(absl::StrCat(where, " [session ", s.name, "]"), snap);
}

void MultiClientRunner::AfterOp(int index) {
  const SimOp& op = plan_.ops(index);
  const std::string where = absl::StrCat("op #", index, " (", DescribeOp(op), ")");
  CheckRefcount(where);
  if (op.session().empty()) return;
  auto it = sessions_.find(op.session());
  if (it == sessions_.end()) return;
  SessionState& s = it->second;
  if (s.in_flight == 0 && s.open_pruns == 0 && s.stats != nullptr) {
    CheckLeaks(s, where);
  }
}

void MultiClientRunner::RecordStep(const SimOp& op, int index,
                             const absl::Status& status,
                             const std::vector<Tensor>& outputs) {
  ++result_->steps_run;
  if (status.ok()) ++result_->steps_ok;
  ++result_->steps_by_code[absl::StatusCodeToString(status.code())];
  Fnv64 digest;
  for (const Tensor& t : outputs) HashTensorInto(t, &digest);
  sim_->loop.Trace(SIM_STEP_DONE, absl::StrCat("client", op.client()),
                   {{"op", absl::StrCat(index)},
                    {"session", op.session()},
                    {"status", absl::StatusCodeToString(status.code())}},
                   status.ok() ? digest.value() : 0);
}

StepExpectation MultiClientRunner::DagExpectation(
    const GraphState& g, const std::map<std::string, float>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, const std::string& where) {
  StepExpectation e;
  graph_testing::ReferenceOutcome ref;
  absl::Status s =
      graph_testing::ReferenceEvaluate(g.nodes, feeds, fetches, targets, &ref);
  if (!s.ok()) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": the reference cannot evaluate the "
                                        "request: ",
                                 s.ToString()));
    e.error_codes = {absl::StatusCode::kInvalidArgument,
                     absl::StatusCode::kNotFound};
    return e;
  }
  e.error_codes = ref.error_codes;
  e.must_fail = !ref.error_codes.empty();
  e.check_values = ref.error_codes.empty();
  for (float v : ref.values) e.values.push_back(v);
  return e;
}

absl::Status MultiClientRunner::DoImport(const SimOp& op, const std::string& where) {
  GraphState& g = graphs_.at(op.graph());
  if (!g.created || g.delete_requested) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": graph ", op.graph(), " does not exist"));
  }
  GraphDef applied = op.graph_def();
  absl::Status s = multi_client::ApplyFaults(op.faults(), &applied);
  if (!s.ok()) return s;
  std::string bytes;
  applied.SerializeToString(&bytes);
  TF_Buffer* buffer = TF_NewBufferFromString(bytes.data(), bytes.size());
  CStatus status;
  TF_GraphImportGraphDef(g.graph, buffer, nullptr, status.get());
  TF_DeleteBuffer(buffer);
  checker_.CheckErrorCode(where, status.status());
  if (!status.status().ok()) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": importing a valid graph failed: ",
                                 status.status().ToString()));
    return absl::OkStatus();
  }
  for (const NodeDef& n : applied.node()) {
    *g.nodes.add_node() = n;
    TF_Operation* oper = TF_GraphOperationByName(g.graph, n.name().c_str());
    if (oper == nullptr) {
      checker_.Report(kInvariantValues,
                      absl::StrCat(where, ": imported node ", n.name(),
                                   " is not in the graph"));
      continue;
    }
    g.ops[n.name()] = oper;
  }
  for (const SimFault& f : op.faults()) {
    if (f.kind() == SimFault::FAILING_KERNEL) {
      checker_.AllowErrorCode(static_cast<absl::StatusCode>(f.code()));
    }
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoNewSession(const SimOp& op, const std::string& where) {
  GraphState& g = graphs_.at(op.graph());
  if (!g.created || g.delete_requested || sessions_.count(op.session()) > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": graph ", op.graph(), " is gone or session ", op.session(),
        " exists"));
  }
  SessionState& s = sessions_[op.session()];
  s.name = op.session();
  s.graph = op.graph();
  s.stats = std::make_shared<RendezvousStats>();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  (*opts->config.mutable_device_count())["CPU"] = g.spec->num_devices();
  opts->env = &sim_->env;
  opts->rendezvous_factory =
      NewTracedRendezvousFactory(&sim_->loop, s.name, s.stats);
  CStatus status;
  s.session = TF_NewSession(g.graph, opts, status.get());
  TF_DeleteSessionOptions(opts);
  checker_.CheckErrorCode(where, status.status());
  if (s.session == nullptr) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": TF_NewSession failed: ",
                                 status.status().ToString()));
    s.deleted = true;
    return absl::OkStatus();
  }
  ++g.live_sessions;
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoRun(int index, const SimOp& op,
                                const std::string& where) {
  auto sit = sessions_.find(op.session());
  if (sit == sessions_.end() || sit->second.deleted) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": session ", op.session(), " does not exist"));
  }
  SessionState& s = sit->second;
  GraphState& g = graphs_.at(s.graph);
  const SimGraph::Kind kind = g.spec->kind();

  std::vector<TF_Output> inputs, outputs;
  std::vector<TF_Tensor*> input_values;
  std::vector<const TF_Operation*> targets;
  std::map<std::string, float> float_feeds;
  int32_t fed_n = -1;
  // Resolve every endpoint before allocating anything.
  for (const std::string& f : op.fetches()) {
    TF_Output out;
    absl::Status st = Output(g, f, &out);
    if (!st.ok()) return st;
    outputs.push_back(out);
  }
  for (const std::string& t : op.targets()) {
    TF_Output out;
    absl::Status st = Output(g, t, &out);
    if (!st.ok()) return st;
    targets.push_back(out.oper);
  }
  for (const SimFeed& f : op.feeds()) {
    TF_Output out;
    absl::Status st = Output(g, f.name(), &out);
    if (!st.ok()) return st;
    inputs.push_back(out);
  }
  for (const SimFeed& f : op.feeds()) {
    const bool is_int = f.dtype() == DT_INT32;
    TF_Tensor* t = TF_AllocateTensor(is_int ? TF_INT32 : TF_FLOAT, nullptr, 0, 4);
    if (is_int) {
      const int32_t v = f.int_value();
      std::memcpy(TF_TensorData(t), &v, 4);
      fed_n = v;
    } else {
      const float v = f.float_value();
      std::memcpy(TF_TensorData(t), &v, 4);
      float_feeds[f.name()] = v;
    }
    input_values.push_back(t);
  }
  RunOptions run_options;
  run_options.set_timeout_in_ms(op.timeout_ms());
  run_options.set_output_partition_graphs(op.output_partition_graphs());
  std::string options_bytes;
  run_options.SerializeToString(&options_bytes);
  TF_Buffer* options_buffer =
      TF_NewBufferFromString(options_bytes.data(), options_bytes.size());
  TF_Buffer* metadata_buffer =
      op.output_partition_graphs() ? TF_NewBuffer() : nullptr;
  std::vector<TF_Tensor*> output_values(outputs.size(), nullptr);

  const bool closed_at_start = s.closed;
  if (runs_waiting_ > 0) ++result_->overlapping_steps;
  ++runs_waiting_;
  ++s.in_flight;
  CStatus status;
  {
    SimEventLoop::ScopedWaitLabel label(&sim_->loop, where);
    TF_SessionRun(s.session, options_buffer, inputs.data(), input_values.data(),
                  static_cast<int>(inputs.size()), outputs.data(),
                  output_values.data(), static_cast<int>(outputs.size()),
                  targets.data(), static_cast<int>(targets.size()),
                  metadata_buffer, status.get());
  }
  --s.in_flight;
  --runs_waiting_;
  const absl::Status run_status = status.status();

  std::vector<Tensor> results = TakeScalarResults(&output_values);
  for (TF_Tensor* t : input_values) TF_DeleteTensor(t);
  TF_DeleteBuffer(options_buffer);
  RunMetadata metadata;
  if (metadata_buffer != nullptr) {
    if (metadata_buffer->data != nullptr) {
      metadata.ParseFromArray(metadata_buffer->data,
                              static_cast<int>(metadata_buffer->length));
    }
    TF_DeleteBuffer(metadata_buffer);
  }
  RecordStep(op, index, run_status, results);
  checker_.CheckErrorCode(where, run_status);
  if (closed_at_start) {
    checker_.CheckClosedSessionStep(where, run_status);
    return absl::OkStatus();
  }

  StepExpectation expect;
  std::vector<std::string> fetches(op.fetches().begin(), op.fetches().end());
  std::vector<std::string> target_names(op.targets().begin(), op.targets().end());
  switch (kind) {
    case SimGraph::DAG:
      expect = DagExpectation(g, float_feeds, fetches, target_names, where);
      break;
    case SimGraph::COUNTER_LOOP:
    case SimGraph::SUM_LOOP:
    case SimGraph::NESTED_LOOP:
      if (kind != SimGraph::NESTED_LOOP && fed_n < 0) {
        expect.error_codes = {absl::StatusCode::kInvalidArgument};
        expect.must_fail = true;
        break;
      }
      expect.check_values = true;
      for (const std::string& f : fetches) {
        int64_t v = 0;
        if (!multi_client::LoopReference(*g.spec, fed_n, f, &v)) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, ": no reference for fetch ", f));
        }
        expect.values.push_back(static_cast<double>(v));
      }
      break;
    default: {  // TRAINING
      const bool known = s.vars_known;
      const bool init = s.vars_initialized;
      if (op.purpose() == "init") {
        expect.check_values = true;
      } else if (!known) {
        expect.error_codes = {absl::StatusCode::kFailedPrecondition};
      } else if (!init) {
        expect.error_codes = {absl::StatusCode::kFailedPrecondition};
        expect.must_fail = true;
      } else {
        expect.check_values = true;
        if (op.purpose() == "read") {
          expect.values = {s.sgd.w, s.sgd.b};
          expect.tolerance = kTrainingTolerance;
        }
      }
      break;
    }
  }
  expect.timeout_set = op.timeout_ms() > 0;
  expect.closed_during_step = s.closed;
  checker_.CheckStep(where, expect, run_status, results);

  if (kind == SimGraph::TRAINING) {
    if (op.purpose() == "init") {
      if (run_status.ok()) {
        s.vars_known = true;
        s.vars_initialized = true;
        s.sgd = multi_client::SgdState();
      } else {
        s.vars_known = false;
      }
    } else if (op.purpose() == "train") {
      if (run_status.ok()) {
        if (s.vars_known) multi_client::SgdStep(*g.spec, &s.sgd);
      } else if (!absl::IsFailedPrecondition(run_status)) {
        s.vars_known = false;  // Possibly half applied.
      }
    }
  }

  if (run_status.ok() && op.output_partition_graphs()) {
    std::vector<std::string> feeds;
    for (const SimFeed& f : op.feeds())
      feeds.push_back(CanonicalTensorName(f.name()));
    std::sort(feeds.begin(), feeds.end());
    std::vector<std::string> canonical_fetches;
    for (const std::string& f : fetches)
      canonical_fetches.push_back(CanonicalTensorName(f));
    const std::set<std::string> expected = graph_testing::ReferencePrunedNodeNames(
        g.nodes, feeds, SortedUnique(canonical_fetches), SortedUnique(target_names),
        /*use_function_convention=*/true);
    std::vector<GraphDef> partitions(metadata.partition_graphs().begin(),
                                     metadata.partition_graphs().end());
    checker_.CheckPruning(where, expected, partitions);
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoPRunSetup(const SimOp& op, const std::string& where) {
  auto sit = sessions_.find(op.session());
  if (sit == sessions_.end() || sit->second.deleted ||
      pruns_.count(op.prun()) > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": session ", op.session(), " is gone or ", op.prun(), " exists"));
  }
  SessionState& s = sit->second;
  GraphState& g = graphs_.at(s.graph);
  PRunState& p = pruns_[op.prun()];
  p.session = s.name;
  std::vector<TF_Output> inputs, outputs;
  std::vector<const TF_Operation*> targets;
  for (const SimFeed& f : op.feeds()) {
    TF_Output out;
    absl::Status st = Output(g, f.name(), &out);
    if (!st.ok()) return st;
    inputs.push_back(out);
  }
  for (const std::string& f : op.fetches()) {
    TF_Output out;
    absl::Status st = Output(g, f, &out);
    if (!st.ok()) return st;
    outputs.push_back(out);
    p.declared_fetches.insert(CanonicalTensorName(f));
  }
  for (const std::string& t : op.targets()) {
    TF_Output out;
    absl::Status st = Output(g, t, &out);
    if (!st.ok()) return st;
    targets.push_back(out.oper);
    p.targets.push_back(t);
  }
  const bool closed_at_start = s.closed;
  CStatus status;
  TF_SessionPRunSetup(s.session, inputs.data(), static_cast<int>(inputs.size()),
                      outputs.data(), static_cast<int>(outputs.size()),
                      targets.data(), static_cast<int>(targets.size()),
                      &p.handle, status.get());
  const absl::Status setup_status = status.status();
  checker_.CheckErrorCode(where, setup_status);
  if (closed_at_start) {
    checker_.CheckClosedSessionStep(where, setup_status);
  } else if (!setup_status.ok()) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": partial run setup failed: ",
                                 setup_status.ToString()));
  }
  if (setup_status.ok()) {
    ++s.open_pruns;
  } else {
    p.failed = true;
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoPRun(int index, const SimOp& op,
                                 const std::string& where) {
  auto pit = pruns_.find(op.prun());
  auto sit = sessions_.find(op.session());
  if (pit == pruns_.end() || sit == sessions_.end() || sit->second.deleted) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": partial run ", op.prun(), " or its session is gone"));
  }
  PRunState& p = pit->second;
  SessionState& s = sit->second;
  GraphState& g = graphs_.at(s.graph);
  if (p.handle == nullptr) return absl::OkStatus();  // Setup failed: nothing to do.

  std::vector<TF_Output> inputs, outputs;
  std::vector<TF_Tensor*> input_values;
  for (const SimFeed& f : op.feeds()) {
    TF_Output out;
    absl::Status st = Output(g, f.name(), &out);
    if (!st.ok()) return st;
    inputs.push_back(out);
  }
  for (const std::string& f : op.fetches()) {
    TF_Output out;
    absl::Status st = Output(g, f, &out);
    if (!st.ok()) return st;
    outputs.push_back(out);
  }
  for (const SimFeed& f : op.feeds()) {
    TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, nullptr, 0, 4);
    const float v = f.float_value();
    std::memcpy(TF_TensorData(t), &v, 4);
    input_values.push_back(t);
  }
  std::vector<TF_Tensor*> output_values(outputs.size(), nullptr);
  const bool closed_at_start = s.closed;
  const bool failed_before = p.failed;
  if (runs_waiting_ > 0) ++result_->overlapping_steps;
  ++runs_waiting_;
  ++s.in_flight;
  CStatus status;
  {
    SimEventLoop::ScopedWaitLabel label(&sim_->loop, where);
    TF_SessionPRun(s.session, p.handle, inputs.data(), input_values.data(),
                   static_cast<int>(inputs.size()), outputs.data(),
                   output_values.data(), static_cast<int>(outputs.size()),
                   nullptr, 0, status.get());
  }
  --s.in_flight;
  --runs_waiting_;
  const absl::Status run_status = status.status();
  std::vector<Tensor> results = TakeScalarResults(&output_values);
  for (TF_Tensor* t : input_values) TF_DeleteTensor(t);
  for (const SimFeed& f : op.feeds()) p.fed[f.name()] = f.float_value();
  RecordStep(op, index, run_status, results);
  checker_.CheckErrorCode(where, run_status);

  if (closed_at_start) {
    checker_.CheckClosedSessionStep(where, run_status);
  } else {
    StepExpectation expect;
    if (failed_before) {
      // The first error freed the partial run: its handle is unknown now.
      expect.error_codes = {absl::StatusCode::kInvalidArgument};
      expect.must_fail = true;
    } else {
      std::vector<std::string> all_fetches(p.declared_fetches.begin(),
                                           p.declared_fetches.end());
      const StepExpectation whole =
          DagExpectation(g, p.fed, all_fetches, p.targets, where);
      std::vector<std::string> fetches(op.fetches().begin(), op.fetches().end());
      expect = DagExpectation(g, p.fed, fetches, {}, where);
      // Another part of the step may fail first (or not yet).
      expect.error_codes.insert(whole.error_codes.begin(), whole.error_codes.end());
      expect.must_fail = !expect.check_values;
    }
    expect.closed_during_step = s.closed;
    checker_.CheckStep(where, expect, run_status, results);
  }

  if (!run_status.ok()) {
    if (!p.failed && !s.closed) --s.open_pruns;  // The session freed it.
    p.failed = true;
  } else {
    for (const std::string& f : op.fetches())
      p.fetched.insert(CanonicalTensorName(f));
    if (p.fetched == p.declared_fetches && !p.failed) --s.open_pruns;
  }
  return absl::OkStatus();
}

void MultiClientRunner::DoDeleteSession(const SimOp& op, const std::string& where) {
  SessionState& s = sessions_.at(op.session());
  GraphState& g = graphs_.at(s.graph);
  CStatus status;
  TF_DeleteSession(s.session, status.get());
  checker_.CheckErrorCode(where, status.status());
  s.session = nullptr;
  s.deleted = true;
  for (auto& [name, p] : pruns_) {
    if (p.session == s.name && p.handle != nullptr) {
      TF_DeletePRunHandle(p.handle);
      p.handle = nullptr;
    }
  }
  if (--g.live_sessions == 0 && g.delete_requested) g.freed = true;
  // Everything the session had must be gone now.
  s.open_pruns = 0;
  CheckLeaks(s, where);
}

void MultiClientRunner::DoDeleteGraph(const SimOp& op, const std::string& where) {
  GraphState& g = graphs_.at(op.graph());
  (void)where;
  TF_DeleteGraph(g.graph);
  g.delete_requested = true;
  if (g.live_sessions == 0) g.freed = true;
}

absl::Status MultiClientRunner::Execute(int index) {
  const SimOp& op = plan_.ops(index);
  const std::string where = absl::StrCat("op #", index, " (", DescribeOp(op), ")");
  sim_->loop.Trace(SIM_STEP_START, absl::StrCat("client", op.client()),
                   {{"op", absl::StrCat(index)},
                    {"kind", SimOp::Kind_Name(op.kind())},
                    {"session", op.session()},
                    {"graph", op.graph()}});
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
      return absl::InvalidArgumentError(absl::StrCat(where, ": unknown op kind"));
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
  if (!options_.trace_path.empty()) {
    TraceHeader header;
    header.seed = plan_.seed();
    header.workload = "multi-client C API workload";
    header.params = {{"ops", absl::StrCat(plan_.ops_size())},
                     {"clients", absl::StrCat(plan_.num_clients())}};
    s = recorder_.OpenFile(options_.trace_path, header);
    if (!s.ok()) return s;
  }
  SimEventLoop::Options loop_options = options_.loop;
  loop_options.allow_nested_waits = true;
  sim_ = std::make_unique<SimEnv>(plan_.seed(), loop_options);
  sim_->loop.set_recorder(&recorder_);
  sim_->loop.set_failure_handler(
      [this](const SimFailure& f) { OnFailure(f); });

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
                         c.ops[c.next], " (", DescribeOp(plan_.ops(c.ops[c.next])),
                         ")"));
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

  result_->checks = checker_.checks();
  result_->events_run = sim_->loop.events_run();
  result_->virtual_nanos = sim_->loop.NowNanos();
  sim_->loop.set_recorder(nullptr);
  sim_.reset();
  result_->trace_hash = recorder_.hash();
  result_->trace_events = recorder_.event_count();
  if (options_.keep_events) result_->events = recorder_.events();
  s = recorder_.Close();
  return plan_error_.ok() ? s : plan_error_;
}

}  // namespace

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
  for (const InvariantViolation& v : r.violations) violations.push_back(v.invariant);
  return absl::StrCat(
      "seed ", r.seed, ": ops=", r.ops_run, " steps=", r.steps_run, " {",
      absl::StrJoin(codes, " "), "} overlapping=", r.overlapping_steps,
      " depth=", r.max_event_depth, " events=", r.events_run,
      " t=", r.virtual_nanos, "ns hash=", absl::Hex(r.trace_hash, absl::kZeroPad16),
      " violations=", r.violations.size(),
      violations.empty() ? "" : absl::StrCat(" [", absl::StrJoin(violations, ","), "]"));
}

}  // namespace stepflow
