// ImmutableExecutorState: what an executor knows about its graph before
// any step runs (TensorFlow's GraphView and ImmutableExecutorState).
//
// Initialize() checks the graph, creates every op node's kernel once and
// lays the graph out for the per-step code: a NodeItem per node (its
// kernel, what kind of node it is, its frame and where its counters and
// input slots live), the out-edges of all nodes flattened into one array,
// one StaticFrame per loop frame the graph names (plus the root frame)
// with the initial pending counts of its nodes, the root nodes, and
// whether steps need the loop-frame propagator at all
// (requires_control_flow_support()).
//
// Errors (all from Initialize, each naming the node; nothing is usable
// after one): InvalidArgument for a malformed graph (a data input that is
// unconnected, connected twice or out of range; a cycle not closed by
// NextIteration; a node with inputs from different frames; Exit or
// NextIteration outside any loop; Enters of one frame_name in different
// parent frames; an Enter without a frame_name or with
// parallel_iterations <= 0; an Enter, Exit or NextIteration without
// exactly one input and one output; no device or no scheduler); the
// kernel factory's error, annotated with the node; Internal for a factory
// that returns no kernel or one whose arity differs from the node's.
//
// Ownership: owns the graph and the kernels (shared with whoever else the
// factory gave them to). The device and env are borrowed and must outlive
// this object.
// Thread-safety: Initialize() once, before any other use; afterwards the
// object is immutable and every const method may be called from any
// thread (every step of every thread reads it).
#ifndef STEPFLOW_RUNTIME_COMMON_IMMUTABLE_EXECUTOR_STATE_H_
#define STEPFLOW_RUNTIME_COMMON_IMMUTABLE_EXECUTOR_STATE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/node_def.pb.h"
#include "runtime/common/device.h"
#include "runtime/env/env.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/types.h"
#include "runtime/graph/graph.h"

namespace stepflow {

// One out-edge of a node, in the node's out_edges() order.
struct OutEdge {
  int32_t dst_id = 0;
  int32_t src_slot = 0;  // kControlSlot for control edges.
  int32_t dst_slot = 0;  // Input index on dst; kControlSlot for control.
  // True on the last data out-edge reading `src_slot`: that edge may move
  // the value instead of copying it.
  bool last_use = false;
};

// What a _Send/_HostSend needs to send a dead value without its kernel.
struct SendInfo {
  SendRecvKey key;  // The same key the node's kernel sends under.
  bool on_host = true;
};

struct NodeItem {
  const Node* node = nullptr;
  OpKernel* kernel = nullptr;  // Null for SOURCE and SINK.
  AsyncOpKernel* async_kernel = nullptr;
  bool is_expensive = false;
  bool is_merge = false;
  // A NoOp: no inputs, no outputs, nothing to compute. Without step stats
  // the executor skips its kernel call (and the context it would need).
  bool is_noop = false;
  bool is_switch = false;
  bool is_recv = false;
  bool is_send = false;
  bool is_control_trigger = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool allows_uninitialized_input = false;
  int num_inputs = 0;
  int num_outputs = 0;
  // The static frame the node runs in (0 = root), its index among that
  // frame's nodes, and its first slot in an iteration's inputs.
  int frame = 0;
  int pending_id = 0;
  int input_start = 0;
  // [out_begin, out_end) in ImmutableExecutorState::out_edges().
  int out_begin = 0;
  int out_end = 0;
  const DataType* input_types = nullptr;   // The kernel's, num_inputs long.
  const DataType* output_types = nullptr;  // The kernel's, num_outputs long.
  std::unique_ptr<SendInfo> send;          // Sends only.
  // Enter only: the frame it enters (name and static index) and the
  // parallel_iterations of the frames it creates.
  std::string frame_name;
  int child_frame = -1;
  int parallel_iterations = 1;

