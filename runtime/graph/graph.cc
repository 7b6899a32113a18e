#include "runtime/graph/graph.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/versions.h"
#include "runtime/graph/function_call_op.h"

namespace stepflow {

// ---------------------------------------------------------------------------
// EdgeSet

void EdgeSet::erase(const Edge* e) {
  auto it = std::find(edges_.begin(), edges_.end(), e);
  if (it != edges_.end()) edges_.erase(it);
}

// ---------------------------------------------------------------------------
// Node

Node::NodeClass Node::GetNodeClassForOp(const std::string& op) {
  static const auto* const kClasses =
      new absl::flat_hash_map<std::string, NodeClass>({
          {"Switch", NC_SWITCH},
          {"RefSwitch", NC_SWITCH},
          {"Merge", NC_MERGE},
          {"RefMerge", NC_MERGE},
          {"Enter", NC_ENTER},
          {"RefEnter", NC_ENTER},
          {"Exit", NC_EXIT},
          {"RefExit", NC_EXIT},
          {"NextIteration", NC_NEXT_ITERATION},
          {"RefNextIteration", NC_NEXT_ITERATION},
          {"LoopCond", NC_LOOP_COND},
          {"ControlTrigger", NC_CONTROL_TRIGGER},
          {"_Send", NC_SEND},
          {"_Recv", NC_RECV},
          {"_HostSend", NC_HOST_SEND},
          {"_HostRecv", NC_HOST_RECV},
          {"Const", NC_CONSTANT},
          {"HostConst", NC_CONSTANT},
          {"Variable", NC_VARIABLE},
          {"VariableV2", NC_VARIABLE},
          {"VarHandleOp", NC_VARIABLE},
          {"Identity", NC_IDENTITY},
          {"RefIdentity", NC_IDENTITY},
          {"_Arg", NC_ARG},
          {"_Retval", NC_RETVAL},
          {"Placeholder", NC_PLACEHOLDER},
          {"PlaceholderWithDefault", NC_PLACEHOLDER},
          {"NoOp", NC_NO_OP},
      });
  auto it = kClasses->find(op);
  return it == kClasses->end() ? NC_OTHER : it->second;
}

absl::Status Node::input_edge(int idx, const Edge** e) const {
  *e = nullptr;
  if (idx < 0 || idx >= num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid input index ", idx, " for ", FormatNodeName(name()),
        " which has ", num_inputs(), " inputs"));
  }
  for (const Edge* edge : in_edges_) {
    if (edge->dst_input() == idx) {
      *e = edge;
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("Could not find input ", idx, " of ",
                                          FormatNodeName(name())));
}

absl::Status Node::input_edges(std::vector<const Edge*>* edges) const {
  edges->assign(num_inputs(), nullptr);
  for (const Edge* edge : in_edges_) {
    if (edge->IsControlEdge()) continue;
    int slot = edge->dst_input();
    if (slot < 0 || slot >= num_inputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Edge into input ", slot, " of ", FormatNodeName(name()),
                       " which has ", num_inputs(), " inputs"));
    }
    if ((*edges)[slot] != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input ", slot, " of ", FormatNodeName(name()),
                       " has more than one incoming edge"));
    }
    (*edges)[slot] = edge;
  }
  for (int i = 0; i < num_inputs(); ++i) {
    if ((*edges)[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Missing edge for input ", i, " of ", FormatNodeName(name())));
    }
  }
  return absl::OkStatus();
}

absl::Status Node::input_node(int idx, const Node** n) const {
  *n = nullptr;
  const Edge* e = nullptr;
  absl::Status s = input_edge(idx, &e);
  if (!s.ok()) return s;
  *n = e->src();
  return absl::OkStatus();
}

namespace {

// True if `attr` decides the type or the length of one of `op`'s arguments.
bool AttrShapesArguments(const OpDef& op, const std::string& attr) {
  auto names = [&attr](const OpDef::ArgDef& arg) {
    return arg.type_attr() == attr || arg.number_attr() == attr ||
           arg.type_list_attr() == attr;
  };
  for (const OpDef::ArgDef& arg : op.input_arg()) {
    if (names(arg)) return true;
  }
  for (const OpDef::ArgDef& arg : op.output_arg()) {
    if (names(arg)) return true;
  }
  return false;
}

}  // namespace

void Node::AddAttr(const std::string& name, const AttrValue& value) {
  (*def_.mutable_attr())[name] = value;
  // As TensorFlow's Node does: a changed "T" (say) changes the arguments.
  if (op_def_ == nullptr || !AttrShapesArguments(*op_def_, name)) return;
  DataTypeVector inputs, outputs;
  if (InOutTypesForNode(def_, *op_def_, &inputs, &outputs).ok()) {
    input_types_ = std::move(inputs);
    output_types_ = std::move(outputs);
  }
}

