// The mixed simulation workload: many seeds with every invariant green,
// determinism, and proof that every invariant can fail.
//
// Seeds: STEPFLOW_SIM_SEEDS (default 200) seeds starting at
// STEPFLOW_SIM_FIRST_SEED (default 1), e.g.
//   bazel test //sim:mixed_workload_test --test_env=STEPFLOW_SIM_SEEDS=2000
#include "sim/workloads/multi_client_workload.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/sim_workload.pb.h"
#include "runtime/framework/tensor.h"
#include "sim/check/invariants.h"
#include "sim/env/sim_env.h"
#include "sim/env/sim_random.h"
#include "sim/trace/trace.h"
#include "sim/trace/traced_rendezvous.h"
#include "sim/workloads/multi_client_graphs.h"
#include "testing/reference_call.h"

namespace stepflow {
namespace {

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::string Violations(const MultiClientWorkloadResult& r) {
  std::string out;
  for (const InvariantViolation& v : r.violations) {
    absl::StrAppend(&out, "  [", v.invariant, "] ", v.detail, "\n");
  }
  return out;
}

bool HasViolation(const MultiClientWorkloadResult& r,
                  const std::string& invariant) {
  for (const InvariantViolation& v : r.violations) {
    if (v.invariant == invariant) return true;
  }
  return false;
}

MultiClientWorkloadResult RunSeed(uint64_t seed,
                                  SimWorkloadPlan* plan_out = nullptr) {
  SimWorkloadPlan plan;
  absl::Status s =
      GenerateMultiClientPlan(seed, MultiClientWorkloadOptions(), &plan);
  EXPECT_TRUE(s.ok()) << s;
  MultiClientWorkloadResult result;
  s = RunMultiClientPlan(plan, MultiClientRunOptions(), &result);
  EXPECT_TRUE(s.ok()) << s;
  if (plan_out != nullptr) *plan_out = plan;
  return result;
}

TEST(MultiClientWorkloadTest, ManySeedsAllInvariantsGreen) {
  const uint64_t first = EnvOr("STEPFLOW_SIM_FIRST_SEED", 1);
  const uint64_t count = EnvOr("STEPFLOW_SIM_SEEDS", 200);
  std::map<std::string, int64_t> codes;
  std::map<std::string, int64_t> checks;
  std::map<int, int> graph_kinds;
  std::map<int, int> op_kinds;
  std::map<std::string, int> call_ops;  // Call sites drawn, by op.
  int64_t steps = 0, overlapping = 0, nested = 0, faults = 0, calls = 0;
  int failed_seeds = 0;
  uint64_t combined = 0;  // Over every seed's trace hash (compare processes).
  for (uint64_t seed = first; seed < first + count; ++seed) {
    SimWorkloadPlan plan;
    const MultiClientWorkloadResult r = RunSeed(seed, &plan);
    for (const SimGraph& g : plan.graphs()) ++graph_kinds[g.kind()];
    for (const SimOp& op : plan.ops()) {
      ++op_kinds[op.kind()];
      faults += op.faults_size();
      const FunctionDefLibrary& lib = op.graph_def().library();
      for (const NodeDef& n : op.graph_def().node()) {
        if (graph_testing::IsReferenceCallSite(n, lib)) ++call_ops[n.op()];
      }
      for (const FunctionDef& f : lib.function()) {
        for (const NodeDef& n : f.node_def()) {
          if (n.op() == "AssignAddVariableOp") ++call_ops["stateful_body"];
          if (graph_testing::IsReferenceCallSite(n, lib)) {
            const bool by_name = n.op().rfind("fn", 0) == 0;
            ++call_ops[by_name ? "nested_by_name" : "nested_" + n.op()];
          }
        }
      }
    }
    calls += r.function_calls;
    for (const auto& [code, n] : r.steps_by_code) codes[code] += n;
    for (const auto& [name, n] : r.checks) checks[name] += n;
    steps += r.steps_run;
    combined = combined * 1099511628211ull ^ r.trace_hash;
    overlapping += r.overlapping_steps;
    nested += r.max_event_depth > 1 ? 1 : 0;
    EXPECT_EQ(r.ops_run, plan.ops_size()) << "seed " << seed;
    if (!r.violations.empty() && ++failed_seeds <= 3) {
      ADD_FAILURE() << SummarizeResult(r) << "\n"
                    << Violations(r) << "Plan:\n"
                    << DescribePlan(plan);
    }
  }
  EXPECT_EQ(failed_seeds, 0);
  std::string summary;
  for (const auto& [code, n] : codes)
    absl::StrAppend(&summary, code, "=", n, " ");
  for (const auto& [name, n] : checks)
    absl::StrAppend(&summary, name, ":", n, " ");
  std::printf(
      "%llu seeds, %lld steps (%s), %lld overlapping, %lld seeds nested, "
      "%lld faults, %lld function call sites, combined trace hash %016llx\n",
      static_cast<unsigned long long>(count), static_cast<long long>(steps),
      summary.c_str(), static_cast<long long>(overlapping),
      static_cast<long long>(nested), static_cast<long long>(faults),
      static_cast<long long>(calls), static_cast<unsigned long long>(combined));
  std::string call_summary;
  for (const auto& [op, n] : call_ops) {
    absl::StrAppend(&call_summary, op, "=", n, " ");
  }
  std::printf("call sites by kind: %s\n", call_summary.c_str());
  // Every invariant was actually checked (liveness only fails).
  for (const std::string& name : AllInvariantNames()) {
    if (name != kInvariantLiveness) {
      EXPECT_GT(checks[name], 0) << name;
    }
  }
  if (count < 100) return;  // The coverage checks below need enough seeds.
  // The workload really is mixed.
  for (int kind : {SimGraph::DAG, SimGraph::COUNTER_LOOP, SimGraph::SUM_LOOP,
                   SimGraph::NESTED_LOOP, SimGraph::TRAINING}) {
    EXPECT_GT(graph_kinds[kind], 0)
        << SimGraph::Kind_Name(static_cast<SimGraph::Kind>(kind));
  }
  for (int kind = SimOp::NEW_GRAPH; kind <= SimOp::DELETE_GRAPH; ++kind) {
    EXPECT_GT(op_kinds[kind], 0)
        << SimOp::Kind_Name(static_cast<SimOp::Kind>(kind));
  }
  EXPECT_GT(codes["OK"], steps / 3);
  EXPECT_GT(codes["CANCELLED"], 0);
  EXPECT_GT(codes["DEADLINE_EXCEEDED"], 0);
  EXPECT_GT(codes["INVALID_ARGUMENT"], 0);
  EXPECT_GT(codes["FAILED_PRECONDITION"], 0);
  EXPECT_GT(
      codes["ABORTED"] + codes["UNAVAILABLE"] + codes["RESOURCE_EXHAUSTED"], 0);
  // Function calls of every kind were drawn, and imported.
  for (const char* op :
       {"nested_by_name", "nested_PartitionedCall", "PartitionedCall",
        "StatefulPartitionedCall", "If", "StatelessIf", "Case", "StatelessCase",
        "While", "StatelessWhile", "stateful_body"}) {
    EXPECT_GT(call_ops[op], 0) << op;
  }
  EXPECT_GT(calls, static_cast<int64_t>(count));
  // Steps of different clients overlapped (nested waits).
  EXPECT_GT(overlapping, static_cast<int64_t>(count));
  EXPECT_GT(nested, static_cast<int64_t>(count) / 2);
}

TEST(MultiClientWorkloadTest, SameSeedSameTrace) {
  for (uint64_t seed : {3u, 17u}) {
    SimWorkloadPlan a, b;
    const MultiClientWorkloadResult ra = RunSeed(seed, &a);
    const MultiClientWorkloadResult rb = RunSeed(seed, &b);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(a, b));
    EXPECT_EQ(ra.trace_hash, rb.trace_hash) << "seed " << seed;
    EXPECT_EQ(ra.trace_events, rb.trace_events);
    EXPECT_EQ(ra.events_run, rb.events_run);
    EXPECT_EQ(ra.virtual_nanos, rb.virtual_nanos);
    EXPECT_GT(ra.trace_events, 100u);
  }
}

TEST(MultiClientWorkloadTest, DifferentSeedsDifferentInterleavings) {
  std::set<uint64_t> hashes;
  for (uint64_t seed = 1; seed <= 6; ++seed)
    hashes.insert(RunSeed(seed).trace_hash);
  EXPECT_EQ(hashes.size(), 6u);

  // The same plan under other simulator seeds: only the scheduler's and the
  // runtime's draws change, and the interleaving with them.
  SimWorkloadPlan plan;
  ASSERT_TRUE(
      GenerateMultiClientPlan(5, MultiClientWorkloadOptions(), &plan).ok());
  std::set<uint64_t> plan_hashes;
  for (uint64_t sim_seed : {5u, 6u, 7u, 8u}) {
    plan.set_seed(sim_seed);
    MultiClientWorkloadResult r;
    ASSERT_TRUE(RunMultiClientPlan(plan, MultiClientRunOptions(), &r).ok());
    EXPECT_TRUE(r.violations.empty()) << Violations(r);
    plan_hashes.insert(r.trace_hash);
  }
  EXPECT_EQ(plan_hashes.size(), 4u);
}

TEST(MultiClientWorkloadTest, ReplaysAStoredPlan) {
  SimWorkloadPlan plan;
  const MultiClientWorkloadResult first = RunSeed(11, &plan);
  SimWorkloadPlan parsed;
  ASSERT_TRUE(parsed.ParseFromString(plan.SerializeAsString()));
  MultiClientWorkloadResult again;
  ASSERT_TRUE(RunMultiClientPlan(parsed, MultiClientRunOptions(), &again).ok());
  EXPECT_EQ(first.trace_hash, again.trace_hash);
  // A shrunk plan (the first half of the ops, then the teardown) runs too.
  SimWorkloadPlan half = plan;
  half.mutable_ops()->DeleteSubrange(half.ops_size() / 2,
                                     half.ops_size() - half.ops_size() / 2);
  MultiClientWorkloadResult shrunk;
  ASSERT_TRUE(RunMultiClientPlan(half, MultiClientRunOptions(), &shrunk).ok());
  EXPECT_EQ(shrunk.ops_run, half.ops_size());
  EXPECT_TRUE(shrunk.violations.empty()) << Violations(shrunk);
}

TEST(MultiClientWorkloadTest, DescribePlanListsEveryOp) {
  SimWorkloadPlan plan;
  ASSERT_TRUE(
      GenerateMultiClientPlan(2, MultiClientWorkloadOptions(), &plan).ok());
  const std::string text = DescribePlan(plan);
  int lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 1 + plan.graphs_size() + plan.ops_size());
  EXPECT_NE(text.find("client 1: "), std::string::npos);
  EXPECT_NE(text.find("TF_NewGraph g0"), std::string::npos);
  SimOp op;
  op.set_kind(SimOp::RUN);
  op.set_client(1);
  op.set_session("s2");
  SimFeed* f = op.add_feeds();
  f->set_name("n3");
  f->set_float_value(1.5f);
  op.add_fetches("n7");
  op.set_timeout_ms(5);
  EXPECT_EQ(DescribeOp(op),
            "client 1: TF_SessionRun s2 feeds{n3=1.5} fetch{n7} timeout=5ms");
}

