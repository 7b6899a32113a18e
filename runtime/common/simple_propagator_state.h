// SimplePropagatorState: one step's activation state for a graph without
// control flow (ImmutableExecutorState::requires_control_flow_support()
// false): no loop frames and no node that makes or passes on a dead value.
// TensorFlow's SimplePropagatorState.
//
// In such a graph every node runs exactly once per step, in the root frame
// and iteration 0, and every value is live. So the state is one pending
// count per node and one input slot per node input: a finished node writes
// its successors' input slots and counts them down with an atomic
// fetch_sub, and the decrement that reaches zero makes the successor
// ready. No lock is taken, there is no iteration or frame bookkeeping, and
// a TaggedNode is just the node.
//
// The executor picks this propagator or PropagatorState once, when it is
// built, and instantiates its per-step state (ExecutorState) for it; both
// propagators offer the same members (see executor_state.h).
//
// Ownership: owned by the step's ExecutorState; borrows the immutable
// state, which outlives every step.
// Thread-safety: PropagateOutputs may be called concurrently for different
// nodes. Each input slot has one writer (the edge's source node); the
// acquire-release decrement that makes a node ready orders the node's
// reads of its input slots (GetInputTensors) after every write, and
// nothing writes them again in the step.
#ifndef STEPFLOW_RUNTIME_COMMON_SIMPLE_PROPAGATOR_STATE_H_
#define STEPFLOW_RUNTIME_COMMON_SIMPLE_PROPAGATOR_STATE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "runtime/common/entry.h"
#include "runtime/common/immutable_executor_state.h"
#include "runtime/framework/rendezvous.h"

namespace stepflow {

class SimplePropagatorState {
 public:
  // A node that is ready to run.
  class TaggedNode {
   public:
    TaggedNode() = default;
    explicit TaggedNode(const NodeItem* item) : item_(item) {}
    const NodeItem& get_item() const { return *item_; }
    // Nothing is dead without control flow.
    bool get_is_dead() const { return false; }

   private:
    const NodeItem* item_ = nullptr;
  };
  using TaggedNodeSeq = absl::InlinedVector<TaggedNode, 8>;

  explicit SimplePropagatorState(const ImmutableExecutorState& immutable);
  SimplePropagatorState(const SimplePropagatorState&) = delete;
  SimplePropagatorState& operator=(const SimplePropagatorState&) = delete;

  // Appends the root nodes (immutable.root_nodes(), in order) to `ready`.
  void ActivateRoots(TaggedNodeSeq* ready);

  // Delivers the outputs of the finished node `tagged_node` along its
  // out-edges (moving a value on its last use) and appends the successors
  // that became ready to `ready`, in out-edge order. `is_dead` is always
  // false here.
  void PropagateOutputs(const TaggedNode& tagged_node, bool is_dead,
                        EntryVector* outputs, TaggedNodeSeq* ready);

  // The node's first input slot; its inputs are the num_inputs slots from
  // there. Valid once the node is ready.
  Entry* GetInputTensors(const TaggedNode& tagged_node) {
    return input_tensors_.data() + tagged_node.get_item().input_start;
  }
  // Always the root frame's iteration 0.
  FrameAndIter GetFrameAndIter(const TaggedNode&) const {
    return FrameAndIter{};
  }

 private:
  const ImmutableExecutorState& immutable_;
  // By NodeItem::pending_id: in-edges not yet delivered.
  std::unique_ptr<std::atomic<int32_t>[]> pending_;
  std::vector<Entry> input_tensors_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_SIMPLE_PROPAGATOR_STATE_H_
