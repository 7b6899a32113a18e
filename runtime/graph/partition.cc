#include "runtime/graph/partition.h"

#include <deque>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

// While-loop frame of every node, as reached from the roots: Enter starts
// the frame named by its frame_name attr, Exit returns to the enclosing
// frame. "" is the root frame. A node's frame is the frame of its inputs
// (for an Enter, the enclosing frame; for an Exit, the frame it leaves).
class FrameInfo {
 public:
  struct Frame {
    std::string parent;
    const Node* loop_cond = nullptr;  // The frame's pivot predicate.
    int64_t parallel_iterations = 10;
  };

  absl::Status Build(const Graph& g) {
    // Without an Enter every node is in the root frame: no per-node state.
    no_loops_ = true;
    for (const Node* n : g.op_nodes()) {
      if (n->IsEnter()) {
        no_loops_ = false;
        break;
      }
    }
    if (no_loops_) return absl::OkStatus();
    node_frame_.assign(g.num_node_ids(), "");
    std::vector<bool> seen(g.num_node_ids(), false);
    std::deque<const Node*> queue;
    for (const Node* n : g.nodes()) {
      if (n->IsSource() || n->in_edges().empty()) {
        seen[n->id()] = true;
        queue.push_back(n);
      }
    }
    while (!queue.empty()) {
      const Node* n = queue.front();
      queue.pop_front();
      std::string out_frame;
      SF_RETURN_IF_ERROR(OutputFrame(n, &out_frame));
      if (n->IsLoopCond()) {
        auto it = frames_.find(node_frame_[n->id()]);
        if (it != frames_.end() && it->second.loop_cond == nullptr) {
          it->second.loop_cond = n;
        }
      }
      for (const Edge* e : n->out_edges()) {
        const Node* dst = e->dst();
        if (seen[dst->id()]) continue;
        seen[dst->id()] = true;
        node_frame_[dst->id()] = out_frame;
        queue.push_back(dst);
      }
    }
    return absl::OkStatus();
  }

  // The frame of `n`'s inputs.
  const std::string& InputFrame(const Node* n) const {
    static const std::string* const kRoot = new std::string();
    return no_loops_ ? *kRoot : node_frame_[n->id()];
  }
  // Whether the graph has no while loop (every frame is the root frame).
  bool no_loops() const { return no_loops_; }

  // The frame that the values produced by `n` live in.
  absl::Status OutputFrame(const Node* n, std::string* frame) {
    const std::string& own = InputFrame(n);
    if (n->IsEnter()) {
      SF_RETURN_IF_ERROR(GetNodeAttr(n->def(), "frame_name", frame));
      auto [it, inserted] = frames_.try_emplace(*frame);
      if (inserted) {
        it->second.parent = own;
        int64_t parallel = 10;
        if (GetNodeAttr(n->def(), "parallel_iterations", &parallel).ok()) {
          it->second.parallel_iterations = parallel;
        }
      }
      return absl::OkStatus();
    }
    if (n->IsExit()) {
      *frame = Parent(own);
      return absl::OkStatus();
    }
    *frame = own;
    return absl::OkStatus();
  }

  // The enclosing frame of `frame` ("" for the root and unknown frames).
  std::string Parent(const std::string& frame) const {
    auto it = frames_.find(frame);
    return it == frames_.end() ? "" : it->second.parent;
  }
  const Frame* Find(const std::string& frame) const {
    auto it = frames_.find(frame);
    return it == frames_.end() ? nullptr : &it->second;
  }

  // Records the frame of a node added after Build.
  void SetInputFrame(const Node* n, const std::string& frame) {
    if (no_loops_) {
      if (frame.empty()) return;
      no_loops_ = false;
    }
    if (n->id() >= static_cast<int>(node_frame_.size())) {
      node_frame_.resize(n->id() + 1);
    }
    node_frame_[n->id()] = frame;
  }

 private:
  bool no_loops_ = false;
  std::vector<std::string> node_frame_;  // By node id: the input frame.
  std::map<std::string, Frame> frames_;  // By frame name.
};

// Names of control-loop nodes start with this.
constexpr char kControlLoopPrefix[] = "_cloop";

// Identifies one Send/Recv pair: (src id, src output or kControlSlot,
// destination location id).
using RecvKey = std::tuple<int, int, int>;

std::string InputName(const std::string& node, int slot) {
  if (slot == kControlSlot) return absl::StrCat("^", node);
  if (slot == 0) return node;
  return absl::StrCat(node, ":", slot);
}

