#include "runtime/common/immutable_executor_state.h"

#include <deque>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {

namespace {

std::string FrameDisplayName(const std::string& name) {
  return name.empty() ? std::string("(root)") : absl::StrCat("'", name, "'");
}

}  // namespace

ImmutableExecutorState::ImmutableExecutorState(
    Device* device, Env* env, KernelFactory factory,
    std::unique_ptr<const Graph> graph)
    : device_(device),
      env_(env),
      create_kernel_(std::move(factory)),
      graph_(std::move(graph)) {}

absl::Status ImmutableExecutorState::Initialize() {
  if (device_ == nullptr) {
    return absl::InvalidArgumentError("NewLocalExecutor needs a device");
  }
  if (env_ == nullptr || env_->scheduler == nullptr) {
    return absl::InvalidArgumentError(
        "NewLocalExecutor needs an Env with a Scheduler");
  }
  const Graph& g = *graph_;
  const std::vector<Node*> nodes = g.nodes();  // Id order.
  items_.resize(g.num_node_ids());
  kernels_.reserve(g.num_op_nodes());

  for (const Node* node : nodes) {
    absl::Status s = InitializeNode(node, &items_[node->id()]);
    if (!s.ok()) return s;
  }
  // Every data input connected exactly once.
  for (const Node* node : nodes) {
    absl::Status s = CheckInEdges(node);
    if (!s.ok()) return s;
  }
  absl::Status s = CheckAcyclic();
  if (!s.ok()) return s;
  s = BuildFrames();
  if (!s.ok()) return s;
  BuildOutEdges();

  requires_control_flow_support_ = frames_.size() != 1;
  for (const Node* node : nodes) {
    const NodeItem& item = items_[node->id()];
    if (item.is_merge || item.is_switch || item.is_recv || item.is_enter ||
        item.is_exit || item.is_next_iteration || item.is_control_trigger) {
      requires_control_flow_support_ = true;
    }
  }
  return absl::OkStatus();
}

absl::Status ImmutableExecutorState::InitializeNode(const Node* node,
                                                    NodeItem* item) {
  item->node = node;
  if (!node->IsOp()) return absl::OkStatus();  // SOURCE / SINK.
  std::shared_ptr<OpKernel> kernel;
  absl::Status s = create_kernel_(node->def(), &kernel);
  if (!s.ok()) return AttachDef(s, node->name());
  if (kernel == nullptr) {
    return absl::InternalError(
        absl::StrCat("Kernel creation returned no kernel for ",
                     FormatNodeName(node->name())));
  }
  if (kernel->num_inputs() != node->num_inputs() ||
      kernel->num_outputs() != node->num_outputs()) {
    return absl::InternalError(
        absl::StrCat("Kernel for ", FormatNodeName(node->name()), " has ",
                     kernel->num_inputs(), " inputs and ",
                     kernel->num_outputs(), " outputs but the node has ",
                     node->num_inputs(), " and ", node->num_outputs()));
  }
  item->kernel = kernel.get();
  item->async_kernel = kernel->AsAsync();
  item->is_expensive = kernel->IsExpensive();
  item->is_merge = node->IsMerge();
  item->is_noop =
      node->IsNoOp() && kernel->num_inputs() == 0 && kernel->num_outputs() == 0;
  item->is_switch = node->IsSwitch();
  item->is_recv = node->IsRecv();
  item->is_send = node->IsSend();
  item->is_control_trigger = node->IsControlTrigger();
  item->is_enter = node->IsEnter();
  item->is_exit = node->IsExit();
  item->is_next_iteration = node->IsNextIteration();
  item->allows_uninitialized_input =
      node->op_def().allows_uninitialized_input();
  item->num_inputs = kernel->num_inputs();
  item->num_outputs = kernel->num_outputs();
  item->input_types = kernel->input_types().data();
  item->output_types = kernel->output_types().data();
  if ((item->is_enter || item->is_exit || item->is_next_iteration) &&
      (item->num_inputs != 1 || item->num_outputs != 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        FormatNodeName(node->name()), " is a ", node->type_string(),
        " node but has ", item->num_inputs, " inputs and ", item->num_outputs,
        " outputs (want 1 and 1)"));
  }
  if (item->is_enter) s = InitializeEnter(node, item);
  if (s.ok() && item->is_send) s = InitializeSend(node, item);
  if (!s.ok()) return s;
  kernels_.push_back(std::move(kernel));
  return absl::OkStatus();
}

