// TF_AddGradients / TF_AddGradientsWithPrefix: symbolic gradients of the
// sum of the `y` tensors with respect to the `x` tensors, added to the graph
// as operations built by the gradient registry (gradient_registry.h).
//
// Semantics (TensorFlow's):
//   - The initial gradients of y are `dx` (TensorFlow's name for them), or
//     OnesLike(y) when dx is NULL.
//   - Gradients flow backwards along data edges through the operations
//     that lie on a path from some x to some y. An operation's gradient
//     function runs once all its consumers on such paths have sent theirs;
//     several gradients of one tensor are added (AddN); an output nothing
//     flowed back to gets ZerosLike. An op registered without a gradient
//     stops the flow (its inputs get none); if no gradient reaches an x
//     its result is {NULL, -1}.
//   - Errors: InvalidArgument for a prefix that names or prefixes an
//     existing operation, or an x that is unreachable from the y's
//     ("Cannot compute the partial derivative for node '<x>' as it's
//     unreachable from the output node(s)."); NotFound ("No gradient
//     defined for op: <type>. ...") for an op on a path without a
//     registered gradient. Operations added before an error stay in the
//     graph, as in TensorFlow.
//   - New operations are named "<scope>/..." where the scope is the prefix,
//     or "gradients" made unique ("gradients_1", ...).
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/c/gradient_builder.h"
#include "runtime/c/gradient_registry.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace c_api {
namespace {

// What backpropagation needs of one operation on an x -> y path, read
// under the graph's lock before any operation is added.
struct PathNode {
  int id = 0;
  std::string type;
  int num_outputs = 0;
  // Data inputs by slot: (source, source output); source null when the
  // source is not on a path.
  std::vector<std::pair<const Node*, int>> inputs;
  int pending = 0;  // Consumers on paths that have not sent gradients.
};

using TensorKey = std::pair<const Node*, int>;

class SymbolicGradients {
 public:
  SymbolicGradients(TF_Graph* g, std::string scope)
      : g_(g), b_(g, std::move(scope)) {}

  absl::Status Run(const std::vector<TF_Output>& y,
                   const std::vector<TF_Output>& x, const TF_Output* initial,
                   TF_Output* result) {
    absl::Status s = Prepare(y, x);
    if (!s.ok()) return s;
    for (size_t i = 0; i < y.size(); ++i) {
      TF_Output g = initial != nullptr ? initial[i] : b_.OnesLike(y[i]);
      if (!b_.status().ok()) return b_.status();
      grads_[Key(y[i])].push_back(g);
    }
    std::deque<const Node*> ready;
    for (const auto& entry : path_) {
      if (entry.second.pending == 0) ready.push_back(entry.first);
    }
    while (!ready.empty()) {
      const Node* n = ready.front();
      ready.pop_front();
      PathNode& info = path_[n];
      std::vector<TF_Output> dx(info.inputs.size(), NoGradient());
      if (!x_nodes_.count(n) || HasPathInputs(info)) {
        s = Backprop(n, info, &dx);
        if (!s.ok()) return s;
      }
      for (size_t k = 0; k < info.inputs.size(); ++k) {
        const Node* src = info.inputs[k].first;
        if (src == nullptr) continue;
        grads_[{src, info.inputs[k].second}].push_back(dx[k]);
        if (--path_[src].pending == 0) ready.push_back(src);
      }
    }
    b_.set_op_scope("");
    for (size_t i = 0; i < x.size(); ++i) {
      result[i] = Sum(Key(x[i]), /*zeros_if_none=*/false);
      if (!b_.status().ok()) return b_.status();
    }
    return absl::OkStatus();
  }

 private:
  static TensorKey Key(const TF_Output& t) { return {ToNode(t.oper), t.index}; }

  static bool HasPathInputs(const PathNode& info) {
    for (const auto& in : info.inputs) {
      if (in.first != nullptr) return true;
    }
    return false;
  }