class Partitioner {
 public:
  Partitioner(const PartitionOptions& opts, Graph* g,
              std::map<std::string, GraphDef>* partitions)
      : opts_(opts), g_(*g), partitions_(partitions) {}

  absl::Status Run() {
    partitions_->clear();
    if (!opts_.node_to_loc || !opts_.new_name || !opts_.get_incarnation) {
      return absl::InvalidArgumentError(
          "Partition: PartitionOptions must set node_to_loc, new_name and "
          "get_incarnation");
    }
    loc_.assign(g_.num_node_ids(), -1);
    for (const Node* n : g_.op_nodes()) {
      if (!n->has_assigned_device_name()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Partition: ", FormatNodeName(n->name()),
                         " has no assigned device"));
      }
      loc_[n->id()] = InternLoc(opts_.node_to_loc(n));
    }
    SF_RETURN_IF_ERROR(frames_.Build(g_));
    SF_RETURN_IF_ERROR(ColocateLoopValues());
    SF_RETURN_IF_ERROR(AddControlLoops());
    const std::vector<Node*> op_nodes = g_.op_nodes();
    std::vector<NodeDef*> outputs;
    outputs.reserve(op_nodes.size());
    for (const Node* dst : op_nodes) {
      NodeDef* out = nullptr;
      SF_RETURN_IF_ERROR(AddNode(dst, &out));
      outputs.push_back(out);
    }
    // Names are read until every input is written, so the bodies come last.
    for (size_t i = 0; i < op_nodes.size(); ++i) {
      Node* n = op_nodes[i];
      NodeDef* out = outputs[i];
      if (opts_.take_node_defs) {
        NodeDef body = g_.TakeNodeDef(n);
        body.mutable_input()->Swap(out->mutable_input());
        out->Swap(&body);
      } else {
        CopyBody(n->def(), out);
      }
      out->set_device(n->assigned_device_name());
    }
    return absl::OkStatus();
  }

 private:
  // A control loop: a copy of a frame's loop on one location, iterating a
  // dummy value under the frame's predicate so that Recvs in the frame run
  // once per iteration there.
  struct ControlLoop {
    Node* merge = nullptr;
  };

  // A non-constant Enter's value exists only in iteration 0 and a
  // NextIteration's from iteration 1 on, while a Recv inside a loop runs in
  // every iteration: such values must not cross locations. Like
  // TensorFlow, move the node next to its first data consumer; any other
  // consumer elsewhere is Unimplemented.
  absl::Status ColocateLoopValues() {
    for (Node* n : g_.op_nodes()) {
      bool iteration_bound = n->IsNextIteration();
      if (n->IsEnter()) {
        bool is_constant = false;
        SF_RETURN_IF_ERROR(GetNodeAttr(n->def(), "is_constant", &is_constant));
        iteration_bound = !is_constant;
      }
      if (!iteration_bound) continue;
      const Node* consumer = nullptr;
      for (const Edge* e : n->out_edges()) {
        if (!e->IsControlEdge() && e->dst()->IsOp()) {
          consumer = e->dst();
          break;
        }
      }
      if (consumer != nullptr && loc_[consumer->id()] != loc_[n->id()] &&
          !(n->IsEnter() && IsRefType(n->input_type(0)))) {
        n->set_assigned_device_name(consumer->assigned_device_name());
        loc_[n->id()] = InternLoc(opts_.node_to_loc(n));
      }
    }
    for (const Node* n : g_.op_nodes()) {
      if (!n->IsNextIteration() && !n->IsEnter()) continue;
      bool is_constant = false;
      if (n->IsEnter()) {
        SF_RETURN_IF_ERROR(GetNodeAttr(n->def(), "is_constant", &is_constant));
      }
      if (is_constant) continue;
      for (const Edge* e : n->out_edges()) {
        if (!e->dst()->IsOp() || loc_[e->dst()->id()] == loc_[n->id()]) {
          continue;
        }
        return absl::UnimplementedError(absl::StrCat(
            "Partition: ", FormatNodeName(n->name()), " (", n->type_string(),
            (n->IsEnter() ? ", not constant" : ""), ") on location '",
            LocName(n), "' feeds ", FormatNodeName(e->dst()->name()),
            " on location '", LocName(e->dst()),
            "'; its value exists only in some iterations, so it cannot "
            "cross locations inside a while loop"));
      }
    }
    return absl::OkStatus();
  }

  // The frame in which edge `e` carries values, or "" if the edge does not
  // stay inside one loop frame.
  absl::Status EdgeFrame(const Edge* e, std::string* frame) {
    std::string src_frame;
    SF_RETURN_IF_ERROR(frames_.OutputFrame(e->src(), &src_frame));
    const std::string& dst_frame = frames_.InputFrame(e->dst());
    *frame = src_frame == dst_frame ? src_frame : "";
    return absl::OkStatus();
  }

  // For every cross-location edge inside a loop frame, a control loop for
  // that frame (and, nested, each enclosing frame) on the destination, so
  // its Recv runs once per iteration, and one on the source, so the source
  // side has the same iterations: a loop invariant (a constant Enter's
  // value) is re-activated in each iteration only where the frame
  // iterates, and without a loop next to it a Send of that value would run
  // once while its Recv waits in every iteration.
  absl::Status AddControlLoops() {
    if (frames_.no_loops()) return absl::OkStatus();
    const std::vector<const Edge*> edges = g_.edges();  // Id order.
    for (const Edge* e : edges) {
      const Node* src = e->src();
      const Node* dst = e->dst();
      if (!src->IsOp() || !dst->IsOp()) continue;
      if (loc_[src->id()] == loc_[dst->id()]) continue;
      std::string frame;
      SF_RETURN_IF_ERROR(EdgeFrame(e, &frame));
      if (frame.empty()) continue;
      ControlLoop* unused = nullptr;
      SF_RETURN_IF_ERROR(EnsureControlLoop(frame, dst, &unused));
      SF_RETURN_IF_ERROR(EnsureControlLoop(frame, src, &unused));
    }
    return absl::OkStatus();
  }

  // The frame's pivot predicate: its LoopCond, or (in a graph that an
  // earlier partitioning already split) the predicate of a control loop.
  absl::Status FramePredicate(const std::string& frame, const Node** node,
                              int* slot) {
    const FrameInfo::Frame* f = frames_.Find(frame);
    if (f != nullptr && f->loop_cond != nullptr) {
      *node = f->loop_cond;
      *slot = 0;
      return absl::OkStatus();
    }
    for (const Node* n : g_.op_nodes()) {
      if (!n->IsSwitch() || !absl::StartsWith(n->name(), kControlLoopPrefix) ||
          frames_.InputFrame(n) != frame) {
        continue;
      }
      for (const Edge* e : n->in_edges()) {
        if (e->dst_input() == 1) {
          *node = e->src();
          *slot = e->src_output();
          return absl::OkStatus();
        }
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "Partition: while-loop frame '", frame,
        "' is split across locations but has no LoopCond (a cross-location "
        "loop needs its pivot predicate)"));
  }

  absl::StatusOr<Node*> AddLoopNode(NodeDef def, const std::string& device,
                                    const std::string& frame) {
    def.set_device(device);
    absl::StatusOr<Node*> n = g_.AddNode(std::move(def));
    if (!n.ok()) return n.status();
    (*n)->set_assigned_device_name(device);
    if ((*n)->id() >= static_cast<int>(loc_.size())) {
      loc_.resize((*n)->id() + 1, -1);
    }
    loc_[(*n)->id()] = InternLoc(opts_.node_to_loc(*n));
    frames_.SetInputFrame(*n, frame);
    return *n;
  }

  // The control loop for `frame` on `dst`'s location, built on first use
  // on `dst`'s device:
  //   dummy -> Enter -> Merge -> Switch(pred) -:1-> NextIteration -> Merge
  //                                           -:0-> Exit
  // where dummy is a scalar float Const in the root frame, or the Merge of
  // the enclosing frame's control loop for a nested frame, and pred is the
  // frame's LoopCond (received from its location when elsewhere).
  absl::Status EnsureControlLoop(const std::string& frame, const Node* dst,
                                 ControlLoop** out) {
    const std::string& loc = LocName(dst);
    const auto key = std::make_pair(frame, loc);
    auto it = control_loops_.find(key);
    if (it != control_loops_.end()) {
      *out = &it->second;
      return absl::OkStatus();
    }
    const FrameInfo::Frame* f = frames_.Find(frame);
    if (f == nullptr) {
      return absl::InternalError(absl::StrCat(
          "Partition: no Enter found for while-loop frame '", frame, "'"));
    }
    const std::string parent = f->parent;
    const int64_t parallel_iterations = f->parallel_iterations;
    const std::string& device = dst->assigned_device_name();
    const Node* pred = nullptr;
    int pred_slot = 0;
    SF_RETURN_IF_ERROR(FramePredicate(frame, &pred, &pred_slot));
    auto name = [&]() {
      return opts_.new_name(absl::StrCat(kControlLoopPrefix, dst->name()));
    };

    Node* dummy = nullptr;
    if (parent.empty()) {
      NodeDef def;
      def.set_name(name());
      def.set_op("Const");
      TensorProto value;
      value.set_dtype(DT_FLOAT);
      value.mutable_tensor_shape();  // scalar
      value.add_float_val(0.0f);
      AddNodeAttr("dtype", DT_FLOAT, &def);
      AddNodeAttr("value", value, &def);
      SF_ASSIGN_OR_RETURN(dummy, AddLoopNode(std::move(def), device, ""));
    } else {
      ControlLoop* outer = nullptr;
      SF_RETURN_IF_ERROR(EnsureControlLoop(parent, dst, &outer));
      dummy = outer->merge;
    }

    auto make = [&](const std::string& op,
                    const std::vector<std::string>& inputs) {
      NodeDef def;
      def.set_name(name());
      def.set_op(op);
      for (const std::string& in : inputs) def.add_input(in);
      AddNodeAttr("T", DT_FLOAT, &def);
      return def;
    };
    NodeDef enter_def = make("Enter", {dummy->name()});
    AddNodeAttr("frame_name", frame, &enter_def);
    AddNodeAttr("is_constant", false, &enter_def);
    AddNodeAttr("parallel_iterations", parallel_iterations, &enter_def);
    Node* enter = nullptr;
    SF_ASSIGN_OR_RETURN(enter,
                        AddLoopNode(std::move(enter_def), device, parent));
    const std::string merge_name = name();
    const std::string switch_name = name();
    const std::string next_name = name();
    const std::string exit_name = name();
    NodeDef merge_def = make("Merge", {enter->name(), next_name});
    AddNodeAttr("N", static_cast<int64_t>(2), &merge_def);
    merge_def.set_name(merge_name);
    NodeDef switch_def =
        make("Switch", {merge_name, InputName(pred->name(), pred_slot)});
    switch_def.set_name(switch_name);
    NodeDef next_def = make("NextIteration", {InputName(switch_name, 1)});
    next_def.set_name(next_name);
    NodeDef exit_def = make("Exit", {switch_name});
    exit_def.set_name(exit_name);
    Node* merge = nullptr;
    Node* switch_node = nullptr;
    Node* next_node = nullptr;
    Node* exit_node = nullptr;
    SF_ASSIGN_OR_RETURN(merge,
                        AddLoopNode(std::move(merge_def), device, frame));
    SF_ASSIGN_OR_RETURN(switch_node,
                        AddLoopNode(std::move(switch_def), device, frame));
    SF_ASSIGN_OR_RETURN(next_node,
                        AddLoopNode(std::move(next_def), device, frame));
    SF_ASSIGN_OR_RETURN(exit_node,
                        AddLoopNode(std::move(exit_def), device, frame));
    g_.AddEdge(dummy, 0, enter, 0);
    g_.AddEdge(enter, 0, merge, 0);
    g_.AddEdge(next_node, 0, merge, 1);
    g_.AddEdge(merge, 0, switch_node, 0);
    g_.AddEdge(g_.FindNodeId(pred->id()), pred_slot, switch_node, 1);
    g_.AddEdge(switch_node, 1, next_node, 0);
    g_.AddEdge(switch_node, 0, exit_node, 0);
    if (dummy->in_edges().empty()) g_.AddControlEdge(g_.source_node(), dummy);
    g_.AddControlEdge(exit_node, g_.sink_node());
    it = control_loops_.emplace(key, ControlLoop{merge}).first;
    *out = &it->second;
    return absl::OkStatus();
  }

  // The id of location `name`, numbered in order of first appearance.
  int InternLoc(std::string name) {
    auto [it, inserted] =
        loc_ids_.try_emplace(name, static_cast<int>(loc_names_.size()));
    if (inserted) {
      loc_names_.push_back(std::move(name));
      loc_graphs_.push_back(nullptr);
    }
    return it->second;
  }
  const std::string& LocName(const Node* n) const {
    return loc_names_[loc_[n->id()]];
  }

  GraphDef* PartitionFor(int loc) {
    if (loc_graphs_[loc] != nullptr) return loc_graphs_[loc];
    auto [it, inserted] = partitions_->try_emplace(loc_names_[loc]);
    if (inserted) {
      *it->second.mutable_versions() = g_.versions();
      if (g_.library().function_size() > 0) {
        *it->second.mutable_library() = g_.library();
      }
    }
    loc_graphs_[loc] = &it->second;  // std::map nodes do not move.
    return &it->second;
  }

  // Data in-edges of `dst` by slot, then its control in-edges.
  absl::Status OrderedInEdges(const Node* dst,
                              std::vector<const Edge*>* inputs) {
    inputs->assign(dst->num_inputs(), nullptr);
    std::vector<const Edge*>& controls = control_scratch_;
    controls.clear();
    for (const Edge* e : dst->in_edges()) {
      if (e->IsControlEdge()) {
        controls.push_back(e);
        continue;
      }
      const int slot = e->dst_input();
      if (slot < 0 || slot >= dst->num_inputs() || (*inputs)[slot] != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Partition: ", FormatNodeName(dst->name()),
            " has an invalid or duplicate edge into input ", slot));
      }
      (*inputs)[slot] = e;
    }
    for (int slot = 0; slot < dst->num_inputs(); ++slot) {
      if ((*inputs)[slot] == nullptr) {
        int missing = 0;
        for (const Edge* e : *inputs) missing += e == nullptr ? 1 : 0;
        return absl::InvalidArgumentError(
            absl::StrCat("Incomplete graph: ", FormatNodeName(dst->name()),
                         " is missing ", missing, " of its ", dst->num_inputs(),
                         " inputs (first: input ", slot, ")"));
      }
    }
    inputs->insert(inputs->end(), controls.begin(), controls.end());
    return absl::OkStatus();
  }

  // Every field of the client's NodeDef but its inputs and device.
  static void CopyBody(const NodeDef& def, NodeDef* out) {
    out->set_name(def.name());
    out->set_op(def.op());
    *out->mutable_attr() = def.attr();
    if (def.has_experimental_debug_info()) {
      *out->mutable_experimental_debug_info() = def.experimental_debug_info();
    }
  }

  // Appends `dst`'s NodeDef to its partition as *out, with only its inputs
  // rewritten so far (the rest comes from CopyBody or TakeNodeDef), and
  // the Send/Recv pairs its cross-location inputs need.
  absl::Status AddNode(const Node* dst, NodeDef** out) {
    std::vector<const Edge*>& inputs = input_scratch_;
    SF_RETURN_IF_ERROR(OrderedInEdges(dst, &inputs));
    const int dst_loc = loc_[dst->id()];
    NodeDef* dst_def = PartitionFor(dst_loc)->add_node();
    *out = dst_def;
    dst_def->mutable_input()->Reserve(static_cast<int>(inputs.size()));
    // Written control inputs, to drop duplicates (allocates only if used);
    // the views point into dst_def's strings, which are never rewritten.
    absl::flat_hash_set<absl::string_view> control_inputs;
    auto add_input = [&](const std::string& node, int slot) {
      std::string* input = dst_def->add_input();
      *input = InputName(node, slot);
      if (slot == kControlSlot && !control_inputs.insert(*input).second) {
        dst_def->mutable_input()->RemoveLast();
      }
    };
    for (const Edge* e : inputs) {
      const Node* src = e->src();
      if (!src->IsOp()) continue;  // SOURCE edges are not reproduced.
      const int slot = e->src_output();
      if (loc_[src->id()] == dst_loc) {
        add_input(src->name(), slot);
        continue;
      }
      const RecvKey key{src->id(), slot, dst_loc};
      auto it = recv_for_.find(key);
      if (it == recv_for_.end()) {
        std::string frame;
        SF_RETURN_IF_ERROR(EdgeFrame(e, &frame));
        std::string loop_merge;
        if (!frame.empty()) {
          auto loop =
              control_loops_.find(std::make_pair(frame, loc_names_[dst_loc]));
          if (loop == control_loops_.end()) {
            return absl::InternalError(
                absl::StrCat("Partition: no control loop for frame '", frame,
                             "' on location '", loc_names_[dst_loc], "' (edge ",
                             FormatNodeName(src->name()), " -> ",
                             FormatNodeName(dst->name()), ")"));
          }
          loop_merge = loop->second.merge->name();
        }
        std::string received;
        SF_RETURN_IF_ERROR(AddSendRecv(e, loop_merge, &received));
        it = recv_for_.emplace(key, std::move(received)).first;
      }
      add_input(it->second, slot == kControlSlot ? kControlSlot : 0);
    }
    return absl::OkStatus();
  }

  // Adds the Send side to src's partition and the Recv side to dst's, and
  // returns in `received` the destination node whose output 0 (data) or
  // completion (control) stands for the edge. Inside a loop frame the Recv
  // takes a control input from `loop_merge`, the frame's control loop on
  // the destination, so that it runs once per iteration.
  absl::Status AddSendRecv(const Edge* e, const std::string& loop_merge,
                           std::string* received) {
    const Node* src = e->src();
    const Node* dst = e->dst();
    const bool is_control = e->IsControlEdge();
    const std::string& send_device = src->assigned_device_name();
    const std::string& recv_device = dst->assigned_device_name();
    const std::string tensor_name =
        absl::StrCat("edge_", e->id(), "_", src->name());
    const DataType dtype =
        is_control ? DT_FLOAT : BaseType(dst->input_type(e->dst_input()));
    const int64_t incarnation =
        static_cast<int64_t>(opts_.get_incarnation(send_device));
    GraphDef* src_graph = PartitionFor(loc_[src->id()]);
    GraphDef* dst_graph = PartitionFor(loc_[dst->id()]);

    std::string send_input = InputName(src->name(), e->src_output());
    if (is_control) {
      // A control edge carries no value: send a tiny constant that runs
      // only after `src`.
      NodeDef* dummy = src_graph->add_node();
      dummy->set_name(opts_.new_name(src->name()));
      dummy->set_op("Const");
      dummy->set_device(send_device);
      dummy->add_input(InputName(src->name(), kControlSlot));
      TensorProto value;
      value.set_dtype(DT_FLOAT);
      value.mutable_tensor_shape();  // scalar
      value.add_float_val(0.0f);
      AddNodeAttr("dtype", DT_FLOAT, dummy);
      AddNodeAttr("value", value, dummy);
      send_input = dummy->name();
    }

    auto add_transfer_attrs = [&](NodeDef* def) {
      AddNodeAttr("tensor_name", tensor_name, def);
      AddNodeAttr("send_device", send_device, def);
      AddNodeAttr("send_device_incarnation", incarnation, def);
      AddNodeAttr("recv_device", recv_device, def);
      AddNodeAttr("client_terminated", false, def);
    };

    NodeDef* send = src_graph->add_node();
    send->set_name(opts_.new_name(src->name()));
    send->set_op("_Send");
    send->set_device(send_device);
    send->add_input(send_input);
    AddNodeAttr("T", dtype, send);
    add_transfer_attrs(send);

    NodeDef* recv = dst_graph->add_node();
    recv->set_name(opts_.new_name(src->name()));
    recv->set_op("_Recv");
    recv->set_device(recv_device);
    AddNodeAttr("tensor_type", dtype, recv);
    add_transfer_attrs(recv);
    if (!loop_merge.empty())
      recv->add_input(InputName(loop_merge, kControlSlot));
    *received = recv->name();

    if (is_control) {
      NodeDef* identity = dst_graph->add_node();
      identity->set_name(opts_.new_name(src->name()));
      identity->set_op("Identity");
      identity->set_device(recv_device);
      identity->add_input(recv->name());
      AddNodeAttr("T", DT_FLOAT, identity);
      *received = identity->name();
    }
    return absl::OkStatus();
  }

  const PartitionOptions& opts_;
  Graph& g_;
  std::map<std::string, GraphDef>* const partitions_;
  std::vector<int> loc_;  // By node id: a location id (-1 for non-ops).
  std::vector<std::string> loc_names_;             // By location id.
  absl::flat_hash_map<std::string, int> loc_ids_;  // Name -> location id.
  std::vector<GraphDef*> loc_graphs_;  // By location id; null until used.
  FrameInfo frames_;
  absl::flat_hash_map<RecvKey, std::string> recv_for_;
  std::vector<const Edge*> input_scratch_;    // AddNode's ordered inputs.
  std::vector<const Edge*> control_scratch_;  // OrderedInEdges' controls.
  // By (frame, location).
  std::map<std::pair<std::string, std::string>, ControlLoop> control_loops_;
};

}  // namespace

absl::Status Partition(const PartitionOptions& opts, Graph* g,
                       std::map<std::string, GraphDef>* partitions) {
  if (g == nullptr || partitions == nullptr) {
    return absl::InvalidArgumentError("Partition: null graph or output");
  }
  return Partitioner(opts, g, partitions).Run();
}

}  // namespace stepflow