// A runtime bug the workload found (seeds 1363, 1865, 1950, 2378, 3225,
// 3918, 4212 of the default options), kept as a regression test: a while
// loop whose loop-invariant Enter (is_constant, here the trip count's) sits
// on another device than the rest of the loop deadlocked on its first Run —
// the Recv inside the frame waited in every iteration for a value sent
// once, because the sending side had no control loop to iterate in.
TEST(MultiClientWorkloadRegressionTest,
     ConstantEnterOnAnotherDeviceThanItsLoop) {
  SimWorkloadPlan plan;
  plan.set_seed(1);
  plan.set_num_clients(1);
  SimGraph* g = plan.add_graphs();
  g->set_name("g");
  g->set_kind(SimGraph::COUNTER_LOOP);
  g->set_num_devices(2);
  SimRandom random(1);
  GraphDef def = multi_client::BuildLoopGraph(*g, random.Stream("placement"));
  for (NodeDef& n : *def.mutable_node()) {
    n.set_device(absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:",
                              n.name() == "while/Less/Enter" ? 0 : 1));
  }
  auto add = [&plan](SimOp::Kind kind) {
    SimOp* op = plan.add_ops();
    op->set_kind(kind);
    op->set_client(1);
    op->set_graph("g");
    op->set_session("s");
    return op;
  };
  add(SimOp::NEW_GRAPH)->clear_session();
  *add(SimOp::IMPORT)->mutable_graph_def() = def;
  add(SimOp::NEW_SESSION);
  SimOp* run = add(SimOp::RUN);
  SimFeed* n = run->add_feeds();
  n->set_name("n");
  n->set_dtype(DT_INT32);
  n->set_int_value(3);
  run->add_fetches("while/Exit");
  add(SimOp::DELETE_SESSION);
  add(SimOp::DELETE_GRAPH)->clear_session();
  MultiClientWorkloadResult r;
  ASSERT_TRUE(RunMultiClientPlan(plan, MultiClientRunOptions(), &r).ok());
  EXPECT_TRUE(r.violations.empty()) << Violations(r);
}