void Node::ClearAttr(const std::string& name) {
  def_.mutable_attr()->erase(name);
}

std::string Node::DebugString() const {
  std::string out = absl::StrCat("{name:'", name(), "' id:", id_);
  if (IsSource()) {
    absl::StrAppend(&out, " source}");
  } else if (IsSink()) {
    absl::StrAppend(&out, " sink}");
  } else {
    absl::StrAppend(&out, " op:'", type_string(), "'");
    if (has_assigned_device_name()) {
      absl::StrAppend(&out, " assigned_device:'", assigned_device_name(), "'");
    }
    absl::StrAppend(&out, " def:{", SummarizeNodeDef(def_), "}}");
  }
  return out;
}

// ---------------------------------------------------------------------------
// Edge

std::string Edge::DebugString() const {
  return absl::StrCat("[id=", id_, " ", src_ ? src_->name() : "<null>", ":",
                      src_output_, " -> ", dst_ ? dst_->name() : "<null>", ":",
                      dst_input_, "]");
}

// ---------------------------------------------------------------------------
// Graph

struct Graph::NameIndex {
  // Looked up only, never iterated.
  absl::flat_hash_map<std::string, Node*> by_name;
};

namespace {

const OpDef& NoOpDefFor(const OpRegistry* ops) {
  if (ops != nullptr) {
    const OpDef* op_def = ops->LookUpOrNull("NoOp");
    if (op_def != nullptr) return *op_def;
  }
  static const OpDef* const kNoOp = [] {
    auto* def = new OpDef;
    def->set_name("NoOp");
    return def;
  }();
  return *kNoOp;
}

}  // namespace

Graph::Graph(const OpRegistry* ops)
    : ops_(ops), name_index_(std::make_unique<NameIndex>()) {
  versions_.set_producer(kGraphDefVersion);
  versions_.set_min_consumer(kGraphDefVersionMinConsumer);

  const OpDef& no_op = NoOpDefFor(ops_);
  for (const char* name : {"_SOURCE", "_SINK"}) {
    Node* node = AllocateNode();
    node->def_.set_name(name);
    node->def_.set_op("NoOp");
    node->op_def_ = &no_op;
    node->class_ = Node::GetNodeClassForOp("NoOp");
    name_index_->by_name.emplace(name, node);
  }
  AddControlEdge(source_node(), sink_node());
}

Graph::~Graph() {
  for (Node* n : nodes_) delete n;
  for (Node* n : free_nodes_) delete n;
  for (Edge* e : edges_) delete e;
  for (Edge* e : free_edges_) delete e;
}

void Node::set_assigned_device_name(const std::string& d) {
  assigned_device_name_index_ = graph_->InternDeviceName(d);
}

const std::string& Graph::EmptyDeviceName() {
  static const std::string* const empty = new std::string();
  return *empty;
}

int Graph::InternDeviceName(const std::string& device_name) {
  if (device_name.empty()) return 0;
  auto it = device_name_indices_.find(device_name);
  if (it != device_name_indices_.end()) return it->second;
  device_names_.push_back(std::make_unique<const std::string>(device_name));
  const int index = static_cast<int>(device_names_.size());
  device_name_indices_.emplace(device_name, index);
  return index;
}

Node* Graph::AllocateNode() {
  Node* node;
  if (free_nodes_.empty()) {
    node = new Node;
    node->graph_ = this;
  } else {
    node = free_nodes_.back();
    free_nodes_.pop_back();
  }
  node->id_ = static_cast<int>(nodes_.size());
  nodes_.push_back(node);
  ++num_nodes_;
  return node;
}

void Graph::ReleaseNode(Node* node) {
  nodes_[node->id()] = nullptr;
  --num_nodes_;
  node->id_ = -1;
  node->def_.Clear();
  node->op_def_ = nullptr;
  node->class_ = Node::NC_UNINITIALIZED;
  node->input_types_.clear();
  node->output_types_.clear();
  node->assigned_device_name_index_ = 0;
  node->in_edges_.clear();
  node->out_edges_.clear();
  free_nodes_.push_back(node);
}

