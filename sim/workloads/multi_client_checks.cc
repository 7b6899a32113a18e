// MultiClientRunner's checking: what each step must produce and the
// invariants checked after every op (see multi_client_runner.h).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/c/c_api_extension.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/common/direct_session.h"
#include "runtime/framework/tensor_id.h"
#include "sim/workloads/multi_client_runner.h"
#include "testing/reference_call.h"
#include "testing/reference_eval.h"
#include "testing/reference_prune.h"

namespace stepflow {

int64_t MultiClientRunner::ExpectedLiveGraphs() const {
  int64_t n = base_live_graphs_;
  for (const auto& [name, g] : graphs_) n += g.created && !g.freed ? 1 : 0;
  return n;
}

void MultiClientRunner::CheckRefcount(const std::string& where) {
  checker_.CheckRefcount(where, ExpectedLiveGraphs(),
                         TF_TestOnlyLiveGraphCount());
}

void MultiClientRunner::CheckLeaks(SessionState& s, const std::string& where) {
  LeakSnapshot snap;
  snap.live_rendezvous = s.stats->live;
  snap.pending_recvs = s.stats->pending_recvs;
  snap.leaked_rendezvous_entries = s.stats->leaked_entries - s.leaked_seen;
  s.leaked_seen = s.stats->leaked_entries;
  if (!s.deleted && s.session != nullptr) {
    auto* ds = dynamic_cast<DirectSession*>(SessionFromHandle(s.session));
    if (ds != nullptr) {
      for (Device* d : ds->device_mgr()->ListDevices()) {
        for (const std::string& c : d->resource_manager()->Containers()) {
          if (absl::StartsWith(c, "__per_step_"))
            snap.step_containers.push_back(c);
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
  const std::string where =
      absl::StrCat("op #", index, " (", DescribeOp(op), ")");
  CheckRefcount(where);
  if (op.session().empty()) return;
  auto it = sessions_.find(op.session());
  if (it == sessions_.end()) return;
  SessionState& s = it->second;
  if (s.in_flight == 0 && s.open_pruns == 0 && s.stats != nullptr) {
    CheckLeaks(s, where);
  }
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
                    absl::StrCat(where,
                                 ": the reference cannot evaluate the "
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

absl::Status MultiClientRunner::RunExpectation(
    const GraphState& g, const SessionState& s, const SimOp& op,
    const RunCall& call, const std::string& where, StepExpectation* expect) {
  std::vector<std::string> fetches(op.fetches().begin(), op.fetches().end());
  switch (g.spec->kind()) {
    case SimGraph::DAG: {
      std::vector<std::string> targets(op.targets().begin(),
                                       op.targets().end());
      *expect = DagExpectation(g, call.float_feeds, fetches, targets, where);
      return absl::OkStatus();
    }
    case SimGraph::COUNTER_LOOP:
    case SimGraph::SUM_LOOP:
    case SimGraph::NESTED_LOOP:
      return LoopExpectation(g, call.fed_n, fetches, where, expect);
    default:  // TRAINING
      *expect = TrainingExpectation(s, op);
      return absl::OkStatus();
  }
}

absl::Status MultiClientRunner::LoopExpectation(
    const GraphState& g, int32_t fed_n, const std::vector<std::string>& fetches,
    const std::string& where, StepExpectation* expect) {
  if (g.spec->kind() != SimGraph::NESTED_LOOP && fed_n < 0) {
    expect->error_codes = {absl::StatusCode::kInvalidArgument};
    expect->must_fail = true;
    return absl::OkStatus();
  }
  expect->check_values = true;
  for (const std::string& f : fetches) {
    int64_t v = 0;
    if (!multi_client::LoopReference(*g.spec, fed_n, f, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": no reference for fetch ", f));
    }
    expect->values.push_back(static_cast<double>(v));
  }
  return absl::OkStatus();
}

StepExpectation MultiClientRunner::TrainingExpectation(const SessionState& s,
                                                       const SimOp& op) {
  StepExpectation expect;
  if (op.purpose() == "init") {
    expect.check_values = true;
  } else if (!s.vars_known || !s.vars_initialized) {
    // An uninitialized VariableV2 fails its reader or update with
    // FailedPrecondition; the step counter's AssignAddVariableOp on a
    // variable never assigned is NotFound.
    expect.error_codes = {absl::StatusCode::kFailedPrecondition};
    if (op.purpose() == "train") {
      expect.error_codes.insert(absl::StatusCode::kNotFound);
    }
    expect.must_fail = s.vars_known;
  } else {
    expect.check_values = true;
    if (op.purpose() == "read") {
      expect.values = {s.sgd.w, s.sgd.b, s.sgd.steps};
      expect.tolerance = kTrainingTolerance;
    }
  }
  return expect;
}

void MultiClientRunner::UpdateTrainingState(const GraphState& g,
                                            const SimOp& op,
                                            const absl::Status& run_status,
                                            SessionState* s) {
  if (op.purpose() == "init") {
    if (run_status.ok()) {
      s->vars_known = true;
      s->vars_initialized = true;
      s->sgd = multi_client::SgdState();
    } else {
      s->vars_known = false;
    }
  } else if (op.purpose() == "train") {
    if (run_status.ok()) {
      if (s->vars_known) multi_client::SgdStep(*g.spec, &s->sgd);
    } else if (!absl::IsFailedPrecondition(run_status)) {
      s->vars_known = false;  // Possibly half applied.
    }
  }
}

void MultiClientRunner::CheckRunPruning(const GraphState& g, const SimOp& op,
                                        const RunMetadata& metadata,
                                        const std::string& where) {
  std::vector<std::string> feeds;
  for (const SimFeed& f : op.feeds()) {
    feeds.push_back(CanonicalTensorName(f.name()));
  }
  std::sort(feeds.begin(), feeds.end());
  std::vector<std::string> fetches;
  for (const std::string& f : op.fetches()) {
    fetches.push_back(CanonicalTensorName(f));
  }
  std::vector<std::string> targets(op.targets().begin(), op.targets().end());
  const std::set<std::string> expected =
      graph_testing::ReferencePrunedNodeNames(g.nodes, feeds,
                                              SortedUnique(std::move(fetches)),
                                              SortedUnique(std::move(targets)),
                                              /*use_function_convention=*/true);
  std::vector<GraphDef> partitions(metadata.partition_graphs().begin(),
                                   metadata.partition_graphs().end());
  std::set<std::string> call_sites;
  for (const NodeDef& n : g.nodes.node()) {
    if (graph_testing::IsReferenceCallSite(n, g.nodes.library())) {
      call_sites.insert(n.name());
    }
  }
  checker_.CheckPruning(where, expected, partitions, call_sites);
}

StepExpectation MultiClientRunner::PRunExpectation(const GraphState& g,
                                                   const PRunState& p,
                                                   const SimOp& op,
                                                   bool failed_before,
                                                   const std::string& where) {
  StepExpectation expect;
  if (failed_before) {
    // The first error freed the partial run: its handle is unknown now.
    expect.error_codes = {absl::StatusCode::kInvalidArgument};
    expect.must_fail = true;
    return expect;
  }
  std::vector<std::string> all_fetches(p.declared_fetches.begin(),
                                       p.declared_fetches.end());
  const StepExpectation whole =
      DagExpectation(g, p.fed, all_fetches, p.targets, where);
  std::vector<std::string> fetches(op.fetches().begin(), op.fetches().end());
  expect = DagExpectation(g, p.fed, fetches, {}, where);
  // Another part of the step may fail first (or not yet).
  expect.error_codes.insert(whole.error_codes.begin(), whole.error_codes.end());
  expect.must_fail = !expect.check_values;
  return expect;
}

void MultiClientRunner::UpdatePRunState(const SimOp& op,
                                        const absl::Status& run_status,
                                        PRunState* p, SessionState* s) {
  if (!run_status.ok()) {
    if (!p->failed && !s->closed) --s->open_pruns;  // The session freed it.
    p->failed = true;
    return;
  }
  for (const std::string& f : op.fetches()) {
    p->fetched.insert(CanonicalTensorName(f));
  }
  if (p->fetched == p->declared_fetches && !p->failed) --s->open_pruns;
}

}  // namespace stepflow
