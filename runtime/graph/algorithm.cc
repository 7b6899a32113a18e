#include "runtime/graph/algorithm.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {
namespace {

struct Work {
  Node* node;
  bool leave;  // True: all children are done; call `leave`.
};

// Sorts `nodes` by `cmp` (or id) and pushes them onto `stack` in reverse,
// so the first in order is popped first.
void PushInOrder(std::vector<Node*>* nodes, const NodeComparator& cmp,
                 std::vector<Work>* stack) {
  if (cmp) {
    std::stable_sort(nodes->begin(), nodes->end(), cmp);
  } else {
    std::stable_sort(nodes->begin(), nodes->end(), NodeComparatorID());
  }
  for (auto it = nodes->rbegin(); it != nodes->rend(); ++it) {
    stack->push_back(Work{*it, false});
  }
}

// Shared iterative DFS; `reverse` walks in-edges instead of out-edges.
void WalkDFS(const Graph& g, std::vector<Node*> start, bool reverse,
             const std::function<void(Node*)>& enter,
             const std::function<void(Node*)>& leave,
             const NodeComparator& cmp) {
  std::vector<bool> visited(g.num_node_ids(), false);
  std::vector<Work> stack;
  // Start nodes are taken in the order given.
  for (auto it = start.rbegin(); it != start.rend(); ++it) {
    if (*it != nullptr) stack.push_back(Work{*it, false});
  }
  std::vector<Node*> next;
  while (!stack.empty()) {
    Work w = stack.back();
    stack.pop_back();
    Node* n = w.node;
    if (w.leave) {
      if (leave) leave(n);
      continue;
    }
    if (n->id() < 0 || n->id() >= static_cast<int>(visited.size()) ||
        visited[n->id()]) {
      continue;
    }
    visited[n->id()] = true;
    if (enter) enter(n);
    stack.push_back(Work{n, true});
    next.clear();
    if (reverse) {
      for (const Edge* e : n->in_edges()) {
        if (!visited[e->src()->id()]) next.push_back(e->src());
      }
    } else {
      for (const Edge* e : n->out_edges()) {
        if (!visited[e->dst()->id()]) next.push_back(e->dst());
      }
    }
    PushInOrder(&next, cmp, &stack);
  }
}

bool IsBackEdge(const Edge* e) {
  return e->src()->IsNextIteration() && e->dst()->IsMerge();
}

std::string FormatCycle(const std::vector<const Node*>& cycle) {
  std::vector<std::string> names;
  names.reserve(cycle.size() + 1);
  for (const Node* n : cycle) names.push_back(FormatNodeName(n->name()));
  if (!cycle.empty()) names.push_back(FormatNodeName(cycle.front()->name()));
  return absl::StrCat("Graph has a cycle: ", absl::StrJoin(names, " -> "));
}

// Given `remaining` (nodes Kahn's algorithm could not order, each with a
// non-back in-edge from another remaining node), returns one cycle in edge
// direction, starting from its smallest-id node.
std::vector<const Node*> FindCycle(const Graph& g,
                                   const std::vector<bool>& remaining) {
  const Node* start = nullptr;
  for (int id = 0; id < g.num_node_ids(); ++id) {
    if (remaining[id] && g.FindNodeId(id) != nullptr) {
      start = g.FindNodeId(id);
      break;
    }
  }
  if (start == nullptr) return {};
  std::vector<int> position(g.num_node_ids(), -1);
  std::vector<const Node*> path;  // Follows in-edges (reverse direction).
  const Node* cur = start;
  while (cur != nullptr && position[cur->id()] < 0) {
    position[cur->id()] = static_cast<int>(path.size());
    path.push_back(cur);
    const Node* pred = nullptr;
    for (const Edge* e : cur->in_edges()) {
      if (!IsBackEdge(e) && remaining[e->src()->id()]) {
        pred = e->src();
        break;
      }
    }
    cur = pred;
  }
  if (cur == nullptr) return {};
  std::vector<const Node*> cycle(path.begin() + position[cur->id()],
                                 path.end());
  std::reverse(cycle.begin(), cycle.end());
  // Rotate so the smallest id comes first (stable presentation).
  auto min_it = std::min_element(
      cycle.begin(), cycle.end(),
      [](const Node* a, const Node* b) { return a->id() < b->id(); });
  std::rotate(cycle.begin(), min_it, cycle.end());
  return cycle;
}

}  // namespace

