#include "sim/check/shrink.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

struct SessionState {
  bool closed = false;
};

// Runs candidate plans and remembers the verdict per op-index set.
class Oracle {
 public:
  Oracle(const SimRunSpec& spec, const std::string& invariant,
         const ShrinkOptions& options, ShrinkResult* result)
      : spec_(spec),
        invariant_(invariant),
        options_(options),
        result_(result) {}

  bool out_of_runs() const { return result_->runs >= options_.max_runs; }

  // Whether `plan` still fails `invariant_` (with `signature_` once set).
  bool Fails(const SimWorkloadPlan& plan) {
    if (out_of_runs()) {
      result_->hit_run_limit = true;
      return false;
    }
    ++result_->runs;
    SimRunSpec candidate = spec_;
    candidate.plan = plan.SerializeAsString();
    SimRunResult r;
    if (!RunSimulation(candidate, SimRunConfig(), &r).ok()) return false;
    for (const SimInvariantFailure& f : r.failures) {
      if (f.invariant != invariant_) continue;
      const std::string signature = FailureSignature(f);
      if (signature_.empty()) signature_ = signature;
      if (signature != signature_) continue;
      last_detail_ = f.detail;
      return true;
    }
    return false;
  }

  const std::string& signature() const { return signature_; }
  void CountSimplification() { ++result_->simplifications; }

  // As Fails, for the ops of `base` at `indices`, cached.
  bool FailsWithOps(const SimWorkloadPlan& base,
                    const std::vector<int>& indices) {
    auto it = cache_.find(indices);
    if (it != cache_.end()) return it->second;
    const bool fails = Fails(Select(base, indices));
    if (!out_of_runs() || fails) cache_[indices] = fails;
    return fails;
  }

  static SimWorkloadPlan Select(const SimWorkloadPlan& base,
                                const std::vector<int>& indices) {
    SimWorkloadPlan plan = base;
    plan.clear_ops();
    for (int i : indices) *plan.add_ops() = base.ops(i);
    return plan;
  }

  const std::string& last_detail() const { return last_detail_; }

 private:
  const SimRunSpec& spec_;
  const std::string invariant_;
  const ShrinkOptions options_;
  ShrinkResult* const result_;
  std::map<std::vector<int>, bool> cache_;
  std::string signature_;
  std::string last_detail_;
};

std::vector<std::vector<int>> Split(const std::vector<int>& ops, size_t n) {
  std::vector<std::vector<int>> chunks;
  const size_t size = ops.size();
  size_t start = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t end = start + (size - start) / (n - k);
    chunks.emplace_back(ops.begin() + start, ops.begin() + end);
    start = end;
  }
  return chunks;
}

std::vector<int> Complement(const std::vector<int>& ops,
                            const std::vector<int>& chunk) {
  std::vector<int> out;
  std::set_difference(ops.begin(), ops.end(), chunk.begin(), chunk.end(),
                      std::back_inserter(out));
  return out;
}