// --- Every invariant can fail ------------------------------------------------

// A wrong reference (the plan's description of a training graph or a loop
// no longer matches the graph it imports) is caught by `values`.
TEST(MultiClientWorkloadCanFailTest, WrongReferenceBreaksValues) {
  int caught = 0;
  for (uint64_t seed = 1; seed <= 60 && caught < 2; ++seed) {
    SimWorkloadPlan plan;
    ASSERT_TRUE(
        GenerateMultiClientPlan(seed, MultiClientWorkloadOptions(), &plan)
            .ok());
    bool changed = false;
    for (SimGraph& g : *plan.mutable_graphs()) {
      if (g.kind() == SimGraph::TRAINING) {
        g.set_learning_rate(g.learning_rate() * 3);
        changed = true;
      } else if (g.kind() == SimGraph::NESTED_LOOP) {
        g.set_outer_trips(g.outer_trips() + 1);
        changed = true;
      }
    }
    if (!changed) continue;
    MultiClientWorkloadResult r;
    ASSERT_TRUE(RunMultiClientPlan(plan, MultiClientRunOptions(), &r).ok());
    if (HasViolation(r, kInvariantValues)) ++caught;
  }
  EXPECT_EQ(caught, 2);
}

TEST(MultiClientWorkloadCanFailTest, LivenessFromTheLoopsFailureHandler) {
  SimWorkloadPlan plan;
  ASSERT_TRUE(
      GenerateMultiClientPlan(4, MultiClientWorkloadOptions(), &plan).ok());
  MultiClientRunOptions options;
  options.loop.max_events = 40;  // Far too few.
  MultiClientWorkloadResult r;
  ASSERT_TRUE(RunMultiClientPlan(plan, options, &r).ok());
  EXPECT_TRUE(HasViolation(r, kInvariantLiveness)) << Violations(r);
  EXPECT_LT(r.ops_run, plan.ops_size());
}

