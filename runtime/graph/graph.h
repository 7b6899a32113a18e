// Graph: the mutable in-memory dataflow graph (TensorFlow's Graph).
//
// Every graph has SOURCE (id 0, "_SOURCE") and SINK (id 1, "_SINK"). Data
// edges connect output slot `src_output` of one node to input slot
// `dst_input` of another; control edges use slot kControlSlot (-1) at both
// ends. Node and edge ids are dense and never reused within a graph; removed
// nodes and edges leave holes (FindNodeId returns null) and their objects go
// to free lists for reuse.
//
// Determinism: in_edges()/out_edges() iterate in insertion order, nodes()
// in id order; nothing depends on pointer values.
//
// Ownership: the Graph owns its Nodes and Edges. Thread-compatible: const
// methods may run concurrently; mutation needs exclusive access.
#ifndef STEPFLOW_RUNTIME_GRAPH_GRAPH_H_
#define STEPFLOW_RUNTIME_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/graph.pb.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"
#include "proto/versions.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/framework/types.h"

namespace stepflow {

class Edge;
class Graph;

// In-/out-edge list: insertion-ordered, O(degree) removal. Up to two edges
// are held inline (most nodes have one or two inputs and consumers), so a
// chain's node costs no allocation for its edge lists.
class EdgeSet {
 public:
  using Storage = absl::InlinedVector<const Edge*, 2>;
  using const_iterator = Storage::const_iterator;
  const_iterator begin() const { return edges_.begin(); }
  const_iterator end() const { return edges_.end(); }
  size_t size() const { return edges_.size(); }
  bool empty() const { return edges_.empty(); }

 private:
  friend class Graph;
  void insert(const Edge* e) { edges_.push_back(e); }
  void erase(const Edge* e);
  void clear() { edges_.clear(); }
  Storage edges_;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const NodeDef& def() const { return def_; }
  const OpDef& op_def() const { return *op_def_; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int o) const { return output_types_[o]; }
  const DataTypeVector& output_types() const { return output_types_; }

  // The device the user asked for (NodeDef.device), possibly partial.
  const std::string& requested_device() const { return def_.device(); }
  void set_requested_device(const std::string& device) {
    def_.set_device(device);
  }
  // The device the placer chose (full name); empty before placement. The
  // name is interned in the node's graph (Graph::InternDeviceName), as
  // TensorFlow's assigned_device_name_index: a million nodes on one device
  // hold one copy of its name.
  inline const std::string& assigned_device_name() const;
  void set_assigned_device_name(const std::string& d);
  bool has_assigned_device_name() const {
    return assigned_device_name_index_ != 0;
  }
  // The name's index in the graph's table (0: none assigned).
  int assigned_device_name_index() const { return assigned_device_name_index_; }

  const EdgeSet& in_edges() const { return in_edges_; }
  const EdgeSet& out_edges() const { return out_edges_; }
  // The data edge into input slot `idx`. NotFound/InvalidArgument if absent.
  absl::Status input_edge(int idx, const Edge** e) const;
  // Data in-edges indexed by dst_input (nullptr where missing).
  absl::Status input_edges(std::vector<const Edge*>* edges) const;
  absl::Status input_node(int idx, const Node** n) const;

  bool IsSource() const { return id_ == 0; }
  bool IsSink() const { return id_ == 1; }
  bool IsOp() const { return id_ > 1; }

  // Node classes (by op name).
  bool IsSwitch() const { return class_ == NC_SWITCH; }
  bool IsMerge() const { return class_ == NC_MERGE; }
  bool IsEnter() const { return class_ == NC_ENTER; }
  bool IsExit() const { return class_ == NC_EXIT; }
  bool IsNextIteration() const { return class_ == NC_NEXT_ITERATION; }
  bool IsLoopCond() const { return class_ == NC_LOOP_COND; }
  bool IsControlTrigger() const { return class_ == NC_CONTROL_TRIGGER; }
  bool IsSend() const { return class_ == NC_SEND || class_ == NC_HOST_SEND; }
  bool IsRecv() const { return class_ == NC_RECV || class_ == NC_HOST_RECV; }
  bool IsConstant() const { return class_ == NC_CONSTANT; }
  bool IsVariable() const { return class_ == NC_VARIABLE; }
  bool IsIdentity() const { return class_ == NC_IDENTITY; }
  bool IsArg() const { return class_ == NC_ARG; }
  bool IsRetval() const { return class_ == NC_RETVAL; }
  bool IsPlaceholder() const { return class_ == NC_PLACEHOLDER; }
  bool IsNoOp() const { return class_ == NC_NO_OP; }
  bool IsControlFlow() const {
    return IsSwitch() || IsMerge() || IsEnter() || IsExit() ||
           IsNextIteration() || IsLoopCond();
  }
  bool IsStateful() const { return op_def_->is_stateful(); }