  bool is_transfer() const { return is_send || is_recv; }
  const std::string& name() const { return node->name(); }
};

// Per-node activation counters for one iteration.
//  * Non-Merge: `pending` = in-edges not yet delivered; `dead_count` =
//    dead ones among those delivered.
//  * Merge: `pending` = control in-edges not yet delivered, plus 1 until
//    the first live data input arrives (`live_seen`); `dead_count` = dead
//    data inputs.
struct PendingState {
  int32_t pending = 0;
  int32_t dead_count = 0;
  bool live_seen = false;
};

// A loop frame as the graph describes it (one per frame_name, plus the
// root): the nodes running in it are numbered by NodeItem::pending_id.
struct StaticFrame {
  std::string name;  // "" for the root frame.
  int parent = -1;   // Static index of the enclosing frame.
  std::vector<PendingState> initial_pending;  // By pending_id.
  int total_inputs = 0;
  int num_enters = 0;  // Enter nodes whose frame_name is `name`.
};

class ImmutableExecutorState {
 public:
  // Creates the kernel of one op node. The kernel may be shared with
  // other executors.
  using KernelFactory =
      std::function<absl::Status(const NodeDef&, std::shared_ptr<OpKernel>*)>;

  ImmutableExecutorState(Device* device, Env* env, KernelFactory factory,
                         std::unique_ptr<const Graph> graph);
  ImmutableExecutorState(const ImmutableExecutorState&) = delete;
  ImmutableExecutorState& operator=(const ImmutableExecutorState&) = delete;

  // Checks the graph, creates the kernels and computes the layout.
  absl::Status Initialize();

  Device* device() const { return device_; }
  Env* env() const { return env_; }
  // Handed to every kernel's context; set before the first step.
  FunctionLibraryRuntime* function_library() const { return function_library_; }
  void set_function_library(FunctionLibraryRuntime* f) {
    function_library_ = f;
  }
  const Graph& graph() const { return *graph_; }
  // By node id.
  const NodeItem& item(int id) const { return items_[id]; }
  const std::vector<OutEdge>& out_edges() const { return out_edges_; }
  // [0] is the root frame; a child frame's index is greater than its
  // parent's.
  const StaticFrame& static_frame(int index) const { return frames_[index]; }
  int num_static_frames() const { return static_cast<int>(frames_.size()); }
  // The nodes without in-edges, in id order: a step starts with them.
  const std::vector<int>& root_nodes() const { return root_nodes_; }

  // False when the graph has no loop frame and no node that can make or
  // pass on a dead value (Switch, Merge, _Recv, Enter, Exit,
  // NextIteration, ControlTrigger): then every value is live and every
  // node runs exactly once per step, in the root frame, and steps use
  // SimplePropagatorState; otherwise PropagatorState.
  bool requires_control_flow_support() const {
    return requires_control_flow_support_;
  }

 private:
  absl::Status InitializeNode(const Node* node, NodeItem* item);
  absl::Status InitializeEnter(const Node* node, NodeItem* item) const;
  absl::Status InitializeSend(const Node* node, NodeItem* item) const;
  absl::Status CheckInEdges(const Node* node) const;
  absl::Status CheckAcyclic() const;
  // Assigns every node its static frame (BFS from the roots: Enter leads
  // into its frame, Exit back to the parent) and lays out each frame's
  // per-iteration state.
  absl::Status BuildFrames();
  absl::Status AssignFrames(std::vector<int>* frame_of);
  absl::Status LayOutFrames(std::vector<int>* frame_of);
  // Flattens the out-edges (marking each output's last reader), then
  // sets the initial pending counts and finds the root nodes.
  void BuildOutEdges();
  // The static frame the values produced by `item` live in.
  int OutputFrame(const NodeItem& item) const {
    if (item.is_enter) return item.child_frame;
    if (item.is_exit) return frames_[item.frame].parent;
    return item.frame;
  }

  Device* const device_;
  Env* const env_;
  FunctionLibraryRuntime* function_library_ = nullptr;
  const KernelFactory create_kernel_;
  const std::unique_ptr<const Graph> graph_;
  std::vector<std::shared_ptr<OpKernel>> kernels_;
  std::vector<NodeItem> items_;  // Indexed by node id (holes for removed).
  std::vector<OutEdge> out_edges_;
  std::vector<StaticFrame> frames_;  // [0] is the root frame.
  std::vector<int> root_nodes_;      // No in-edges; id order.
  bool requires_control_flow_support_ = true;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_IMMUTABLE_EXECUTOR_STATE_H_