void DFS(const Graph& g, const std::function<void(Node*)>& enter,
         const std::function<void(Node*)>& leave,
         NodeComparator stable_comparator) {
  WalkDFS(g, {g.source_node()}, /*reverse=*/false, enter, leave,
          stable_comparator);
}

void ReverseDFSFrom(const Graph& g, absl::Span<Node* const> start,
                    const std::function<void(Node*)>& enter,
                    const std::function<void(Node*)>& leave,
                    NodeComparator stable_comparator) {
  WalkDFS(g, std::vector<Node*>(start.begin(), start.end()),
          /*reverse=*/true, enter, leave, stable_comparator);
}

void GetPostOrder(const Graph& g, std::vector<Node*>* order,
                  NodeComparator stable_comparator) {
  order->clear();
  DFS(
      g, nullptr, [order](Node* n) { order->push_back(n); },
      std::move(stable_comparator));
}

void GetReversePostOrder(const Graph& g, std::vector<Node*>* order,
                         NodeComparator stable_comparator) {
  GetPostOrder(g, order, std::move(stable_comparator));
  std::reverse(order->begin(), order->end());
}

absl::Status TopologicalSort(const Graph& g, std::vector<Node*>* order) {
  order->clear();
  std::vector<int> pending(g.num_node_ids(), 0);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (Node* n : g.nodes()) {
    int count = 0;
    for (const Edge* e : n->in_edges()) {
      if (!IsBackEdge(e)) ++count;
    }
    pending[n->id()] = count;
    if (count == 0) ready.push(n->id());
  }
  while (!ready.empty()) {
    Node* n = g.FindNodeId(ready.top());
    ready.pop();
    order->push_back(n);
    for (const Edge* e : n->out_edges()) {
      if (IsBackEdge(e)) continue;
      if (--pending[e->dst()->id()] == 0) ready.push(e->dst()->id());
    }
  }
  if (static_cast<int>(order->size()) == g.num_nodes()) {
    return absl::OkStatus();
  }
  std::vector<bool> remaining(g.num_node_ids(), false);
  for (Node* n : g.nodes()) remaining[n->id()] = pending[n->id()] > 0;
  std::vector<const Node*> cycle = FindCycle(g, remaining);
  if (cycle.empty()) {
    return absl::InvalidArgumentError("Graph has a cycle");
  }
  return absl::InvalidArgumentError(FormatCycle(cycle));
}

absl::Status ValidateGraphHasNoCycle(const Graph& g) {
  std::vector<Node*> order;
  return TopologicalSort(g, &order);
}

bool PruneForReverseReachability(Graph* g, std::vector<const Node*> start) {
  std::vector<bool> reached(g->num_node_ids(), false);
  std::vector<const Node*> queue;
  for (const Node* n : start) {
    if (n == nullptr || g->FindNodeId(n->id()) != n || reached[n->id()]) {
      continue;
    }
    reached[n->id()] = true;
    queue.push_back(n);
  }
  for (size_t i = 0; i < queue.size(); ++i) {
    for (const Edge* e : queue[i]->in_edges()) {
      const Node* src = e->src();
      if (!reached[src->id()]) {
        reached[src->id()] = true;
        queue.push_back(src);
      }
    }
  }
  bool changed = false;
  for (Node* n : g->op_nodes()) {
    if (!reached[n->id()]) {
      g->RemoveNode(n);
      changed = true;
    }
  }
  return changed;
}

bool FixupSourceAndSinkEdges(Graph* g) {
  bool changed = false;
  Node* source = g->source_node();
  Node* sink = g->sink_node();
  for (Node* n : g->op_nodes()) {
    if (n->in_edges().empty()) {
      g->AddControlEdge(source, n);
      changed = true;
    }
    if (n->out_edges().empty()) {
      g->AddControlEdge(n, sink);
      changed = true;
    }
  }
  return changed;
}

}  // namespace stepflow
