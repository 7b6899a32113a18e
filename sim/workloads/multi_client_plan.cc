// GenerateMultiClientPlan and DescribePlan
// (sim/workloads/multi_client_workload.h).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/tensor_id.h"
#include "sim/env/sim_random.h"
#include "sim/workloads/multi_client_graphs.h"
#include "sim/workloads/multi_client_workload.h"
#include "testing/graph_generators.h"

namespace stepflow {
namespace {

using graph_testing::ExecutionRequest;

std::string NodeOf(const std::string& endpoint) {
  const size_t colon = endpoint.rfind(':');
  return colon == std::string::npos ? endpoint : endpoint.substr(0, colon);
}

class PlanGenerator {
 public:
  PlanGenerator(uint64_t seed, const MultiClientWorkloadOptions& options,
                SimWorkloadPlan* plan)
      : options_(options),
        sim_random_(seed),
        r_(sim_random_.Stream("workload")),
        plan_(plan) {
    plan_->Clear();
    plan_->set_seed(seed);
  }

  absl::Status Generate();

 private:
  struct GraphModel {
    SimGraph spec;
    GraphDef nodes;  // Everything imported so far, faults applied.
    bool deleted = false;
    int num_extensions = 0;
    int live_sessions = 0;
  };
  struct SessionModel {
    std::string graph;
    bool closed = false;
    bool deleted = false;
  };
  struct PRunModel {
    std::string name;
    std::string session;
    std::vector<SimFeed> feeds;
    std::vector<std::string> fetches;
    int stage = 0;  // PRUN calls made.
  };