// ddmin (Zeller & Hildebrandt) over op indices; candidates are normalised
// with WellFormedOps before they are tried.
std::vector<int> DeltaDebug(const SimWorkloadPlan& plan, std::vector<int> ops,
                            Oracle* oracle) {
  size_t n = 2;
  while (ops.size() >= 2 && !oracle->out_of_runs()) {
    n = std::min(n, ops.size());
    const std::vector<std::vector<int>> chunks = Split(ops, n);
    bool reduced = false;
    for (const std::vector<int>& chunk : chunks) {
      const std::vector<int> c = WellFormedOps(plan, chunk);
      if (c.size() < ops.size() && oracle->FailsWithOps(plan, c)) {
        ops = c;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && n > 2) {
      for (const std::vector<int>& chunk : chunks) {
        const std::vector<int> c = WellFormedOps(plan, Complement(ops, chunk));
        if (c.size() < ops.size() && oracle->FailsWithOps(plan, c)) {
          ops = c;
          n = std::max<size_t>(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= ops.size()) break;
      n = std::min(2 * n, ops.size());
    }
  }
  return ops;
}

// Tries `edit` on a copy of `*plan`; keeps it if the plan still fails.
template <typename Edit>
bool TryEdit(SimWorkloadPlan* plan, Oracle* oracle, Edit edit) {
  SimWorkloadPlan candidate = *plan;
  if (!edit(&candidate)) return false;
  if (!oracle->Fails(candidate)) return false;
  *plan = std::move(candidate);
  oracle->CountSimplification();
  return true;
}

template <typename Field>
void DropEach(SimWorkloadPlan* plan, Oracle* oracle, int op_index,
              Field field) {
  for (int i = field(plan->mutable_ops(op_index))->size() - 1; i >= 0; --i) {
    if (oracle->out_of_runs()) return;
    TryEdit(plan, oracle, [&](SimWorkloadPlan* c) {
      auto* list = field(c->mutable_ops(op_index));
      if (i >= list->size()) return false;
      list->erase(list->begin() + i);
      return true;
    });
  }
}

// Phase 2: no unused graphs, smaller imports and runs.
void SimplifyOps(SimWorkloadPlan* plan, Oracle* oracle) {
  TryEdit(plan, oracle, [](SimWorkloadPlan* c) {
    std::set<std::string> used;
    for (const SimOp& op : c->ops()) used.insert(op.graph());
    auto* graphs = c->mutable_graphs();
    const int before = graphs->size();
    for (int g = graphs->size() - 1; g >= 0; --g) {
      if (used.count((*graphs)[g].name()) == 0)
        graphs->erase(graphs->begin() + g);
    }
    return graphs->size() < before;
  });
  for (int k = 0; k < plan->ops_size() && !oracle->out_of_runs(); ++k) {
    const SimOp::Kind kind = plan->ops(k).kind();
    if (kind == SimOp::IMPORT) {
      for (int i = plan->ops(k).graph_def().node_size() - 1; i >= 0; --i) {
        if (oracle->out_of_runs()) return;
        TryEdit(plan, oracle, [&](SimWorkloadPlan* c) {
          SimOp* op = c->mutable_ops(k);
          auto* nodes = op->mutable_graph_def()->mutable_node();
          if (i >= nodes->size()) return false;
          const std::string name = (*nodes)[i].name();
          nodes->erase(nodes->begin() + i);
          auto* faults = op->mutable_faults();
          for (int f = faults->size() - 1; f >= 0; --f) {
            if ((*faults)[f].node() == name) faults->erase(faults->begin() + f);
          }
          return true;
        });
      }
      DropEach(plan, oracle, k, [](SimOp* op) { return op->mutable_faults(); });
    }
    if (kind == SimOp::RUN || kind == SimOp::PRUN_SETUP ||
        kind == SimOp::PRUN) {
      DropEach(plan, oracle, k,
               [](SimOp* op) { return op->mutable_fetches(); });
      DropEach(plan, oracle, k,
               [](SimOp* op) { return op->mutable_targets(); });
      DropEach(plan, oracle, k, [](SimOp* op) { return op->mutable_feeds(); });
    }
  }
}

}  // namespace

std::string FailureSignature(const SimInvariantFailure& failure) {
  const std::string& d = failure.detail;
  std::string line = d.substr(0, d.find('\n'));
  std::string out;
  int depth = 0;
  for (char ch : line) {
    if (ch == '(') {
      ++depth;
      continue;
    }
    if (ch == ')' && depth > 0) {
      --depth;
      continue;
    }
    if (depth > 0) continue;
    out.push_back(ch >= '0' && ch <= '9' ? '#' : ch);
  }
  // Runs of '#' and spaces left by removed groups collapse.
  std::string compact;
  for (char ch : out) {
    if (!compact.empty() && ch == compact.back() && (ch == '#' || ch == ' ')) {
      continue;
    }
    compact.push_back(ch);
  }
  size_t cut = compact.find(':');
  if (cut != std::string::npos) cut = compact.find(':', cut + 1);
  if (cut != std::string::npos) compact.resize(cut);
  while (!compact.empty() && compact.back() == ' ') compact.pop_back();
  return absl::StrCat(failure.invariant, ": ", compact);
}

std::vector<int> WellFormedOps(const SimWorkloadPlan& plan,
                               const std::vector<int>& keep) {
  std::set<std::string> graphs;  // Created, TF_DeleteGraph not yet called.
  std::map<std::string, SessionState> sessions;  // Created, not deleted.
  std::map<std::string, std::string> pruns;      // prun -> session.
  std::vector<int> out;
  for (int i : keep) {
    if (i < 0 || i >= plan.ops_size()) continue;
    const SimOp& op = plan.ops(i);
    const bool graph_ok = graphs.count(op.graph()) > 0;
    auto session = sessions.find(op.session());
    const bool session_ok = session != sessions.end();
    bool ok = false;
    switch (op.kind()) {
      case SimOp::NEW_GRAPH:
        ok = !graph_ok;
        if (ok) graphs.insert(op.graph());
        break;
      case SimOp::IMPORT:
        ok = graph_ok;
        break;
      case SimOp::NEW_SESSION:
        ok = graph_ok && !session_ok;
        if (ok) sessions[op.session()] = SessionState();
        break;
      case SimOp::RUN:
        ok = session_ok && (!op.on_closed_session() || session->second.closed);
        break;
      case SimOp::PRUN_SETUP:
        ok = session_ok && pruns.count(op.prun()) == 0 &&
             (!op.on_closed_session() || session->second.closed);
        if (ok) pruns[op.prun()] = op.session();
        break;
      case SimOp::PRUN: {
        auto p = pruns.find(op.prun());
        ok = session_ok && p != pruns.end() && p->second == op.session() &&
             (!op.on_closed_session() || session->second.closed);
        break;
      }
      case SimOp::CLOSE_SESSION:
        ok = session_ok;
        if (ok) session->second.closed = true;
        break;
      case SimOp::DELETE_SESSION:
        ok = session_ok;
        if (ok) {
          sessions.erase(session);
          for (auto p = pruns.begin(); p != pruns.end();) {
            p = p->second == op.session() ? pruns.erase(p) : std::next(p);
          }
        }
        break;
      case SimOp::DELETE_GRAPH:
        ok = graph_ok;
        if (ok) graphs.erase(op.graph());
        break;
      default:
        ok = false;
        break;
    }
    if (ok) out.push_back(i);
  }
  return out;
}

absl::Status ShrinkPlan(const SimRunSpec& spec, const std::string& invariant,
                        const ShrinkOptions& options, ShrinkResult* result) {
  *result = ShrinkResult();
  result->invariant = invariant;
  if (spec.workload != kMultiClientWorkload) {
    return absl::InvalidArgumentError(
        absl::StrCat("only plan-driven workloads shrink; '", spec.workload,
                     "' has no plan"));
  }
  SimWorkloadPlan plan;
  if (spec.plan.empty() || !plan.ParseFromString(spec.plan)) {
    return absl::InvalidArgumentError("the spec carries no parseable plan");
  }
  result->original_ops = plan.ops_size();
  Oracle oracle(spec, invariant, options, result);
  if (!oracle.Fails(plan)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the plan does not fail invariant '", invariant,
                     "': nothing to shrink"));
  }
  std::string detail = oracle.last_detail();
  result->signature = oracle.signature();

  std::vector<int> all(plan.ops_size());
  for (int i = 0; i < plan.ops_size(); ++i) all[i] = i;
  std::vector<int> kept = WellFormedOps(plan, all);
  if (kept.size() < all.size() && !oracle.FailsWithOps(plan, kept)) {
    kept = all;  // The original is not self-contained; shrink it as is.
  }
  kept = DeltaDebug(plan, kept, &oracle);
  SimWorkloadPlan reduced = Oracle::Select(plan, kept);
  if (oracle.Fails(reduced)) detail = oracle.last_detail();
  if (options.shrink_graphs) {
    SimplifyOps(&reduced, &oracle);
    if (oracle.Fails(reduced)) detail = oracle.last_detail();
  }
  result->plan = std::move(reduced);
  result->failure_detail = detail;
  return absl::OkStatus();
}

}  // namespace stepflow
