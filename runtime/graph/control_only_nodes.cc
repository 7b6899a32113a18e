#include "runtime/graph/control_only_nodes.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

bool PlainType(DataType t) { return !IsRefType(t) && t != DT_RESOURCE; }

// A call of a library function, or an op that takes functions as attrs.
bool CallsFunction(const Node& n,
                   const absl::flat_hash_set<std::string>& functions) {
  if (functions.contains(n.type_string())) return true;
  for (const auto& [name, value] : n.def().attr()) {
    if (value.has_func() || value.list().func_size() > 0) return true;
  }
  return false;
}

bool Replaceable(const Node* n,
                 const absl::flat_hash_set<std::string>& functions,
                 const absl::flat_hash_set<std::string>& preserve) {
  if (!n->IsOp() || n->IsNoOp() || n->IsStateful() || n->IsControlFlow() ||
      n->IsPlaceholder() || n->IsSend() || n->IsRecv() || n->IsArg() ||
      n->IsRetval() || n->IsControlTrigger() || n->num_outputs() == 0) {
    return false;
  }
  if (CallsFunction(*n, functions)) return false;  // Its body may have effects.
  for (DataType t : n->input_types()) {
    if (!PlainType(t)) return false;
  }
  for (DataType t : n->output_types()) {
    if (!PlainType(t)) return false;
  }
  for (const Edge* e : n->out_edges()) {
    if (!e->IsControlEdge()) return false;
  }
  for (const Edge* e : n->in_edges()) {
    if (e->src()->IsControlFlow()) return false;
  }
  if (!n->requested_device().empty()) {
    DeviceNameUtils::ParsedName parsed;
    if (!DeviceNameUtils::ParseFullName(n->requested_device(), &parsed) ||
        (parsed.has_type && parsed.type != "CPU")) {
      return false;
    }
  }
  return !preserve.contains(n->name());
}

}  // namespace

absl::StatusOr<int> ConvertControlOnlyNodesToNoOps(
    Graph* g, const absl::flat_hash_set<std::string>& preserve) {
  // Candidates in id order first (popped from the back), then producers
  // pushed as their last data consumer goes.
  std::vector<int> work;
  for (int id = g->num_node_ids() - 1; id >= 0; --id) {
    if (g->FindNodeId(id) != nullptr) work.push_back(id);
  }
  absl::flat_hash_set<std::string> functions;
  for (const FunctionDef& f : g->library().function()) {
    functions.insert(f.signature().name());
  }
  int replaced = 0;
  while (!work.empty()) {
    Node* n = g->FindNodeId(work.back());
    work.pop_back();
    if (n == nullptr || !Replaceable(n, functions, preserve)) continue;

    std::vector<Node*> ins, outs, data_producers;
    for (const Edge* e : n->in_edges()) {
      ins.push_back(e->src());
      if (!e->IsControlEdge()) data_producers.push_back(e->src());
    }
    for (const Edge* e : n->out_edges()) outs.push_back(e->dst());

    NodeDef def;
    def.set_name(n->name());
    def.set_op("NoOp");
    def.set_device(n->requested_device());
    for (const Node* src : ins) {
      const std::string input = absl::StrCat("^", src->name());
      if (src->IsOp() && std::find(def.input().begin(), def.input().end(),
                                   input) == def.input().end()) {
        def.add_input(input);
      }
    }
    g->RemoveNode(n);
    absl::StatusOr<Node*> noop = g->AddNode(std::move(def));
    if (!noop.ok()) {
      return absl::InternalError(
          absl::StrCat("replacing a node nobody reads with a NoOp: ",
                       noop.status().message()));
    }
    for (Node* src : ins) g->AddControlEdge(src, *noop);
    for (Node* dst : outs) g->AddControlEdge(*noop, dst);
    for (Node* src : data_producers) {
      if (src->IsOp()) work.push_back(src->id());
    }
    ++replaced;
  }
  return replaced;
}

}  // namespace stepflow
