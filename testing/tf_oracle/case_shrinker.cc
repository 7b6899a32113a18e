#include "testing/tf_oracle/case_shrinker.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_split.h"
#include "proto/attr_value.pb.h"

namespace stepflow {
namespace oracle {
namespace {

using graph_testing::DifferentialGraph;

// "^x" -> "x", "x:1" -> "x".
std::string NodeOf(const std::string& input) {
  std::string s = input;
  if (!s.empty() && s[0] == '^') s = s.substr(1);
  const size_t colon = s.rfind(':');
  if (colon != std::string::npos) s = s.substr(0, colon);
  return s;
}

// Ops a fed constant cannot stand for: sources already, state, and the
// loop and switch machinery (an Exit or a cond's Merge is a plain value
// outside its frame and may be cut).
bool NeverCut(const std::string& op) {
  static const auto* ops = new std::set<std::string>{
      "Placeholder", "Const",  "VariableV2", "Assign",        "AssignAdd",
      "NoOp",        "Switch", "Enter",      "NextIteration", "LoopCond"};
  return ops->count(op) > 0;
}

// Per node: inside a loop frame, or downstream of a variable.
struct NodeFacts {
  int frame_depth = 0;
  bool after_variable = false;
};

std::map<std::string, NodeFacts> Facts(const GraphDef& graph) {
  std::map<std::string, NodeFacts> facts;
  // GraphDef order is the generator's creation order: every input comes
  // first except NextIteration back edges, which Merge's Enter input
  // already decides.
  for (const NodeDef& n : graph.node()) {
    NodeFacts f;
    bool first_data = true;
    for (const std::string& in : n.input()) {
      auto it = facts.find(NodeOf(in));
      if (it == facts.end()) continue;
      f.after_variable |= it->second.after_variable;
      if (in[0] != '^' && first_data) {
        f.frame_depth = it->second.frame_depth;
        first_data = false;
      }
    }
    if (n.op() == "Enter") ++f.frame_depth;
    if (n.op() == "Exit") --f.frame_depth;
    if (n.op() == "VariableV2") f.after_variable = true;
    facts[n.name()] = f;
  }
  return facts;
}

// Whether every consumer of `name` reads its output 0.
bool OnlyOutputZeroUsed(const GraphDef& graph, const std::string& name,
                        const std::vector<std::string>& fetches) {
  auto bad = [&](const std::string& in) {
    if (in.empty() || in[0] == '^' || NodeOf(in) != name) return false;
    return in != name && in != name + ":0";
  };
  for (const NodeDef& n : graph.node()) {
    for (const std::string& in : n.input()) {
      if (bad(in)) return false;
    }
  }
  for (const std::string& f : fetches) {
    if (bad(f)) return false;
  }
  return true;
}

// `g` with node `name` replaced by a Placeholder fed `value`.
DifferentialGraph Cut(const DifferentialGraph& g, const std::string& name,
                      const Tensor& value) {
  DifferentialGraph out = g;
  for (NodeDef& n : *out.graph.mutable_node()) {
    if (n.name() != name) continue;
    n.Clear();
    n.set_name(name);
    n.set_op("Placeholder");
    (*n.mutable_attr())["dtype"].set_type(value.dtype());
    (*n.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
  }
  out.feeds.emplace_back(name, value);
  // A cut node that was fetched is fetched no more (fed and fetched).
  std::vector<std::string> fetches;
  for (const std::string& f : out.fetches) {
    if (NodeOf(f) != name) fetches.push_back(f);
  }
  out.fetches = fetches;
  PruneDifferentialGraph(&out);
  return out;
}

bool Disagrees(const absl::Status& s) {
  return s.code() == absl::StatusCode::kFailedPrecondition;
}

}  // namespace

void PruneDifferentialGraph(DifferentialGraph* g) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : g->graph.node()) by_name[n.name()] = &n;
  std::set<std::string> keep;
  auto close_over = [&](std::vector<std::string> stack) {
    while (!stack.empty()) {
      const std::string name = stack.back();
      stack.pop_back();
      if (!keep.insert(name).second) continue;
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;
      for (const std::string& in : it->second->input())
        stack.push_back(NodeOf(in));
    }
  };
  std::vector<std::string> roots;
  for (const std::string& f : g->fetches) roots.push_back(NodeOf(f));
  close_over(roots);
  // The init target keeps only the initialisers of variables still used.
  std::vector<std::string> init_inputs;
  for (NodeDef& n : *g->graph.mutable_node()) {
    if (n.name() != "init") continue;
    for (const std::string& in : n.input()) {
      auto it = by_name.find(NodeOf(in));
      if (it != by_name.end() && it->second->input_size() > 0 &&
          keep.count(NodeOf(it->second->input(0))) > 0) {
        init_inputs.push_back(in);
      }
    }
    n.clear_input();
    for (const std::string& in : init_inputs) n.add_input(in);
  }
  if (!init_inputs.empty()) {
    close_over({"init"});
  } else {
    g->init_targets.clear();
  }
  GraphDef pruned;
  *pruned.mutable_versions() = g->graph.versions();
  bool has_variable = false;
  for (const NodeDef& n : g->graph.node()) {
    if (keep.count(n.name()) == 0) continue;
    *pruned.add_node() = n;
    has_variable |= n.op() == "VariableV2";
  }
  g->graph = std::move(pruned);
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (auto& f : g->feeds) {
    if (keep.count(NodeOf(f.first)) > 0) feeds.push_back(std::move(f));
  }
  g->feeds = std::move(feeds);
  if (!has_variable) g->steps = 1;
}

absl::Status ShrinkDisagreement(const ShrinkHooks& hooks,
                                DifferentialGraph* g) {
  // 1. One step, if that is enough to disagree (then nodes downstream of
  // variables can be cut too).
  if (g->steps > 1) {
    DifferentialGraph one = *g;
    one.steps = 1;
    const absl::Status s = hooks.judge(one);
    if (Disagrees(s)) {
      *g = std::move(one);
    } else if (!s.ok()) {
      return s;
    }
  }
  // 2. The fetch that disagrees with the smallest graph behind it.
  if (g->fetches.size() > 1) {
    std::optional<DifferentialGraph> best;
    for (const std::string& f : g->fetches) {
      DifferentialGraph one = *g;
      one.fetches = {f};
      PruneDifferentialGraph(&one);
      if (best.has_value() &&
          one.graph.node_size() >= best->graph.node_size()) {
        continue;
      }
      const absl::Status s = hooks.judge(one);
      if (Disagrees(s)) {
        best = std::move(one);
      } else if (!s.ok()) {
        return s;
      }
    }
    if (best.has_value()) *g = std::move(*best);
  }
  // 3. Cuts, latest nodes first, until a whole pass changes nothing.
  std::set<std::string> tried;
  bool changed = true;
  while (changed) {
    changed = false;
    const std::map<std::string, NodeFacts> facts = Facts(g->graph);
    std::vector<std::string> order;
    for (const NodeDef& n : g->graph.node()) order.push_back(n.name());
    std::reverse(order.begin(), order.end());
    for (const std::string& name : order) {
      const NodeDef* node = nullptr;
      for (const NodeDef& n : g->graph.node()) {
        if (n.name() == name) node = &n;
      }
      if (node == nullptr || NeverCut(node->op()) || tried.count(name) > 0)
        continue;
      const NodeFacts& f = facts.at(name);
      if (f.frame_depth != 0 || (f.after_variable && g->steps > 1)) continue;
      if (!OnlyOutputZeroUsed(g->graph, name, g->fetches)) continue;
      tried.insert(name);
      std::vector<Tensor> values;
      if (!hooks.evaluate(*g, {name + ":0"}, &values).ok() ||
          values.size() != 1) {
        continue;  // Dead, failing or not a plain value: leave it.
      }
      DifferentialGraph cut = Cut(*g, name, values[0]);
      if (cut.fetches.empty()) continue;
      const absl::Status s = hooks.judge(cut);
      if (Disagrees(s)) {
        *g = std::move(cut);
        changed = true;
        break;  // Facts and order are stale now.
      }
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace oracle
}  // namespace stepflow