absl::Status ImmutableExecutorState::InitializeEnter(const Node* node,
                                                     NodeItem* item) const {
  const NodeDef& def = node->def();
  int64_t parallel_iterations = 0;
  for (absl::Status as :
       {GetNodeAttr(def, "frame_name", &item->frame_name),
        GetNodeAttr(def, "is_constant", &item->is_constant_enter),
        GetNodeAttr(def, "parallel_iterations", &parallel_iterations)}) {
    if (!as.ok()) return AttachDef(as, node->name());
  }
  if (item->frame_name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FormatNodeName(node->name()), " has an empty frame_name"));
  }
  if (parallel_iterations <= 0 || parallel_iterations > (1 << 30)) {
    return absl::InvalidArgumentError(
        absl::StrCat(FormatNodeName(node->name()), " has parallel_iterations ",
                     parallel_iterations, "; it must be positive"));
  }
  item->parallel_iterations = static_cast<int>(parallel_iterations);
  return absl::OkStatus();
}

absl::Status ImmutableExecutorState::InitializeSend(const Node* node,
                                                    NodeItem* item) const {
  auto si = std::make_unique<SendInfo>();
  SF_RETURN_IF_ERROR(SendRecvKey::FromNodeDef(node->def(), &si->key));
  si->on_host = node->type_string() == "_HostSend" ||
                device_->device_type() == DEVICE_CPU;
  item->send = std::move(si);
  return absl::OkStatus();
}

absl::Status ImmutableExecutorState::CheckInEdges(const Node* node) const {
  const NodeItem& item = items_[node->id()];
  std::vector<int> slot_edges(item.num_inputs, 0);
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge()) continue;
    const NodeItem& src = items_[e->src()->id()];
    if (e->dst_input() < 0 || e->dst_input() >= item.num_inputs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Edge from ", FormatNodeName(e->src()->name()), " goes into input ",
          e->dst_input(), " of ", FormatNodeName(node->name()), ", which has ",
          item.num_inputs, " inputs"));
    }
    if (e->src_output() < 0 || e->src_output() >= src.num_outputs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Edge into ", FormatNodeName(node->name()), " reads output ",
          e->src_output(), " of ", FormatNodeName(e->src()->name()),
          ", which has ", src.num_outputs, " outputs"));
    }
    ++slot_edges[e->dst_input()];
  }
  for (int i = 0; i < item.num_inputs; ++i) {
    if (slot_edges[i] != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          FormatNodeName(node->name()), " input ", i,
          slot_edges[i] == 0
              ? " is not connected"
              : absl::StrCat(" has ", slot_edges[i], " incoming edges")));
    }
  }
  return absl::OkStatus();
}

absl::Status ImmutableExecutorState::CheckAcyclic() const {
  // Back edges out of NextIteration close loops; every other cycle is an
  // error.
  const Graph& g = *graph_;
  std::vector<int> pending(g.num_node_ids(), 0);
  std::vector<int> stack;
  const std::vector<Node*> nodes = g.nodes();
  for (const Node* node : nodes) {
    int n = 0;
    for (const Edge* e : node->in_edges()) {
      if (!e->src()->IsNextIteration()) ++n;
    }
    pending[node->id()] = n;
  }
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (pending[(*it)->id()] == 0) stack.push_back((*it)->id());
  }
  int visited = 0;
  while (!stack.empty()) {
    const Node* node = g.FindNodeId(stack.back());
    stack.pop_back();
    ++visited;
    if (node->IsNextIteration()) continue;
    for (const Edge* e : node->out_edges()) {
      if (--pending[e->dst()->id()] == 0) stack.push_back(e->dst()->id());
    }
  }
  if (visited == g.num_nodes()) return absl::OkStatus();
  for (const Node* node : nodes) {
    if (pending[node->id()] > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Graph contains a cycle (or a node unreachable from its roots) "
          "through ",
          FormatNodeName(node->name())));
    }
  }
  return absl::InternalError("Cycle check lost track of nodes");
}

absl::Status ImmutableExecutorState::BuildFrames() {
  frames_.clear();
  frames_.emplace_back();  // The root frame.
  std::vector<int> frame_of(graph_->num_node_ids(), -1);
  absl::Status s = AssignFrames(&frame_of);
  if (!s.ok()) return s;
  return LayOutFrames(&frame_of);
}