  // Uniform in [lo, hi].
  int Range(int lo, int hi) {
    if (hi <= lo) return lo;
    return lo +
           static_cast<int>(r_->Uniform(static_cast<uint64_t>(hi - lo + 1)));
  }
  int64_t Range64(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(
                    r_->Uniform(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool Chance(int percent) {
    return static_cast<int>(r_->Uniform(100)) < percent;
  }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[r_->Uniform(v.size())];
  }
  float QuarterValue() { return static_cast<float>(Range(-16, 16)) / 4.0f; }

  SimOp* NewOp(int client, SimOp::Kind kind, const std::string& graph,
               int64_t max_think) {
    SimOp* op = plan_->add_ops();
    op->set_kind(kind);
    op->set_client(client);
    op->set_graph(graph);
    op->set_think_nanos(Range64(0, max_think));
    return op;
  }

  std::vector<std::string> LiveGraphs(bool dag_only) const {
    std::vector<std::string> out;
    for (const auto& [name, g] : graphs_) {
      if (!g.deleted && (!dag_only || g.spec.kind() == SimGraph::DAG)) {
        out.push_back(name);
      }
    }
    return out;
  }
  std::vector<std::string> LiveSessions(bool open_only, bool dag_only) const {
    std::vector<std::string> out;
    for (const auto& [name, s] : sessions_) {
      if (s.deleted || (open_only && s.closed)) continue;
      if (dag_only && graphs_.at(s.graph).spec.kind() != SimGraph::DAG)
        continue;
      out.push_back(name);
    }
    return out;
  }

  void AddGraph(int client);
  void AddImport(int client, const std::string& graph, GraphDef nodes);
  void AddSession(int client, const std::string& graph);
  void AddRun(int client, const std::string& session);
  void AddPRunSetup(int client, const std::string& session);
  void ContinuePRun(int client);
  // Adds the client's next op: the next call of its open partial run, else
  // an op drawn by weight among those the plan's state allows.
  void AddOp(int client);
  // What AddOp may pick from, by kind of op.
  struct Candidates {
    std::vector<std::string> live_graphs;
    std::vector<std::string> dag_graphs;
    std::vector<std::string> open_sessions;
    std::vector<std::string> open_dag_sessions;
    std::vector<std::string> closed_sessions;
    // Sessions that no client's open partial run uses.
    std::vector<std::string> deletable;
  };
  enum Choice {
    kRun,
    kClosedRun,
    kPRun,
    kImport,
    kSession,
    kClose,
    kDeleteSession,
    kDeleteGraph,
    kNewGraph,
  };
  Candidates CurrentCandidates() const;
  // Draws an op kind by weight; false when nothing is possible (no draw).
  bool DrawChoice(const Candidates& c, Choice* choice);
  void AddChoice(int client, Choice choice, const Candidates& c);
  void AddExtension(int client, const std::string& graph);
  void AddClose(int client, const std::string& session);
  void AddDeleteSession(int client, const std::string& session);
  void AddDeleteGraph(int client, const std::string& graph);
  int64_t DrawTimeout() {
    if (!Chance(options_.timeout_percent)) return 0;
    static const int64_t kTimeouts[] = {1, 2, 3, 5, 10, 50};
    return kTimeouts[r_->Uniform(6)];
  }
  void AddDagRequest(const GraphModel& g, bool feed_all_placeholders,
                     SimOp* op);

  const MultiClientWorkloadOptions options_;
  SimRandom sim_random_;
  Random* const r_;
  SimWorkloadPlan* const plan_;
  int num_clients_ = 0;
  int next_graph_ = 0;
  int next_session_ = 0;
  int next_prun_ = 0;
  std::map<std::string, GraphModel> graphs_;
  std::map<std::string, SessionModel> sessions_;
  std::map<int, PRunModel> open_pruns_;  // By client.
};

void PlanGenerator::AddImport(int client, const std::string& graph,
                              GraphDef nodes) {
  GraphModel& g = graphs_.at(graph);
  SimOp* op = NewOp(client, SimOp::IMPORT, graph, options_.max_think_nanos / 4);
  // Faults on nodes of this import.
  std::vector<std::string> candidates;
  for (const NodeDef& n : nodes.node()) {
    const bool float_output =
        graph_testing::HasFloatOutput(n) &&
        (n.op() == "Const" || n.op() == "Placeholder" || n.op() == "Identity" ||
         n.op() == "Add" || n.op() == "AddV2" || n.op() == "Mul");
    if (g.spec.kind() == SimGraph::DAG && float_output) {
      candidates.push_back(n.name());
    }
  }
  if (g.spec.kind() == SimGraph::TRAINING) candidates = {"grad_w"};
  std::set<std::string> faulted;
  if (!candidates.empty() && Chance(options_.slow_kernel_percent)) {
    SimFault* f = op->add_faults();
    f->set_kind(SimFault::SLOW_KERNEL);
    f->set_node(Pick(candidates));
    f->set_delay_nanos(
        Range64(options_.min_slow_nanos, options_.max_slow_nanos));
    faulted.insert(f->node());
  }
  if (g.spec.kind() == SimGraph::DAG && !candidates.empty() &&
      Chance(options_.failing_kernel_percent)) {
    const std::string node = Pick(candidates);
    if (faulted.count(node) == 0) {
      static const absl::StatusCode kCodes[] = {
          absl::StatusCode::kAborted, absl::StatusCode::kUnavailable,
          absl::StatusCode::kResourceExhausted};
      SimFault* f = op->add_faults();
      f->set_kind(SimFault::FAILING_KERNEL);
      f->set_node(node);
      f->set_code(static_cast<int32_t>(kCodes[r_->Uniform(3)]));
    }
  }
  *op->mutable_graph_def() = nodes;
  GraphDef applied = nodes;
  // Only unknown nodes fail, and the faults name nodes of `nodes`.
  multi_client::ApplyFaults(op->faults(), &applied).IgnoreError();
  for (const NodeDef& n : applied.node()) *g.nodes.add_node() = n;
  g.nodes.mutable_library()->MergeFrom(applied.library());
}

void PlanGenerator::AddGraph(int client) {
  const std::string name = absl::StrCat("g", next_graph_++);
  GraphModel& g = graphs_[name];
  SimGraph& spec = g.spec;
  spec.set_name(name);
  static const SimGraph::Kind kKinds[] = {
      SimGraph::DAG,         SimGraph::DAG,          SimGraph::DAG,
      SimGraph::DAG,         SimGraph::COUNTER_LOOP, SimGraph::SUM_LOOP,
      SimGraph::NESTED_LOOP, SimGraph::TRAINING,     SimGraph::TRAINING};
  spec.set_kind(kKinds[r_->Uniform(9)]);
  GraphDef nodes;
  switch (spec.kind()) {
    case SimGraph::DAG: {
      graph_testing::DagOptions dag;
      dag.min_nodes = 2;
      dag.max_nodes = std::max(2, options_.max_dag_nodes);
      dag.min_devices = 1;
      dag.max_devices = 3;
      dag.function_call_weight = options_.function_call_weight;
      // TF_GraphImportGraphDef refuses a node whose op is a library
      // function (Unimplemented); functions still call each other by name.
      dag.calls_by_name = false;
      rc::Random random(r_->New64());
      graph_testing::RandomDag d =
          graph_testing::GenRandomDag(dag)(random, rc::kNominalSize).value();
      spec.set_num_devices(d.num_devices);
      nodes = d.graph;
      nodes.mutable_versions()->set_producer(multi_client::kGraphProducer);
      break;
    }
    case SimGraph::COUNTER_LOOP:
    case SimGraph::SUM_LOOP:
    case SimGraph::NESTED_LOOP:
      spec.set_num_devices(Range(1, 2));
      if (spec.kind() == SimGraph::NESTED_LOOP) {
        spec.set_outer_trips(Range(0, 4));
        spec.set_inner_trips(Range(0, 4));
      }
      nodes = multi_client::BuildLoopGraph(spec, r_);
      break;
    default: {
      spec.set_num_devices(Range(1, 2));
      const float slope = static_cast<float>(Range(-8, 8)) / 8.0f;
      const float offset = static_cast<float>(Range(-8, 8)) / 8.0f;
      for (int i = 0; i < 4; ++i) {
        const float x = static_cast<float>(Range(-4, 4)) / 4.0f;
        spec.add_batch_x(x);
        spec.add_batch_y(slope * x + offset);
      }
      static const float kRates[] = {0.05f, 0.1f, 0.2f};
      spec.set_learning_rate(kRates[r_->Uniform(3)]);
      nodes = multi_client::BuildTrainingGraph(spec, r_);
      break;
    }
  }
  *plan_->add_graphs() = spec;
  NewOp(client, SimOp::NEW_GRAPH, name, options_.max_think_nanos / 4);
  AddImport(client, name, std::move(nodes));
  const int sessions = Range(1, 2);
  for (int i = 0; i < sessions; ++i) AddSession(client, name);
}

void PlanGenerator::AddSession(int client, const std::string& graph) {
  const std::string name = absl::StrCat("s", next_session_++);
  SimOp* op =
      NewOp(client, SimOp::NEW_SESSION, graph, options_.max_think_nanos / 4);
  op->set_session(name);
  sessions_[name].graph = graph;
  ++graphs_.at(graph).live_sessions;
}

void PlanGenerator::AddDagRequest(const GraphModel& g,
                                  bool feed_all_placeholders, SimOp* op) {
  rc::Random random(r_->New64());
  ExecutionRequest req =
      graph_testing::GenExecutionRequest(g.nodes)(random, rc::kNominalSize)
          .value();
  std::set<std::string> fed_nodes, fetched_nodes;
  for (const std::string& f : req.feeds) fed_nodes.insert(NodeOf(f));
  for (const std::string& f : req.fetches) fetched_nodes.insert(NodeOf(f));
  if (feed_all_placeholders) {
    for (const NodeDef& n : g.nodes.node()) {
      if (n.op() == "Placeholder" && fed_nodes.count(n.name()) == 0 &&
          fetched_nodes.count(n.name()) == 0) {
        req.feeds.push_back(n.name());
        fed_nodes.insert(n.name());
      }
    }
  }
  for (const std::string& f : req.feeds) {
    SimFeed* feed = op->add_feeds();
    feed->set_name(f);
    feed->set_dtype(DT_FLOAT);
    feed->set_float_value(QuarterValue());
  }
  for (const std::string& f : req.fetches) op->add_fetches(f);
  for (const std::string& t : req.targets) op->add_targets(t);
}

void PlanGenerator::AddRun(int client, const std::string& session) {
  const SessionModel& s = sessions_.at(session);
  const GraphModel& g = graphs_.at(s.graph);
  SimOp* op = NewOp(client, SimOp::RUN, s.graph, options_.max_think_nanos);
  op->set_session(session);
  op->set_on_closed_session(s.closed);
  op->set_timeout_ms(DrawTimeout());
  switch (g.spec.kind()) {
    case SimGraph::DAG:
      AddDagRequest(g, Chance(75), op);
      op->set_output_partition_graphs(Chance(50));
      break;
    case SimGraph::COUNTER_LOOP:
    case SimGraph::SUM_LOOP:
    case SimGraph::NESTED_LOOP: {
      if (g.spec.kind() != SimGraph::NESTED_LOOP && !Chance(8)) {
        SimFeed* n = op->add_feeds();
        n->set_name(Chance(50) ? "n" : "n:0");
        n->set_dtype(DT_INT32);
        n->set_int_value(Range(0, 12));
      }
      if (g.spec.kind() == SimGraph::COUNTER_LOOP) {
        op->add_fetches("while/Exit");
      } else {
        const int which = Range(0, 2);
        if (which != 1) op->add_fetches("while/Exit_1");
        if (which != 0)
          op->add_fetches(Chance(50) ? "while/Exit" : "while/Exit:0");
      }
      op->set_output_partition_graphs(Chance(50));
      break;
    }
    default: {
      const int purpose = Range(0, 10);
      if (purpose < 2) {
        op->set_purpose("init");
        op->add_targets("init");
      } else if (purpose < 8) {
        op->set_purpose("train");
        op->add_targets("train");
      } else {
        op->set_purpose("read");
        op->add_fetches("w");
        op->add_fetches("b");
        op->add_fetches("read_steps");
      }
      break;
    }
  }
}

void PlanGenerator::AddPRunSetup(int client, const std::string& session) {
  const SessionModel& s = sessions_.at(session);
  const GraphModel& g = graphs_.at(s.graph);
  SimOp* op =
      NewOp(client, SimOp::PRUN_SETUP, s.graph, options_.max_think_nanos);
  op->set_session(session);
  op->set_on_closed_session(s.closed);
  PRunModel run;
  run.name = absl::StrCat("p", next_prun_++);
  run.session = session;
  op->set_prun(run.name);
  SimOp request;
  AddDagRequest(g, /*feed_all_placeholders=*/true, &request);
  std::set<std::string> fetches, targets, fed;
  for (const SimFeed& f : request.feeds()) fed.insert(NodeOf(f.name()));
  for (const std::string& f : request.fetches()) {
    fetches.insert(CanonicalTensorName(f));
  }
  if (fetches.empty()) {
    for (const NodeDef& n : g.nodes.node()) {
      if (graph_testing::HasFloatOutput(n) && fed.count(n.name()) == 0) {
        fetches.insert(absl::StrCat(n.name(), ":0"));
        break;
      }
    }
  }
  for (const std::string& t : request.targets()) targets.insert(t);
  for (const SimFeed& f : request.feeds()) {
    *op->add_feeds() = f;
    run.feeds.push_back(f);
  }
  for (const std::string& f : fetches) {
    op->add_fetches(f);
    run.fetches.push_back(f);
  }
  for (const std::string& t : targets) op->add_targets(t);
  if (!s.closed && !run.fetches.empty()) open_pruns_[client] = std::move(run);
}

void PlanGenerator::ContinuePRun(int client) {
  PRunModel& run = open_pruns_.at(client);
  const SessionModel& s = sessions_.at(run.session);
  SimOp* op = NewOp(client, SimOp::PRUN, s.graph, options_.max_think_nanos / 2);
  op->set_session(run.session);
  op->set_prun(run.name);
  op->set_on_closed_session(s.closed);
  const size_t half = (run.fetches.size() + 1) / 2;
  if (run.stage == 0) {
    for (const SimFeed& f : run.feeds) *op->add_feeds() = f;
    for (size_t i = 0; i < half; ++i) op->add_fetches(run.fetches[i]);
  } else {
    for (size_t i = half; i < run.fetches.size(); ++i) {
      op->add_fetches(run.fetches[i]);
    }
  }
  ++run.stage;
  if (run.stage == 2 || half == run.fetches.size()) open_pruns_.erase(client);
}

void PlanGenerator::AddOp(int client) {
  auto open = open_pruns_.find(client);
  if (open != open_pruns_.end()) {
    if (sessions_.at(open->second.session).deleted) {
      open_pruns_.erase(open);
    } else {
      ContinuePRun(client);
      return;
    }
  }
  const Candidates candidates = CurrentCandidates();
  Choice choice = kNewGraph;
  if (!DrawChoice(candidates, &choice)) {
    AddGraph(client);
    return;
  }
  AddChoice(client, choice, candidates);
}

PlanGenerator::Candidates PlanGenerator::CurrentCandidates() const {
  Candidates c;
  c.live_graphs = LiveGraphs(false);
  c.dag_graphs = LiveGraphs(true);
  const std::vector<std::string> sessions = LiveSessions(false, false);
  c.open_sessions = LiveSessions(true, false);
  c.open_dag_sessions = LiveSessions(true, true);
  for (const std::string& s : sessions) {
    if (sessions_.at(s).closed) c.closed_sessions.push_back(s);
  }
  std::set<std::string> prun_sessions;
  for (const auto& [client, run] : open_pruns_) {
    prun_sessions.insert(run.session);
  }
  for (const std::string& s : sessions) {
    if (prun_sessions.count(s) == 0) c.deletable.push_back(s);
  }
  return c;
}

bool PlanGenerator::DrawChoice(const Candidates& c, Choice* choice) {
  const std::vector<std::pair<int, Choice>> weights = {
      {c.open_sessions.empty() ? 0 : 24, kRun},
      {c.closed_sessions.empty() ? 0 : 3, kClosedRun},
      {c.open_dag_sessions.empty() ? 0 : 4, kPRun},
      {c.dag_graphs.empty() ? 0 : 2, kImport},
      {c.live_graphs.empty() ? 0 : 2, kSession},
      {c.open_sessions.empty() ? 0 : 2, kClose},
      {c.deletable.size() < 2 ? 0 : 1, kDeleteSession},
      {c.live_graphs.size() < 2 ? 0 : 1, kDeleteGraph},
      {static_cast<int>(c.live_graphs.size()) < options_.max_graphs ? 1 : 0,
       kNewGraph},
  };
  int total = 0;
  for (const auto& [w, kind] : weights) total += w;
  if (total == 0) return false;
  int x = static_cast<int>(r_->Uniform(static_cast<uint64_t>(total)));
  *choice = kNewGraph;
  for (const auto& [w, kind] : weights) {
    if (x < w) {
      *choice = kind;
      break;
    }
    x -= w;
  }
  return true;
}

void PlanGenerator::AddChoice(int client, Choice choice, const Candidates& c) {
  switch (choice) {
    case kRun:
      AddRun(client, Pick(c.open_sessions));
      break;
    case kClosedRun:
      AddRun(client, Pick(c.closed_sessions));
      break;
    case kPRun:
      AddPRunSetup(client, Pick(c.open_dag_sessions));
      break;
    case kImport:
      AddExtension(client, Pick(c.dag_graphs));
      break;
    case kSession:
      AddSession(client, Pick(c.live_graphs));
      break;
    case kClose:
      AddClose(client, Pick(c.open_sessions));
      break;
    case kDeleteSession:
      AddDeleteSession(client, Pick(c.deletable));
      break;
    case kDeleteGraph:
      AddDeleteGraph(client, Pick(c.live_graphs));
      break;
    case kNewGraph:
      AddGraph(client);
      break;
  }
}

void PlanGenerator::AddExtension(int client, const std::string& graph) {
  GraphModel& g = graphs_.at(graph);
  const std::string prefix = absl::StrCat("e", g.num_extensions++, "_");
  AddImport(client, g.spec.name(),
            multi_client::BuildDagExtension(g.nodes, g.spec.num_devices(),
                                            prefix, Range(1, 6), r_));
}

void PlanGenerator::AddClose(int client, const std::string& session) {
  SimOp* op = NewOp(client, SimOp::CLOSE_SESSION, sessions_.at(session).graph,
                    options_.max_think_nanos);
  op->set_session(session);
  sessions_.at(session).closed = true;
}

void PlanGenerator::AddDeleteSession(int client, const std::string& session) {
  SimOp* op = NewOp(client, SimOp::DELETE_SESSION, sessions_.at(session).graph,
                    options_.max_think_nanos);
  op->set_session(session);
  sessions_.at(session).deleted = true;
  --graphs_.at(sessions_.at(session).graph).live_sessions;
}

void PlanGenerator::AddDeleteGraph(int client, const std::string& graph) {
  NewOp(client, SimOp::DELETE_GRAPH, graph, options_.max_think_nanos);
  graphs_.at(graph).deleted = true;
}

absl::Status PlanGenerator::Generate() {
  const MultiClientWorkloadOptions& o = options_;
  if (o.min_graphs < 1 || o.max_graphs < o.min_graphs || o.min_clients < 1 ||
      o.max_clients < o.min_clients || o.min_ops_per_client < 0 ||
      o.max_ops_per_client < o.min_ops_per_client || o.max_dag_nodes < 2 ||
      o.min_slow_nanos < 0 || o.max_slow_nanos < o.min_slow_nanos ||
      o.function_call_weight < 0 || o.max_think_nanos < 0) {
    return absl::InvalidArgumentError(
        "inconsistent MultiClientWorkloadOptions");
  }
  num_clients_ = Range(o.min_clients, o.max_clients);
  plan_->set_num_clients(num_clients_);
  const int num_graphs = Range(o.min_graphs, o.max_graphs);
  for (int i = 0; i < num_graphs; ++i) AddGraph(Range(1, num_clients_));

  std::map<int, int> budget;
  for (int c = 1; c <= num_clients_; ++c) {
    budget[c] = Range(o.min_ops_per_client, o.max_ops_per_client);
  }
  while (true) {
    std::vector<int> active;
    for (const auto& [c, b] : budget) {
      if (b > 0 || open_pruns_.count(c) > 0) active.push_back(c);
    }
    if (active.empty()) break;
    const int c = Pick(active);
    --budget[c];
    AddOp(c);
  }

  // Tear everything down, in a random order, by random clients.
  std::vector<std::pair<SimOp::Kind, std::string>> teardown;
  for (const auto& [name, s] : sessions_) {
    if (!s.deleted) teardown.push_back({SimOp::DELETE_SESSION, name});
  }
  for (const auto& [name, g] : graphs_) {
    if (!g.deleted) teardown.push_back({SimOp::DELETE_GRAPH, name});
  }
  for (size_t i = teardown.size(); i > 1; --i) {
    std::swap(teardown[i - 1], teardown[r_->Uniform(i)]);
  }
  for (const auto& [kind, name] : teardown) {
    const int client = Range(1, num_clients_);
    if (kind == SimOp::DELETE_SESSION) {
      SimOp* op =
          NewOp(client, kind, sessions_.at(name).graph, o.max_think_nanos / 4);
      op->set_session(name);
      sessions_.at(name).deleted = true;
    } else {
      NewOp(client, kind, name, o.max_think_nanos / 4);
      graphs_.at(name).deleted = true;
    }
  }
  return absl::OkStatus();
}

std::string FeedText(const SimFeed& f) {
  return f.dtype() == DT_INT32 ? absl::StrCat(f.name(), "=", f.int_value())
                               : absl::StrCat(f.name(), "=", f.float_value());
}

}  // namespace

absl::Status GenerateMultiClientPlan(uint64_t seed,
                                     const MultiClientWorkloadOptions& options,
                                     SimWorkloadPlan* plan) {
  PlanGenerator gen(seed, options, plan);
  return gen.Generate();
}

std::string DescribeOp(const SimOp& op) {
  std::string out = absl::StrCat("client ", op.client(), ": ");
  auto list = [](const char* label, const auto& items) {
    return absl::StrCat(" ", label, "{", absl::StrJoin(items, ","), "}");
  };
  switch (op.kind()) {
    case SimOp::NEW_GRAPH:
      absl::StrAppend(&out, "TF_NewGraph ", op.graph());
      break;
    case SimOp::IMPORT: {
      absl::StrAppend(&out, "TF_GraphImportGraphDef ", op.graph(),
                      " nodes=", op.graph_def().node_size());
      for (const SimFault& f : op.faults()) {
        if (f.kind() == SimFault::SLOW_KERNEL) {
          absl::StrAppend(&out, " slow{", f.node(), "=", f.delay_nanos(),
                          "ns}");
        } else {
          absl::StrAppend(
              &out, " fail{", f.node(), "=",
              absl::StatusCodeToString(static_cast<absl::StatusCode>(f.code())),
              "}");
        }
      }
      break;
    }
    case SimOp::NEW_SESSION:
      absl::StrAppend(&out, "TF_NewSession ", op.session(), " on ", op.graph());
      break;
    case SimOp::RUN:
    case SimOp::PRUN_SETUP:
    case SimOp::PRUN: {
      const char* name = op.kind() == SimOp::RUN ? "TF_SessionRun"
                         : op.kind() == SimOp::PRUN_SETUP
                             ? "TF_SessionPRunSetup"
                             : "TF_SessionPRun";
      absl::StrAppend(&out, name, " ", op.session());
      if (!op.prun().empty()) absl::StrAppend(&out, " ", op.prun());
      std::vector<std::string> feeds;
      for (const SimFeed& f : op.feeds()) {
        feeds.push_back(op.kind() == SimOp::PRUN_SETUP ? f.name()
                                                       : FeedText(f));
      }
      if (!feeds.empty()) absl::StrAppend(&out, list("feeds", feeds));
      if (op.fetches_size() > 0)
        absl::StrAppend(&out, list("fetch", op.fetches()));
      if (op.targets_size() > 0)
        absl::StrAppend(&out, list("targets", op.targets()));
      if (op.timeout_ms() > 0)
        absl::StrAppend(&out, " timeout=", op.timeout_ms(), "ms");
      if (op.output_partition_graphs()) absl::StrAppend(&out, " partitions");
      if (!op.purpose().empty()) absl::StrAppend(&out, " (", op.purpose(), ")");
      if (op.on_closed_session()) absl::StrAppend(&out, " [closed]");
      break;
    }
    case SimOp::CLOSE_SESSION:
      absl::StrAppend(&out, "TF_CloseSession ", op.session());
      break;
    case SimOp::DELETE_SESSION:
      absl::StrAppend(&out, "TF_DeleteSession ", op.session());
      break;
    case SimOp::DELETE_GRAPH:
      absl::StrAppend(&out, "TF_DeleteGraph ", op.graph());
      break;
    default:
      absl::StrAppend(&out, "unknown op");
      break;
  }
  if (op.think_nanos() > 0)
    absl::StrAppend(&out, " after ", op.think_nanos(), "ns");
  return out;
}

std::string DescribePlan(const SimWorkloadPlan& plan) {
  std::string out = absl::StrCat("seed ", plan.seed(), ", ", plan.num_clients(),
                                 " clients\n");
  for (const SimGraph& g : plan.graphs()) {
    absl::StrAppend(&out, "graph ", g.name(), ": ",
                    SimGraph::Kind_Name(g.kind()), " on ", g.num_devices(),
                    " CPUs");
    if (g.kind() == SimGraph::NESTED_LOOP) {
      absl::StrAppend(&out, " trips ", g.outer_trips(), "x", g.inner_trips());
    }
    if (g.kind() == SimGraph::TRAINING) {
      absl::StrAppend(&out, " lr=", g.learning_rate());
    }
    absl::StrAppend(&out, "\n");
  }
  for (int i = 0; i < plan.ops_size(); ++i) {
    absl::StrAppend(&out, "#", i, " ", DescribeOp(plan.ops(i)), "\n");
  }
  return out;
}

}  // namespace stepflow