  // Attr mutation (keeps def() in sync).
  void AddAttr(const std::string& name, const AttrValue& value);
  void ClearAttr(const std::string& name);

  std::string DebugString() const;

 private:
  friend class Graph;
  Node() = default;
  enum NodeClass {
    NC_UNINITIALIZED,
    NC_SWITCH,
    NC_MERGE,
    NC_ENTER,
    NC_EXIT,
    NC_NEXT_ITERATION,
    NC_LOOP_COND,
    NC_CONTROL_TRIGGER,
    NC_SEND,
    NC_RECV,
    NC_HOST_SEND,
    NC_HOST_RECV,
    NC_CONSTANT,
    NC_VARIABLE,
    NC_IDENTITY,
    NC_ARG,
    NC_RETVAL,
    NC_PLACEHOLDER,
    NC_NO_OP,
    NC_OTHER,
  };
  static NodeClass GetNodeClassForOp(const std::string& op);

  Graph* graph_ = nullptr;  // The graph owning this node.
  int id_ = -1;
  int assigned_device_name_index_ = 0;
  NodeDef def_;
  const OpDef* op_def_ = nullptr;
  NodeClass class_ = NC_UNINITIALIZED;
  DataTypeVector input_types_;
  DataTypeVector output_types_;
  EdgeSet in_edges_;
  EdgeSet out_edges_;
};

class Edge {
 public:
  Node* src() const { return src_; }
  Node* dst() const { return dst_; }
  int id() const { return id_; }
  int src_output() const { return src_output_; }
  int dst_input() const { return dst_input_; }
  bool IsControlEdge() const { return src_output_ == kControlSlot; }
  std::string DebugString() const;

 private:
  friend class Graph;
  Edge() = default;
  Node* src_ = nullptr;
  Node* dst_ = nullptr;
  int id_ = -1;
  int src_output_ = 0;
  int dst_input_ = 0;
};

class Graph {
 public:
  static constexpr int kControlSlot = ::stepflow::kControlSlot;
  static constexpr int kSourceId = 0;
  static constexpr int kSinkId = 1;

  // `ops` (borrowed) resolves op names; defaults to OpRegistry::Global().
  explicit Graph(const OpRegistry* ops = OpRegistry::Global());
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node for `node_def` (attrs should already have defaults).
  // NotFound if the op is unknown; InvalidArgument if its types cannot be
  // computed or the name is already used by a live node. Does not add edges:
  // NodeDef.input is kept for reference only.
  absl::StatusOr<Node*> AddNode(NodeDef node_def);
  // Copies `node` (not its edges) from any graph.
  Node* CopyNode(const Node* node);
  // Removes `node` and all its edges. Not for SOURCE/SINK.
  void RemoveNode(Node* node);

  // Adds a data edge (x, y >= 0) or control edge (both kControlSlot).
  const Edge* AddEdge(Node* source, int x, Node* dest, int y);
  // Adds a control edge unless an identical one exists (then returns null),
  // or `allow_duplicates`.
  const Edge* AddControlEdge(Node* source, Node* dest,
                             bool allow_duplicates = false);
  void RemoveEdge(const Edge* e);
  void RemoveControlEdge(const Edge* e) { RemoveEdge(e); }
  // Re-points the data edge into (dst, dst_index) to come from
  // (new_src, new_src_index). InvalidArgument if there is no such edge.
  absl::Status UpdateEdge(Node* new_src, int new_src_index, Node* dst,
                          int dst_index);