TEST(MultiClientWorkloadCanFailTest, MalformedPlanIsAnError) {
  SimWorkloadPlan plan;
  ASSERT_TRUE(
      GenerateMultiClientPlan(4, MultiClientWorkloadOptions(), &plan).ok());
  SimWorkloadPlan unknown_graph = plan;
  unknown_graph.mutable_ops(0)->set_graph("nope");
  MultiClientWorkloadResult r;
  EXPECT_EQ(
      RunMultiClientPlan(unknown_graph, MultiClientRunOptions(), &r).code(),
      absl::StatusCode::kInvalidArgument);
  // Dropping the op that creates a graph leaves ops on a graph that does
  // not exist: an error, not a violation, and nothing crashes.
  SimWorkloadPlan no_graph = plan;
  no_graph.mutable_ops()->DeleteSubrange(0, 1);
  const absl::Status s =
      RunMultiClientPlan(no_graph, MultiClientRunOptions(), &r);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(r.violations.empty()) << Violations(r);
}

class CheckerTest : public ::testing::Test {
 protected:
  std::vector<InvariantViolation> violations_;
  InvariantChecker checker_{&violations_};

  std::string Only() {
    EXPECT_EQ(violations_.size(), 1u);
    return violations_.empty() ? "" : violations_[0].invariant;
  }
};