absl::Status ImmutableExecutorState::AssignFrames(std::vector<int>* frame_of) {
  const Graph& g = *graph_;
  std::map<std::string, int> frame_index;
  std::vector<const Node*> reached_from(g.num_node_ids(), nullptr);
  std::deque<const Node*> queue;
  for (const Node* node : g.nodes()) {
    if (node->in_edges().empty()) {
      (*frame_of)[node->id()] = 0;
      queue.push_back(node);
    }
  }
  while (!queue.empty()) {
    const Node* node = queue.front();
    queue.pop_front();
    NodeItem& item = items_[node->id()];
    const int frame = (*frame_of)[node->id()];
    item.frame = frame;
    int out_frame = frame;
    if (item.is_enter) {
      auto [it, inserted] = frame_index.emplace(
          item.frame_name, static_cast<int>(frames_.size()));
      if (inserted) {
        frames_.emplace_back();
        frames_.back().name = item.frame_name;
        frames_.back().parent = frame;
      } else if (frames_[it->second].parent != frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            FormatNodeName(node->name()), " enters frame '", item.frame_name,
            "' from frame ", FrameDisplayName(frames_[frame].name),
            ", but other Enter nodes of that frame are in frame ",
            FrameDisplayName(frames_[frames_[it->second].parent].name)));
      }
      item.child_frame = it->second;
      out_frame = it->second;
    } else if (item.is_exit || item.is_next_iteration) {
      if (frame == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            FormatNodeName(node->name()), " is a ", node->type_string(),
            " node outside any loop frame (no Enter leads to it)"));
      }
      if (item.is_exit) out_frame = frames_[frame].parent;
    }
    for (const Edge* e : node->out_edges()) {
      const Node* dst = e->dst();
      if (!dst->IsOp()) continue;
      int& dst_frame = (*frame_of)[dst->id()];
      if (dst_frame == -1) {
        dst_frame = out_frame;
        reached_from[dst->id()] = node;
        queue.push_back(dst);
      } else if (dst_frame != out_frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            FormatNodeName(dst->name()), " has inputs from different frames: ",
            FormatNodeName(reached_from[dst->id()]->name()), " is in frame ",
            FrameDisplayName(frames_[dst_frame].name), " and ",
            FormatNodeName(node->name()), " in frame ",
            FrameDisplayName(frames_[out_frame].name)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ImmutableExecutorState::LayOutFrames(std::vector<int>* frame_of) {
  // Each frame's nodes in id order.
  for (const Node* node : graph_->nodes()) {
    NodeItem& item = items_[node->id()];
    if ((*frame_of)[node->id()] == -1) {
      if (node->IsOp()) {
        return absl::InternalError(absl::StrCat("Frame analysis never reached ",
                                                FormatNodeName(node->name())));
      }
      (*frame_of)[node->id()] = 0;  // SINK.
    }
    item.frame = (*frame_of)[node->id()];
    StaticFrame& sf = frames_[item.frame];
    item.pending_id = static_cast<int>(sf.initial_pending.size());
    sf.initial_pending.emplace_back();
    item.input_start = sf.total_inputs;
    sf.total_inputs += item.num_inputs;
    if (item.is_enter) ++frames_[item.child_frame].num_enters;
  }
  return absl::OkStatus();
}

void ImmutableExecutorState::BuildOutEdges() {
  const Graph& g = *graph_;
  const std::vector<Node*> nodes = g.nodes();
  // Edges into SINK matter only from the root frame (SINK runs there);
  // from inside a loop they are dropped.
  std::vector<int> num_in(g.num_node_ids(), 0);
  std::vector<int> num_control_in(g.num_node_ids(), 0);
  std::vector<bool> seen;
  for (const Node* node : nodes) {
    NodeItem& item = items_[node->id()];
    item.out_begin = static_cast<int>(out_edges_.size());
    const bool to_root = OutputFrame(item) == 0;
    for (const Edge* e : node->out_edges()) {
      if (e->dst()->IsSink() && !to_root) continue;
      OutEdge oe;
      oe.dst_id = e->dst()->id();
      oe.src_slot = e->IsControlEdge() ? kControlSlot : e->src_output();
      oe.dst_slot = e->IsControlEdge() ? kControlSlot : e->dst_input();
      out_edges_.push_back(oe);
      ++num_in[oe.dst_id];
      if (e->IsControlEdge()) ++num_control_in[oe.dst_id];
    }
    item.out_end = static_cast<int>(out_edges_.size());
    // Mark the last reader of each output slot.
    seen.assign(item.num_outputs, false);
    for (int k = item.out_end - 1; k >= item.out_begin; --k) {
      OutEdge& oe = out_edges_[k];
      if (oe.src_slot == kControlSlot || seen[oe.src_slot]) continue;
      seen[oe.src_slot] = true;
      oe.last_use = true;
    }
  }
  // Initial counters, per frame.
  for (const Node* node : nodes) {
    const NodeItem& item = items_[node->id()];
    PendingState& ps = frames_[item.frame].initial_pending[item.pending_id];
    ps.pending =
        item.is_merge ? num_control_in[node->id()] + 1 : num_in[node->id()];
    if (num_in[node->id()] == 0) root_nodes_.push_back(node->id());
  }
}

}  // namespace stepflow