  Node* source_node() const { return FindNodeId(kSourceId); }
  Node* sink_node() const { return FindNodeId(kSinkId); }
  // nullptr for an unused/removed id.
  Node* FindNodeId(int id) const {
    return id >= 0 && id < static_cast<int>(nodes_.size()) ? nodes_[id]
                                                           : nullptr;
  }
  const Edge* FindEdgeId(int id) const {
    return id >= 0 && id < static_cast<int>(edges_.size()) ? edges_[id]
                                                           : nullptr;
  }

  // Live nodes including SOURCE/SINK.
  int num_nodes() const { return num_nodes_; }
  int num_op_nodes() const { return num_nodes_ - 2; }
  int num_edges() const { return num_edges_; }
  // One past the largest id ever used.
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  int num_edge_ids() const { return static_cast<int>(edges_.size()); }

  // Live nodes / op nodes / edges in id order.
  std::vector<Node*> nodes() const;
  std::vector<Node*> op_nodes() const;
  std::vector<const Edge*> edges() const;

  // Node by name (linear scan is avoided: kept in an index). nullptr if none.
  Node* FindNodeByName(absl::string_view name) const;

  // Serialises op nodes in id order. Each node's inputs list its data
  // inputs by slot ("src" or "src:N"), then control inputs ("^src") sorted
  // by source name; assigned devices are written to NodeDef.device when set.
  void ToGraphDef(GraphDef* graph_def) const;
  // ToGraphDef's GraphDef with `library` as its library, serialized one
  // node at a time (a large graph's GraphDef is never built whole).
  // InvalidArgument past protobuf's 2 GB message limit.
  absl::Status ToSerializedGraphDef(const FunctionDefLibrary& library,
                                    std::string* out) const;

  // Moves `node`'s NodeDef out of the graph and returns it. The node keeps
  // its id, edges, types and assigned device, and FindNodeByName still
  // finds it by its old name, but its name, op, requested device and attrs
  // read as empty: the graph is then fit only for destruction. For callers
  // that discard the graph and would otherwise copy every NodeDef
  // (PartitionOptions::take_node_defs).
  NodeDef TakeNodeDef(Node* node);

  // A name not yet used in this graph: "<prefix>/_<n>".
  std::string NewName(absl::string_view prefix);

  // The index of `device_name` in this graph's device-name table, added if
  // new; "" is index 0. Indices are stable for the graph's lifetime.
  int InternDeviceName(const std::string& device_name);
  // The name interned at `index` (a value InternDeviceName returned).
  const std::string& get_assigned_device_name(int index) const {
    return index == 0 ? EmptyDeviceName() : *device_names_[index - 1];
  }

  const OpRegistry* op_registry() const { return ops_; }
  const VersionDef& versions() const { return versions_; }
  void set_versions(const VersionDef& v) { versions_ = v; }
  const FunctionDefLibrary& library() const { return library_; }
  void set_library(const FunctionDefLibrary& lib) { library_ = lib; }

 private:
  // Reused across ToNodeDef calls.
  struct NodeDefScratch {
    std::vector<const Edge*> data_inputs;
    std::vector<const std::string*> control_inputs;
  };
  // `node`'s NodeDef as ToGraphDef writes it.
  void ToNodeDef(const Node* node, NodeDefScratch* scratch, NodeDef* def) const;
  Node* AllocateNode();
  void ReleaseNode(Node* node);
  static const std::string& EmptyDeviceName();

  const OpRegistry* const ops_;
  VersionDef versions_;
  FunctionDefLibrary library_;
  std::vector<Node*> nodes_;  // Indexed by id; null for removed.
  std::vector<Edge*> edges_;  // Indexed by id; null for removed.
  std::vector<Node*> free_nodes_;
  std::vector<Edge*> free_edges_;
  int num_nodes_ = 0;
  int num_edges_ = 0;
  int64_t name_counter_ = 0;
  struct NameIndex;
  std::unique_ptr<NameIndex> name_index_;
  // Interned device names: index i > 0 is *device_names_[i - 1], and 0 is
  // "" (a graph nobody placed allocates nothing). Each name has its own
  // allocation, so references handed out by get_assigned_device_name stay
  // valid as names are added.
  std::vector<std::unique_ptr<const std::string>> device_names_;
  absl::flat_hash_map<std::string, int> device_name_indices_;
};

inline const std::string& Node::assigned_device_name() const {
  return graph_->get_assigned_device_name(assigned_device_name_index_);
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_GRAPH_H_