TEST_F(CheckerTest, ValuesCorruptedOutput) {
  StepExpectation e;
  e.check_values = true;
  e.values = {1.5, 4};
  checker_.CheckStep("ok", e, absl::OkStatus(),
                     {Tensor::Scalar<float>(1.5f), Tensor::Scalar<int32_t>(4)});
  EXPECT_TRUE(violations_.empty());
  checker_.CheckStep(
      "corrupt", e, absl::OkStatus(),
      {Tensor::Scalar<float>(1.75f), Tensor::Scalar<int32_t>(4)});
  EXPECT_EQ(Only(), kInvariantValues);
}

TEST_F(CheckerTest, ValuesToleranceAndStatuses) {
  StepExpectation e;
  e.check_values = true;
  e.values = {0.3};
  e.tolerance = 1e-4;
  checker_.CheckStep("close", e, absl::OkStatus(),
                     {Tensor::Scalar<float>(0.30001f)});
  EXPECT_TRUE(violations_.empty());
  // A failure the reference did not predict.
  checker_.CheckStep("unexpected", e, absl::AbortedError("x"), {});
  // Success where the reference says the step must fail.
  StepExpectation must_fail;
  must_fail.error_codes = {absl::StatusCode::kFailedPrecondition};
  must_fail.must_fail = true;
  checker_.CheckStep("must fail", must_fail, absl::OkStatus(), {});
  // Timeouts and closes only where they apply.
  StepExpectation timed;
  timed.timeout_set = true;
  checker_.CheckStep("deadline", timed, absl::DeadlineExceededError("t"), {});
  checker_.CheckStep("cancelled", timed, absl::CancelledError("c"), {});
  ASSERT_EQ(violations_.size(), 3u);
  for (const InvariantViolation& v : violations_)
    EXPECT_EQ(v.invariant, kInvariantValues);
}

TEST_F(CheckerTest, PruningExtraOrMissingNodes) {
  GraphDef p0, p1;
  p0.add_node()->set_name("a");
  p0.add_node()->set_name("_arg_x_0_0");
  NodeDef* send = p0.add_node();
  send->set_name("a/_3");
  send->set_op("_Send");
  p1.add_node()->set_name("b");
  p1.add_node()->set_name("_cloopwhile/Merge");
  p1.add_node()->set_name("c/_12");  // A control-edge Identity.
  checker_.CheckPruning("exact", {"a", "b", "_arg_x_0_0"}, {p0, p1});
  EXPECT_TRUE(violations_.empty());
  checker_.CheckPruning("extra", {"a", "_arg_x_0_0"}, {p0, p1});
  EXPECT_EQ(Only(), kInvariantPruning);
}

TEST_F(CheckerTest, SendRecvTwiceUnderOneKey) {
  auto event = [](SimEventKind kind, const std::string& step,
                  const std::string& key) {
    TraceEvent e;
    e.kind = kind;
    e.task = "s0";
    e.fields = {{"step", step}, {"key", key}, {"status", "OK"}};
    return e;
  };
  checker_.OnTraceEvent(event(SIM_RENDEZVOUS_SEND, "7", "k;0:0"));
  checker_.OnTraceEvent(
      event(SIM_RENDEZVOUS_SEND, "7", "k;0:1"));  // Next iter.
  checker_.OnTraceEvent(
      event(SIM_RENDEZVOUS_SEND, "8", "k;0:0"));  // Next step.
  checker_.OnTraceEvent(event(SIM_RENDEZVOUS_RECV, "7", "k;0:0"));
  EXPECT_TRUE(violations_.empty());
  checker_.OnTraceEvent(event(SIM_RENDEZVOUS_RECV, "7", "k;0:0"));
  EXPECT_EQ(Only(), kInvariantSendRecv);
}

TEST_F(CheckerTest, StepIdReused) {
  TraceEvent e;
  e.kind = SIM_NOTE;
  e.task = "s1";
  e.fields = {{"event", "new_step"}, {"step", "42"}};
  checker_.OnTraceEvent(e);
  TraceEvent other = e;
  other.task = "s2";  // Another session may use the same id.
  checker_.OnTraceEvent(other);
  EXPECT_TRUE(violations_.empty());
  checker_.OnTraceEvent(e);
  EXPECT_EQ(Only(), kInvariantStepIds);
}

