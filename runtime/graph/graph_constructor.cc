#include "runtime/graph/graph_constructor.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/message_differencer.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/framework/versions.h"
#include "runtime/function/function_shape_inference.h"
#include "runtime/graph/function_call_op.h"

namespace stepflow {
namespace {

// Makes sure `s` (an error) names `node` and carries `code`.
absl::Status NodeError(absl::StatusCode code, absl::string_view node,
                       absl::string_view message) {
  const std::string tag = FormatNodeName(node);
  if (absl::StrContains(message, tag)) {
    return absl::Status(code, message);
  }
  return absl::Status(code, absl::StrCat(tag, ": ", message));
}

absl::Status InvalidNode(absl::string_view node, absl::string_view message) {
  return NodeError(absl::StatusCode::kInvalidArgument, node, message);
}

bool IsNextIterationOp(absl::string_view op) {
  return op == "NextIteration" || op == "RefNextIteration";
}
bool IsMergeOp(absl::string_view op) {
  return op == "Merge" || op == "RefMerge";
}

absl::Status CheckNodeName(const std::string& name, bool allow_internal) {
  absl::Status s;
  if (allow_internal && !name.empty() && name[0] == '_') {
    // The runtime's own names ("_arg_x_0_0", "_recv_x_0") may start with
    // '_'; otherwise the same character rules apply.
    s = ValidateNodeName(absl::StrCat("a", absl::string_view(name).substr(1)));
  } else {
    s = ValidateNodeName(name);
  }
  if (s.ok()) return s;
  return InvalidNode(name, absl::StrCat("Node name '", name,
                                        "' is not valid: names must match "
                                        "[A-Za-z0-9.][A-Za-z0-9_./-]*"));
}

struct Input {
  std::string node;
  int index = 0;  // kControlSlot for "^node".
};

// A node of the GraphDef, validated but not yet in the graph.
struct Pending {
  NodeDef def;
  const OpDef* op_def = nullptr;
  DataTypeVector input_types;
  DataTypeVector output_types;
  std::vector<Input> inputs;  // Data inputs by slot, then control inputs.
  // Resolved producers: index into pending (>= 0) or an existing node.
  std::vector<int> src_pending;
  std::vector<Node*> src_existing;
};

class Importer {
 public:
  Importer(const GraphConstructorOptions& opts, const GraphDef& gdef, Graph* g,
           ShapeRefiner* refiner)
      : opts_(opts), gdef_(gdef), g_(g), refiner_(refiner) {}

  // Consuming import: the NodeDefs move out of `*gdef` (which keeps its
  // versions and library but loses its nodes, whatever the outcome).
  Importer(const GraphConstructorOptions& opts, GraphDef* gdef, Graph* g,
           ShapeRefiner* refiner)
      : opts_(opts), gdef_(*gdef), g_(g), refiner_(refiner) {
    pending_.resize(gdef->node_size());
    for (int i = 0; i < gdef->node_size(); ++i) {
      pending_[i].def = std::move(*gdef->mutable_node(i));
    }
    // Frees the moved-from NodeDefs too (clear_node would keep them).
    google::protobuf::RepeatedPtrField<NodeDef>().Swap(gdef->mutable_node());
    owns_node_defs_ = true;
  }

  absl::Status Run() {
    absl::Status s = CheckVersions();
    if (!s.ok()) return s;
    s = CheckLibrary();
    if (!s.ok()) return s;
    pending_.resize(num_nodes());
    s = CheckNames();
    if (!s.ok()) return s;
    s = CheckOpsRegistered();
    if (!s.ok()) return s;
    for (int i = 0; i < num_nodes(); ++i) {
      s = PrepareNode(i);
      if (!s.ok()) return s;
    }
    for (int i = 0; i < num_nodes(); ++i) {
      s = ResolveInputs(i);
      if (!s.ok()) return s;
    }
    s = CheckCycles();
    if (!s.ok()) return s;
    return Commit();
  }

 private:
  int num_nodes() const {
    return owns_node_defs_ ? static_cast<int>(pending_.size())
                           : gdef_.node_size();
  }
  // The i-th NodeDef as the GraphDef gave it (before PrepareNode).
  const NodeDef& node(int i) const {
    return owns_node_defs_ ? pending_[i].def : gdef_.node(i);
  }