absl::StatusOr<Node*> Graph::AddNode(NodeDef node_def) {
  if (FindNodeByName(node_def.name()) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Node name '", node_def.name(), "' is already used in the graph by ",
        FormatNodeName(node_def.name())));
  }
  const OpDef* op_def = nullptr;
  if (ops_ == nullptr) {
    return absl::NotFoundError(absl::StrCat("Op type not registered '",
                                            node_def.op(), "' for ",
                                            FormatNodeName(node_def.name())));
  }
  absl::Status s = ops_->LookUp(node_def.op(), &op_def);
  if (!s.ok()) {
    // A call of a library function by name (its signature is the OpDef).
    op_def = FunctionCallOpDef(library_, node_def.op());
    if (op_def != nullptr) s = absl::OkStatus();
  }
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat(s.message(), " (for ",
                                     FormatNodeName(node_def.name()), ")"));
  }
  DataTypeVector inputs, outputs;
  s = InOutTypesForNode(node_def, *op_def, &inputs, &outputs);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot compute input/output types of ",
                     FormatNodeName(node_def.name()), ": ", s.message()));
  }
  Node* node = AllocateNode();
  node->def_ = std::move(node_def);
  node->op_def_ = op_def;
  node->class_ = Node::GetNodeClassForOp(node->def_.op());
  node->input_types_ = std::move(inputs);
  node->output_types_ = std::move(outputs);
  name_index_->by_name.emplace(node->name(), node);
  return node;
}

Node* Graph::CopyNode(const Node* src) {
  Node* node = AllocateNode();
  node->def_ = src->def_;
  node->op_def_ = src->op_def_;
  node->class_ = src->class_;
  node->input_types_ = src->input_types_;
  node->output_types_ = src->output_types_;
  node->assigned_device_name_index_ =
      InternDeviceName(src->assigned_device_name());
  // A name clash keeps the first node findable by name.
  name_index_->by_name.emplace(node->name(), node);
  return node;
}

void Graph::RemoveNode(Node* node) {
  if (node == nullptr || !node->IsOp() || FindNodeId(node->id()) != node) {
    return;
  }
  while (!node->in_edges_.empty()) RemoveEdge(*node->in_edges_.begin());
  while (!node->out_edges_.empty()) RemoveEdge(*node->out_edges_.begin());
  auto it = name_index_->by_name.find(node->name());
  if (it != name_index_->by_name.end() && it->second == node) {
    name_index_->by_name.erase(it);
  }
  ReleaseNode(node);
}

const Edge* Graph::AddEdge(Node* source, int x, Node* dest, int y) {
  if (source == nullptr || dest == nullptr) return nullptr;
  Edge* e;
  if (free_edges_.empty()) {
    e = new Edge;
  } else {
    e = free_edges_.back();
    free_edges_.pop_back();
  }
  e->id_ = static_cast<int>(edges_.size());
  e->src_ = source;
  e->dst_ = dest;
  e->src_output_ = x;
  e->dst_input_ = y;
  edges_.push_back(e);
  ++num_edges_;
  source->out_edges_.insert(e);
  dest->in_edges_.insert(e);
  return e;
}

const Edge* Graph::AddControlEdge(Node* source, Node* dest,
                                  bool allow_duplicates) {
  if (source == nullptr || dest == nullptr) return nullptr;
  if (!allow_duplicates) {
    // An existing source -> dest control edge is in both lists: scan the
    // shorter one, so wiring many nodes to one hub (SINK, a train op's
    // control inputs) stays linear overall.
    if (source->out_edges().size() < dest->in_edges().size()) {
      for (const Edge* e : source->out_edges()) {
        if (e->IsControlEdge() && e->dst() == dest) return nullptr;
      }
    } else {
      for (const Edge* e : dest->in_edges()) {
        if (e->IsControlEdge() && e->src() == source) return nullptr;
      }
    }
  }
  return AddEdge(source, kControlSlot, dest, kControlSlot);
}

void Graph::RemoveEdge(const Edge* e) {
  if (e == nullptr || FindEdgeId(e->id()) != e) return;
  Edge* edge = edges_[e->id()];
  edge->src_->out_edges_.erase(edge);
  edge->dst_->in_edges_.erase(edge);
  edges_[edge->id_] = nullptr;
  --num_edges_;
  edge->id_ = -1;
  edge->src_ = nullptr;
  edge->dst_ = nullptr;
  edge->src_output_ = 0;
  edge->dst_input_ = 0;
  free_edges_.push_back(edge);
}

absl::Status Graph::UpdateEdge(Node* new_src, int new_src_index, Node* dst,
                               int dst_index) {
  if (new_src == nullptr || dst == nullptr) {
    return absl::InvalidArgumentError("UpdateEdge: null node");
  }
  const Edge* existing = nullptr;
  for (const Edge* e : dst->in_edges()) {
    if (!e->IsControlEdge() && e->dst_input() == dst_index) {
      existing = e;
      break;
    }
  }
  if (existing == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Couldn't find edge to input ", dst_index, " of ",
                     FormatNodeName(dst->name())));
  }
  RemoveEdge(existing);
  AddEdge(new_src, new_src_index, dst, dst_index);
  return absl::OkStatus();
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (Node* n : nodes_) {
    if (n != nullptr) out.push_back(n);
  }
  return out;
}