TEST_F(CheckerTest, ErrorCodesNeverInternal) {
  checker_.CheckErrorCode("ok", absl::CancelledError("c"));
  checker_.CheckErrorCode("injected?", absl::AbortedError("a"));
  EXPECT_EQ(Only(), kInvariantErrorCodes);
  violations_.clear();
  checker_.AllowErrorCode(absl::StatusCode::kAborted);
  checker_.CheckErrorCode("injected", absl::AbortedError("a"));
  checker_.CheckErrorCode("internal", absl::InternalError("i"));
  EXPECT_EQ(Only(), kInvariantErrorCodes);
}

TEST_F(CheckerTest, RefcountMismatch) {
  checker_.CheckRefcount("same", 3, 3);
  EXPECT_TRUE(violations_.empty());
  checker_.CheckRefcount("freed early", 3, 2);
  EXPECT_EQ(Only(), kInvariantRefcount);
}

TEST_F(CheckerTest, ClosedSessionStepMustBeCancelled) {
  checker_.CheckClosedSessionStep("ok", absl::CancelledError("closed"));
  EXPECT_TRUE(violations_.empty());
  checker_.CheckClosedSessionStep("ran anyway", absl::OkStatus());
  EXPECT_EQ(Only(), kInvariantClosed);
}

TEST_F(CheckerTest, FakedLeaks) {
  checker_.CheckLeaks("clean", LeakSnapshot());
  EXPECT_TRUE(violations_.empty());
  LeakSnapshot leak;
  leak.step_containers = {"__per_step_5"};
  checker_.CheckLeaks("container", leak);
  EXPECT_EQ(Only(), kInvariantLeaks);
  violations_.clear();
  LeakSnapshot recv;
  recv.pending_recvs = 1;
  checker_.CheckLeaks("recv", recv);
  EXPECT_EQ(Only(), kInvariantSendRecv);
}

// The traced rendezvous really counts what a leak check needs, and its
// trace feeds the sendrecv check.
TEST_F(CheckerTest, TracedRendezvousLeakAndDuplicateSend) {
  SimEnv sim(9);
  TraceRecorder::Options ropts;
  ropts.observer = [this](const TraceEvent& e) { checker_.OnTraceEvent(e); };
  TraceRecorder recorder(ropts);
  sim.loop.set_recorder(&recorder);
  auto stats = std::make_shared<RendezvousStats>();
  RendezvousFactory factory =
      NewTracedRendezvousFactory(&sim.loop, "s0", stats);
  Rendezvous* r = factory(77);
  EXPECT_EQ(stats->live, 1);
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(
      Rendezvous::ParseKey(
          Rendezvous::CreateKey("/job:a/replica:0/task:0/device:CPU:0", 1,
                                "/job:a/replica:0/task:0/device:CPU:1",
                                "edge_1_x", FrameAndIter()),
          &key)
          .ok());
  ASSERT_TRUE(
      r->Send(key, Rendezvous::Args(), Tensor::Scalar<float>(1), false).ok());
  ASSERT_TRUE(
      r->Send(key, Rendezvous::Args(), Tensor::Scalar<float>(2), false).ok());
  int got = 0;
  r->RecvAsync(key, Rendezvous::Args(),
               [&got](const absl::Status& s, const Rendezvous::Args&,
                      const Rendezvous::Args&, const Tensor&,
                      bool) { got += s.ok() ? 1 : 0; });
  EXPECT_EQ(got, 1);
  EXPECT_EQ(stats->pending_recvs, 0);
  r->Unref();  // One value never received.
  EXPECT_EQ(stats->live, 0);
  EXPECT_EQ(stats->leaked_entries, 1);
  sim.loop.set_recorder(nullptr);
  ASSERT_EQ(violations_.size(), 1u);
  EXPECT_EQ(violations_[0].invariant, kInvariantSendRecv);
  LeakSnapshot snap;
  snap.leaked_rendezvous_entries = stats->leaked_entries;
  checker_.CheckLeaks("after", snap);
  ASSERT_EQ(violations_.size(), 2u);
  EXPECT_EQ(violations_[1].invariant, kInvariantLeaks);
}

TEST(InvariantNamesTest, StableNames) {
  EXPECT_EQ(AllInvariantNames(),
            (std::vector<std::string>{"values", "pruning", "sendrecv", "leaks",
                                      "step_ids", "error_codes", "refcount",
                                      "closed", "liveness"}));
}

}  // namespace
}  // namespace stepflow