  absl::Status CheckVersions() {
    absl::Status s = CheckGraphDefVersions(gdef_.versions());
    if (!s.ok()) return absl::InvalidArgumentError(s.message());
    if (g_->num_op_nodes() > 0 &&
        g_->versions().producer() != gdef_.versions().producer()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot import a GraphDef with producer version ",
          gdef_.versions().producer(), " into a graph with producer version ",
          g_->versions().producer()));
    }
    return absl::OkStatus();
  }

  absl::Status CheckLibrary() {
    for (const FunctionDef& f : gdef_.library().function()) {
      for (const FunctionDef& existing : g_->library().function()) {
        if (existing.signature().name() == f.signature().name() &&
            !google::protobuf::util::MessageDifferencer::Equals(existing, f)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Cannot import function '", f.signature().name(),
              "': a different function of that name is already defined"));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckNames() {
    index_.reserve(num_nodes());
    for (int i = 0; i < num_nodes(); ++i) {
      const std::string& name = node(i).name();
      absl::Status s = CheckNodeName(name, opts_.allow_internal_ops);
      if (!s.ok()) return s;
      if (g_->FindNodeByName(name) != nullptr) {
        return InvalidNode(name, absl::StrCat("Node name '", name,
                                              "' already exists in the graph"));
      }
      if (!index_.emplace(name, i).second) {
        return InvalidNode(
            name, absl::StrCat("Duplicate node name '", name, "' in GraphDef"));
      }
    }
    return absl::OkStatus();
  }

  // Names every op type the GraphDef uses that this binary lacks in one
  // error, rather than the first one only. A node that calls a function
  // (its op names a function of the library, or an unregistered op such as
  // StatefulPartitionedCall or StatelessIf takes function attrs) is
  // Unimplemented: a Node needs a registered OpDef. Registered call ops
  // (PartitionedCall, If, While, ...) import like any op and run as call
  // kernels; sessions rewrite a call by function name before importing it
  // (runtime/function/lower_functional_ops.h).
  absl::Status CheckOpsRegistered() {
    struct Use {
      std::string key;  // op type, or function name for calls
      std::string first_node;
      std::string first_op;  // calls: the op of first_node
      int nodes = 0;
    };
    std::vector<Use> missing, calls;
    auto note = [](std::vector<Use>* uses, const std::string& key,
                   const NodeDef& node) {
      for (Use& u : *uses) {
        if (u.key == key) {
          ++u.nodes;
          return;
        }
      }
      uses->push_back(Use{key, node.name(), node.op(), 1});
    };
    const OpRegistry* ops = g_->op_registry();
    for (int i = 0; i < num_nodes(); ++i) {
      const NodeDef& node = this->node(i);
      const std::string& op = node.op();
      // A disallowed internal op is reported as such by PrepareNode.
      if (!opts_.allow_internal_ops && !op.empty() && op[0] == '_') continue;
      pending_[i].op_def = ops->LookUpOrNull(op);
      if (pending_[i].op_def != nullptr) continue;
      if (IsLibraryFunction(op)) {
        if (opts_.allow_function_calls) {
          pending_[i].op_def = FunctionCallOpDef(gdef_.library(), op);
          if (pending_[i].op_def == nullptr) {
            pending_[i].op_def = FunctionCallOpDef(g_->library(), op);
          }
          continue;
        }
        note(&calls, op, node);
        continue;
      }
      const std::vector<std::string> called = CalledFunctions(node);
      if (!called.empty()) {
        for (const std::string& f : called) note(&calls, f, node);
        continue;
      }
      note(&missing, op, node);
    }
    auto used_by = [](const Use& u) {
      std::string s = absl::StrCat("used by ", FormatNodeName(u.first_node));
      if (u.nodes > 1) {
        absl::StrAppend(&s, " and ", u.nodes - 1, " more node",
                        u.nodes > 2 ? "s" : "");
      }
      return s;
    };
    std::string missing_text;
    if (missing.size() == 1) {
      const Use& u = missing.front();
      const std::string similar = ops->SimilarOpName(u.key);
      missing_text = absl::StrCat(
          "Op type not registered '", u.key, "' in this binary, ", used_by(u),
          similar.empty() ? ""
                          : absl::StrCat(" (did you mean '", similar, "'?)"));
    } else if (!missing.empty()) {
      std::vector<std::string> items;
      for (const Use& u : missing) {
        const std::string similar = ops->SimilarOpName(u.key);
        items.push_back(absl::StrCat(
            "'", u.key, "' (", used_by(u),
            similar.empty() ? ""
                            : absl::StrCat("; did you mean '", similar, "'?"),
            ")"));
      }
      missing_text = absl::StrCat("Op types not registered in this binary: ",
                                  absl::StrJoin(items, ", "));
    }
    if (!missing_text.empty()) {
      absl::StrAppend(&missing_text,
                      ". Make sure the Op and Kernel are registered in the "
                      "binary running this process.");
    }
    if (calls.empty()) {
      if (missing.empty()) return absl::OkStatus();
      return absl::NotFoundError(missing_text);
    }
    std::vector<std::string> items;
    for (const Use& u : calls) {
      std::string item = absl::StrCat(FormatNodeName(u.first_node));
      if (u.first_op != u.key) absl::StrAppend(&item, " (", u.first_op, ")");
      absl::StrAppend(&item, " calls function '", u.key, "'");
      if (u.nodes > 1) {
        absl::StrAppend(&item, ", as do ", u.nodes - 1, " more node",
                        u.nodes > 2 ? "s" : "");
      }
      items.push_back(std::move(item));
    }
    return absl::UnimplementedError(absl::StrCat(
        "Function calls are not supported yet by direct graph import: ",
        absl::StrJoin(items, "; "),
        ". A session imports them (it inlines each call or rewrites it into a "
        "StatefulPartitionedCall); otherwise call the function through "
        "PartitionedCall, or inline calls before exporting the graph, e.g. "
        "with TensorFlow's convert_variables_to_constants_v2.",
        missing.empty() ? "" : absl::StrCat(" Also: ", missing_text)));
  }

  bool IsLibraryFunction(const std::string& op) const {
    for (const FunctionDefLibrary* lib : {&gdef_.library(), &g_->library()}) {
      for (const FunctionDef& f : lib->function()) {
        if (f.signature().name() == op) return true;
      }
    }
    return false;
  }

  // The functions named by `node`'s function-valued attrs, in attr-name
  // order (PartitionedCall's "f", If's "then_branch"/"else_branch", ...).
  static std::vector<std::string> CalledFunctions(const NodeDef& node) {
    std::vector<std::string> attr_names;
    for (const auto& [name, value] : node.attr()) attr_names.push_back(name);
    std::sort(attr_names.begin(), attr_names.end());
    std::vector<std::string> functions;
    for (const std::string& name : attr_names) {
      const AttrValue& value = node.attr().at(name);
      if (value.has_func() && !value.func().name().empty()) {
        functions.push_back(value.func().name());
      }
      for (const NameAttrList& f : value.list().func()) {
        if (!f.name().empty()) functions.push_back(f.name());
      }
    }
    return functions;
  }

  // TensorFlow's import check: "loc:@x" must name a node of the GraphDef.
  absl::Status CheckColocation(const NodeDef& def) const {
    auto it = def.attr().find("_class");
    if (it == def.attr().end()) return absl::OkStatus();
    for (const std::string& entry : it->second.list().s()) {
      absl::string_view other = entry;
      if (!absl::ConsumePrefix(&other, "loc:@")) continue;
      if (!index_.contains(other)) {
        return InvalidNode(
            def.name(),
            absl::StrCat(FormatNodeName(def.name()),
                         " expects to be colocated with unknown node '", other,
                         "'"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status PrepareNode(int i) {
    Pending& p = pending_[i];
    if (!owns_node_defs_) p.def = gdef_.node(i);
    const std::string& name = p.def.name();
    const std::string& op = p.def.op();

    if (!opts_.allow_internal_ops && !op.empty() && op[0] == '_') {
      return InvalidNode(name, absl::StrCat("Op '", op,
                                            "' is internal to the runtime and "
                                            "may not appear in a user graph"));
    }
    // CheckOpsRegistered looked the op up already.
    absl::Status s = p.op_def != nullptr
                         ? absl::OkStatus()
                         : g_->op_registry()->LookUp(op, &p.op_def);
    if (!s.ok() || p.op_def == nullptr) {
      std::string msg = s.ok() || !absl::StrContains(s.message(), op)
                            ? absl::StrCat("Op type not registered '", op, "'")
                            : std::string(s.message());
      return NodeError(absl::StatusCode::kNotFound, name, msg);
    }

    // Input syntax: data inputs first, then "^node" control inputs.
    bool seen_control = false;
    std::string last_control;
    for (const std::string& in : p.def.input()) {
      if (in.empty() || in == "^") {
        return InvalidNode(name, "Empty input name");
      }
      if (in[0] == '^') {
        if (in.find(':') != std::string::npos) {
          return InvalidNode(
              name, absl::StrCat("Malformed control input '", in,
                                 "': control inputs name a node, not an "
                                 "output"));
        }
        seen_control = true;
        last_control = in;
        p.inputs.push_back(Input{in.substr(1), kControlSlot});
        continue;
      }
      if (seen_control) {
        return InvalidNode(
            name,
            absl::StrCat("Data input '", in,
                         "' comes after control "
                         "input '",
                         last_control, "': control inputs must come last"));
      }
      TensorId id = ParseTensorName(in);
      if (id.node.empty() || id.index < 0) {
        return InvalidNode(name, absl::StrCat("Malformed input '", in, "'"));
      }
      p.inputs.push_back(Input{id.node, id.index});
    }

    if (opts_.add_default_attributes) AddDefaultsToNodeDef(*p.op_def, &p.def);

    absl::Status types =
        InOutTypesForNode(p.def, *p.op_def, &p.input_types, &p.output_types);
    const int num_data = NumDataInputs(p.def);
    if (types.ok() && num_data != static_cast<int>(p.input_types.size())) {
      return InvalidNode(
          name, absl::StrCat("Op '", op, "' expects ", p.input_types.size(),
                             " inputs but ", FormatNodeName(name), " has ",
                             num_data));
    }
    s = ValidateNodeDef(p.def, *p.op_def);
    if (!s.ok()) return InvalidNode(name, s.message());
    if (!types.ok()) return InvalidNode(name, types.message());
    if (opts_.validate_colocation_constraints) return CheckColocation(p.def);
    return absl::OkStatus();
  }

  absl::Status ResolveInputs(int i) {
    Pending& p = pending_[i];
    const std::string& name = p.def.name();
    p.src_pending.assign(p.inputs.size(), -1);
    p.src_existing.assign(p.inputs.size(), nullptr);
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      const Input& in = p.inputs[k];
      const DataTypeVector* src_types = nullptr;
      auto it = index_.find(in.node);
      if (it != index_.end()) {
        p.src_pending[k] = it->second;
        src_types = &pending_[it->second].output_types;
      } else {
        Node* existing = g_->FindNodeByName(in.node);
        if (existing == nullptr || !existing->IsOp()) {
          return InvalidNode(
              name, absl::StrCat("Unknown input node '", in.node, "'"));
        }
        p.src_existing[k] = existing;
        src_types = &existing->output_types();
      }
      if (in.index == kControlSlot) continue;
      if (in.index >= static_cast<int>(src_types->size())) {
        return InvalidNode(
            name, absl::StrCat("Input ", k, " of ", FormatNodeName(name),
                               " connects to output ", in.index, " of node '",
                               in.node, "' which has ", src_types->size(),
                               " outputs"));
      }
      const DataType actual = (*src_types)[in.index];
      const DataType expected = p.input_types[k];
      if (!TypeCompatible(expected, actual)) {
        return InvalidNode(
            name,
            absl::StrCat("Input ", k, " of ", FormatNodeName(name),
                         " was passed ", DataTypeString(actual), " from ",
                         in.node, ":", in.index, " incompatible with expected ",
                         DataTypeString(expected)));
      }
    }
    return absl::OkStatus();
  }

  // Kahn's algorithm over the new nodes (existing nodes cannot depend on
  // them, so any cycle lies among the new ones).
  absl::Status CheckCycles() {
    const int n = static_cast<int>(pending_.size());
    std::vector<int> indegree(n, 0);
    std::vector<std::vector<int>> consumers(n);
    auto is_back = [this](int src, int dst) {
      return IsNextIterationOp(pending_[src].def.op()) &&
             IsMergeOp(pending_[dst].def.op());
    };
    for (int dst = 0; dst < n; ++dst) {
      for (int src : pending_[dst].src_pending) {
        if (src < 0 || is_back(src, dst)) continue;
        ++indegree[dst];
        consumers[src].push_back(dst);
      }
    }
    std::vector<int> ready;
    for (int i = 0; i < n; ++i) {
      if (indegree[i] == 0) ready.push_back(i);
    }
    int done = 0;
    while (!ready.empty()) {
      int i = ready.back();
      ready.pop_back();
      ++done;
      for (int c : consumers[i]) {
        if (--indegree[c] == 0) ready.push_back(c);
      }
    }
    if (done == n) return absl::OkStatus();

    // Every node left has a non-back producer that is also left: walk
    // producers from the first such node until one repeats.
    int start = 0;
    while (indegree[start] == 0) ++start;
    std::vector<int> position(n, -1);
    std::vector<int> path;
    int cur = start;
    while (position[cur] < 0) {
      position[cur] = static_cast<int>(path.size());
      path.push_back(cur);
      int next = -1;
      for (int src : pending_[cur].src_pending) {
        if (src >= 0 && indegree[src] > 0 && !is_back(src, cur)) {
          next = src;
          break;
        }
      }
      if (next < 0) break;  // Not expected; report what we have.
      cur = next;
    }
    std::vector<int> cycle(path.begin() + std::max(0, position[cur]),
                           path.end());
    std::reverse(cycle.begin(), cycle.end());
    // Start from the node that comes first in the GraphDef.
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()),
                cycle.end());
    std::vector<std::string> names;
    for (int i : cycle) names.push_back(FormatNodeName(pending_[i].def.name()));
    names.push_back(FormatNodeName(pending_[cycle.front()].def.name()));
    return absl::InvalidArgumentError(
        absl::StrCat("Graph has a cycle: ", absl::StrJoin(names, " -> ")));
  }

  absl::Status Commit() {
    const bool was_empty = g_->num_op_nodes() == 0;
    // Functions are merged first: a node may call one by name. A failed
    // commit puts the old library back.
    std::optional<FunctionDefLibrary> old_library;
    if (gdef_.library().function_size() > 0 ||
        gdef_.library().gradient_size() > 0) {
      old_library = g_->library();
      MergeLibrary();
    }
    auto undo_library = [&] {
      if (old_library.has_value()) g_->set_library(*old_library);
    };
    std::vector<Node*> added;
    added.reserve(pending_.size());
    for (Pending& p : pending_) {
      const std::string device = p.def.device();
      // The validated NodeDef moves into the graph (no second copy of a
      // large graph's NodeDefs); Commit reads only p.inputs from here on.
      absl::StatusOr<Node*> node = g_->AddNode(std::move(p.def));
      if (!node.ok()) {
        // Validation above should make this unreachable; keep the graph
        // unchanged anyway.
        for (Node* n : added) g_->RemoveNode(n);
        undo_library();
        return node.status().code() == absl::StatusCode::kNotFound
                   ? node.status()
                   : absl::InvalidArgumentError(node.status().message());
      }
      if (opts_.expect_device_spec) (*node)->set_assigned_device_name(device);
      added.push_back(*node);
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& p = pending_[i];
      Node* dst = added[i];
      int slot = 0;
      for (size_t k = 0; k < p.inputs.size(); ++k) {
        Node* src =
            p.src_pending[k] >= 0 ? added[p.src_pending[k]] : p.src_existing[k];
        if (p.inputs[k].index == kControlSlot) {
          g_->AddControlEdge(src, dst);
        } else {
          g_->AddEdge(src, p.inputs[k].index, dst, slot++);
        }
      }
    }
    // Every node and edge is in the graph: free the staging (a large
    // graph's pending nodes would otherwise stay through shape inference).
    index_ = {};
    std::vector<Pending>().swap(pending_);
    absl::Status shapes = InferShapes(added);
    if (!shapes.ok()) {
      for (Node* n : added) {
        if (refiner_ != nullptr) refiner_->RemoveNode(n);
        g_->RemoveNode(n);
      }
      undo_library();
      return shapes;
    }
    for (Node* n : added) {
      if (n->in_edges().empty()) g_->AddControlEdge(g_->source_node(), n);
      if (n->out_edges().empty()) g_->AddControlEdge(n, g_->sink_node());
    }
    // A graph without op nodes takes the GraphDef's versions (functions
    // were merged either way: a graph may hold functions before any node,
    // e.g. after TF_GraphCopyFunction).
    if (was_empty) g_->set_versions(gdef_.versions());
    return absl::OkStatus();
  }

  // Adds the GraphDef's functions and gradients the graph lacks by name.
  void MergeLibrary() {
    FunctionDefLibrary lib = g_->library();
    for (const FunctionDef& f : gdef_.library().function()) {
      bool present = false;
      for (const FunctionDef& e : lib.function()) {
        present |= e.signature().name() == f.signature().name();
      }
      if (!present) *lib.add_function() = f;
    }
    for (const GradientDef& grad : gdef_.library().gradient()) {
      bool present = false;
      for (const GradientDef& e : lib.gradient()) {
        present |= e.function_name() == grad.function_name();
      }
      if (!present) *lib.add_gradient() = grad;
    }
    g_->set_library(lib);
  }

  // Runs the shape functions over the graph with the new nodes in it.
  absl::Status InferShapes(const std::vector<Node*>& added) {
    if (!opts_.infer_shapes) return absl::OkStatus();
    if (refiner_ != nullptr) {
      refiner_->set_merge_output_shapes_attr(opts_.merge_output_shapes_attr);
      refiner_->set_function_library(&g_->library(), InferFunctionCallShapes);
      absl::Status s;
      // The caller's refiner usually holds the graph's other nodes already;
      // nodes added behind its back are inferred now too.
      if (refiner_->num_nodes() + static_cast<int>(added.size()) ==
          g_->num_op_nodes()) {
        s = refiner_->AddNodes(added);
      } else {
        s = refiner_->AddMissingNodes(*g_);
      }
      refiner_->set_merge_output_shapes_attr(false);
      refiner_->set_function_library(nullptr, nullptr);
      return s;
    }
    ShapeRefiner refiner(g_->op_registry());
    refiner.set_merge_output_shapes_attr(opts_.merge_output_shapes_attr);
    refiner.set_function_library(&g_->library(), InferFunctionCallShapes);
    if (g_->num_op_nodes() == static_cast<int>(added.size())) {
      return refiner.AddNodes(added);
    }
    return refiner.AddMissingNodes(*g_);
  }

  const GraphConstructorOptions& opts_;
  const GraphDef& gdef_;
  Graph* const g_;
  ShapeRefiner* const refiner_;
  std::vector<Pending> pending_;
  // Whether pending_[i].def came from the GraphDef by move (and gdef_ has
  // no nodes left).
  bool owns_node_defs_ = false;
  // Name -> index in the GraphDef (views of the names in gdef_, or in
  // pending_ when it owns the NodeDefs; both outlive every lookup, which
  // all happen before Commit); looked up only, never iterated.
  absl::flat_hash_map<absl::string_view, int> index_;
};

}  // namespace

absl::Status ConvertGraphDefToGraph(const GraphConstructorOptions& opts,
                                    const GraphDef& gdef, Graph* g) {
  if (g->num_op_nodes() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ConvertGraphDefToGraph requires an empty graph; this one has ",
        g->num_op_nodes(), " op nodes"));
  }
  return Importer(opts, gdef, g, nullptr).Run();
}

absl::Status ConvertGraphDefToGraph(const GraphConstructorOptions& opts,
                                    GraphDef&& gdef, Graph* g) {
  if (g->num_op_nodes() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ConvertGraphDefToGraph requires an empty graph; this one has ",
        g->num_op_nodes(), " op nodes"));
  }
  GraphDef consumed = std::move(gdef);
  return Importer(opts, &consumed, g, nullptr).Run();
}

absl::Status ImportGraphDef(const GraphConstructorOptions& opts,
                            const GraphDef& gdef, Graph* g,
                            ShapeRefiner* refiner) {
  return Importer(opts, gdef, g, refiner).Run();
}

}  // namespace stepflow