std::vector<Node*> Graph::op_nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (Node* n : nodes_) {
    if (n != nullptr && n->IsOp()) out.push_back(n);
  }
  return out;
}

std::vector<const Edge*> Graph::edges() const {
  std::vector<const Edge*> out;
  out.reserve(num_edges_);
  for (const Edge* e : edges_) {
    if (e != nullptr) out.push_back(e);
  }
  return out;
}

Node* Graph::FindNodeByName(absl::string_view name) const {
  auto it = name_index_->by_name.find(name);
  return it == name_index_->by_name.end() ? nullptr : it->second;
}

void Graph::ToNodeDef(const Node* node, NodeDefScratch* scratch,
                      NodeDef* def) const {
  *def = node->def_;
  def->clear_input();
  if (node->has_assigned_device_name()) {
    def->set_device(node->assigned_device_name());
  }
  std::vector<const Edge*>& data_inputs = scratch->data_inputs;
  std::vector<const std::string*>& control_inputs = scratch->control_inputs;
  data_inputs.assign(node->num_inputs(), nullptr);
  control_inputs.clear();
  for (const Edge* e : node->in_edges_) {
    if (e->IsControlEdge()) {
      if (e->src()->IsOp()) control_inputs.push_back(&e->src()->name());
      continue;
    }
    int slot = e->dst_input();
    if (slot >= static_cast<int>(data_inputs.size())) {
      data_inputs.resize(slot + 1, nullptr);
    }
    if (slot >= 0 && data_inputs[slot] == nullptr) data_inputs[slot] = e;
  }
  for (const Edge* e : data_inputs) {
    if (e == nullptr) continue;
    if (e->src_output() == 0) {
      def->add_input(e->src()->name());
    } else {
      def->add_input(absl::StrCat(e->src()->name(), ":", e->src_output()));
    }
  }
  std::sort(control_inputs.begin(), control_inputs.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  control_inputs.erase(
      std::unique(
          control_inputs.begin(), control_inputs.end(),
          [](const std::string* a, const std::string* b) { return *a == *b; }),
      control_inputs.end());
  for (const std::string* name : control_inputs) {
    def->add_input(absl::StrCat("^", *name));
  }
}

void Graph::ToGraphDef(GraphDef* graph_def) const {
  graph_def->Clear();
  *graph_def->mutable_versions() = versions_;
  *graph_def->mutable_library() = library_;
  NodeDefScratch scratch;
  for (const Node* node : nodes_) {
    if (node == nullptr || !node->IsOp()) continue;
    ToNodeDef(node, &scratch, graph_def->add_node());
  }
}

absl::Status Graph::ToSerializedGraphDef(const FunctionDefLibrary& library,
                                         std::string* out) const {
  out->clear();
  // GraphDef's fields, written one at a time: node = 1, library = 2,
  // versions = 4 (proto/graph.proto).
  constexpr uint32_t kNodeTag = (1 << 3) | 2;
  constexpr uint32_t kLibraryTag = (2 << 3) | 2;
  constexpr uint32_t kVersionsTag = (4 << 3) | 2;
  {
    google::protobuf::io::StringOutputStream stream(out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    auto write = [&coded](uint32_t tag, const google::protobuf::Message& m) {
      const size_t size = m.ByteSizeLong();
      coded.WriteVarint32(tag);
      coded.WriteVarint32(static_cast<uint32_t>(size));
      m.SerializeWithCachedSizes(&coded);
    };
    NodeDefScratch scratch;
    NodeDef def;
    for (const Node* node : nodes_) {
      if (node == nullptr || !node->IsOp()) continue;
      ToNodeDef(node, &scratch, &def);
      write(kNodeTag, def);
      if (coded.HadError() ||
          coded.ByteCount() > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The graph (", num_op_nodes(),
            " nodes) is too large to serialize: a GraphDef is limited to 2 "
            "GB"));
      }
    }
    write(kLibraryTag, library);
    write(kVersionsTag, versions_);
  }
  return absl::OkStatus();
}

NodeDef Graph::TakeNodeDef(Node* node) {
  NodeDef def;
  def.Swap(&node->def_);
  return def;
}

std::string Graph::NewName(absl::string_view prefix) {
  while (true) {
    std::string name = absl::StrCat(prefix, "/_", name_counter_++);
    if (FindNodeByName(name) == nullptr) return name;
  }
}

}  // namespace stepflow