  // Finds the operations on x -> y paths and what they need.
  absl::Status Prepare(const std::vector<TF_Output>& y,
                       const std::vector<TF_Output>& x) {
    absl::ReaderMutexLock l(&g_->mu);
    for (const TF_Output& t : y) {
      if (!IsTensor(t)) {
        return absl::InvalidArgumentError(
            "TF_AddGradients: y names no output of an operation in the graph");
      }
    }
    for (const TF_Output& t : x) {
      if (!IsTensor(t)) {
        return absl::InvalidArgumentError(
            "TF_AddGradients: x names no output of an operation in the graph");
      }
    }
    // Backwards from y along data edges.
    std::set<const Node*> back;
    std::vector<const Node*> stack;
    for (const TF_Output& t : y) stack.push_back(ToNode(t.oper));
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (!back.insert(n).second) continue;
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControlEdge() && e->src()->IsOp()) stack.push_back(e->src());
      }
    }
    for (const TF_Output& t : x) {
      const Node* n = ToNode(t.oper);
      if (back.count(n) == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Cannot compute the partial derivative for node '", n->name(),
            "' as it's unreachable from the output node(s)."));
      }
      x_nodes_.insert(n);
    }
    // Forwards from x within `back`: the operations on paths.
    std::set<const Node*> on_path;
    for (const Node* n : x_nodes_) stack.push_back(n);
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (!on_path.insert(n).second) continue;
      for (const Edge* e : n->out_edges()) {
        if (!e->IsControlEdge() && back.count(e->dst())) {
          stack.push_back(e->dst());
        }
      }
    }
    // The y's are on paths too (their initial gradient must reach x).
    for (const Node* n : on_path) {
      PathNode& info = path_[n];
      info.id = n->id();
      info.type = n->type_string();
      info.num_outputs = n->num_outputs();
      info.inputs.assign(n->num_inputs(), {nullptr, 0});
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge() || on_path.count(e->src()) == 0) continue;
        info.inputs[e->dst_input()] = {e->src(), e->src_output()};
        ++path_[e->src()].pending;
      }
    }
    return absl::OkStatus();
  }

  bool IsTensor(const TF_Output& t) const ABSL_SHARED_LOCKS_REQUIRED(g_->mu) {
    const Node* n = ToNode(t.oper);
    return n != nullptr && InGraph(*g_, n) && t.index >= 0 &&
           t.index < n->num_outputs();
  }

  // The gradient of tensor `key`: the sum of what flowed back (NoGradient
  // entries left out); ZerosLike when nothing did and zeros_if_none,
  // NoGradient otherwise.
  TF_Output Sum(const TensorKey& key, bool zeros_if_none) {
    std::vector<TF_Output> kept;
    bool reached = false;
    auto it = grads_.find(key);
    if (it != grads_.end()) {
      for (const TF_Output& g : it->second) {
        reached = true;
        if (!IsNoGradient(g)) kept.push_back(g);
      }
    }
    TF_Output t{ToOperation(const_cast<Node*>(key.first)), key.second};
    if (kept.empty()) {
      return zeros_if_none && !reached ? b_.ZerosLike(t) : NoGradient();
    }
    return b_.AddN(kept);
  }

  absl::Status Backprop(const Node* n, const PathNode& info,
                        std::vector<TF_Output>* dx) {
    GradFn fn = nullptr;
    absl::Status s = LookupGradient(info.type, &fn);
    if (!s.ok()) return s;
    if (fn == nullptr) return absl::OkStatus();  // No gradient: stop here.
    b_.set_op_scope(n->name());
    std::vector<TF_Output> dy;
    bool any = false;
    for (int i = 0; i < info.num_outputs; ++i) {
      dy.push_back(Sum({n, i}, /*zeros_if_none=*/true));
      any = any || !IsNoGradient(dy.back());
    }
    if (!any) return b_.status();  // Only NoGradient arrived.
    TF_Operation* op = ToOperation(const_cast<Node*>(n));
    for (int i = 0; i < info.num_outputs; ++i) {
      if (IsNoGradient(dy[i])) dy[i] = b_.ZerosLike(TF_Output{op, i});
    }
    if (!b_.status().ok()) return b_.status();
    fn(b_, op, dy, dx);
    if (!b_.status().ok()) return b_.status();
    if (dx->size() != info.inputs.size()) {
      return absl::InternalError(absl::StrCat(
          "gradient function of ", info.type, " returned ", dx->size(),
          " gradients for ", info.inputs.size(), " inputs"));
    }
    return absl::OkStatus();
  }

  TF_Graph* g_;
  GradBuilder b_;
  // Keyed in node id order, never by pointer value, so the order gradient
  // operations are added in (and their names) is stable.
  struct ById {
    bool operator()(const Node* a, const Node* b) const {
      return a->id() < b->id();
    }
  };
  std::map<const Node*, PathNode, ById> path_;
  std::set<const Node*, ById> x_nodes_;
  std::map<TensorKey, std::vector<TF_Output>> grads_;
};

// The scope for new operations: `prefix` (InvalidArgument if it names or
// prefixes an operation) or a unique "gradients".
absl::Status GradientScope(TF_Graph* g, const char* prefix,
                           std::string* scope) {
  absl::ReaderMutexLock l(&g->mu);
  if (prefix == nullptr) {
    *scope = UniqueScope(g->graph, "gradients");
    return absl::OkStatus();
  }
  const std::string p = prefix;
  for (const Node* n : g->graph.op_nodes()) {
    if (n->name() == p || absl::StartsWith(n->name(), p + "/")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "prefix [", p, "] conflicts with existing node in the graph named [",
          n->name(), "]"));
    }
  }
  *scope = p;
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

extern "C" {

void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x, int nx,
                     TF_Output* dx, TF_Status* status, TF_Output* dy) {
  TF_AddGradientsWithPrefix(g, nullptr, y, ny, x, nx, dx, status, dy);
}

void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix, TF_Output* y,
                               int ny, TF_Output* x, int nx, TF_Output* dx,
                               TF_Status* status, TF_Output* dy) {
  namespace c_api = stepflow::c_api;
  if (g == nullptr || ny < 0 || nx < 0 || (ny > 0 && y == nullptr) ||
      (nx > 0 && (x == nullptr || dy == nullptr))) {
    c_api::Set(status, absl::InvalidArgumentError(
                           "TF_AddGradients: graph, y, x and dy are required"));
    return;
  }
  std::string scope;
  absl::Status s = c_api::GradientScope(g, prefix, &scope);
  if (s.ok()) {
    c_api::SymbolicGradients grads(g, scope);
    std::vector<TF_Output> result(nx, c_api::NoGradient());
    s = grads.Run(std::vector<TF_Output>(y, y + ny),
                  std::vector<TF_Output>(x, x + nx), dx, result.data());
    if (s.ok()) {
      for (int i = 0; i < nx; ++i) dy[i] = result[i];
    }
  }
  c_api::Set(status, std::move(s));
}

}  // extern "C"
