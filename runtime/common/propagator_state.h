// PropagatorState: one step's activation state for a graph with control
// flow (ImmutableExecutorState::requires_control_flow_support()): loop
// frames, iterations and dead values. TensorFlow's PropagatorState.
//
// A step's nodes run in frame instances (FrameState): the root frame, and
// one per (parent frame instance, parent iteration, frame_name) that an
// Enter leads into, named by its path (frame_path.h). Each frame instance
// holds its live iterations (IterationState): the pending counts and input
// slots of the frame's nodes for that iteration. PropagateOutputs delivers
// a finished node's outputs: within its iteration, into a child frame
// (Enter), to the parent frame (Exit) or to the next iteration
// (NextIteration), tracking dead values, bounding live iterations by
// parallel_iterations, and freeing iterations and frame instances once
// they are done. The rules are those of executor.h ("Loop frames").
//
// The executor picks this propagator or SimplePropagatorState once, when
// it is built; both offer the same members (see executor_state.h).
//
// Ownership: owned by the step's ExecutorState; owns every frame instance
// and iteration of the step; borrows the immutable state.
// Thread-safety: PropagateOutputs may be called concurrently for different
// nodes. Each frame instance has a mutex guarding its iterations and
// bookkeeping; a mutex guards the map of frame instances. Lock order: the
// map's before any frame's, a parent frame's before a child's. A ready
// node reads its own input slots without a lock: the lock that made it
// ready orders those reads after the writes, and nothing writes them again
// until the node has finished.
#ifndef STEPFLOW_RUNTIME_COMMON_PROPAGATOR_STATE_H_
#define STEPFLOW_RUNTIME_COMMON_PROPAGATOR_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "runtime/common/entry.h"
#include "runtime/common/immutable_executor_state.h"
#include "runtime/framework/rendezvous.h"

namespace stepflow {

class FrameState;

// One iteration of one frame instance: the counters and input slots of the
// frame's nodes for that iteration, and what keeps the iteration alive.
// Guarded by the owning frame's mutex, except for a ready node's reads of
// its own input slots (see above).
class IterationState {
 public:
  explicit IterationState(const StaticFrame& sf)
      : pending_(sf.initial_pending), inputs_(sf.total_inputs) {}

  PendingState& pending(int pending_id) { return pending_[pending_id]; }
  Entry* input(int slot) { return inputs_.data() + slot; }

  // Nodes of this iteration that are ready or running.
  int64_t outstanding_ops = 0;
  // Child frame instances started from this iteration and not yet done.
  int outstanding_frame_count = 0;

 private:
  std::vector<PendingState> pending_;
  std::vector<Entry> inputs_;
};

// A node that is ready to run, with the frame instance and iteration it
// runs in.
struct LoopTaggedNode {
  const NodeItem* item = nullptr;
  FrameState* frame = nullptr;
  IterationState* iter = nullptr;
  int64_t iter_id = 0;
  bool is_dead = false;

  const NodeItem& get_item() const { return *item; }
  bool get_is_dead() const { return is_dead; }
};
using LoopTaggedNodeSeq = absl::InlinedVector<LoopTaggedNode, 8>;

// One instance of a loop frame: the root frame of a step, or the frame a
// set of Enter nodes starts in one iteration of their parent frame.
// Owns its live iterations; its mutex guards them and the bookkeeping
// below. Lock order: a parent frame's mutex before a child's.
//
// Iterations: iteration 0 exists from the start; NextIteration starts
// iteration i+1 when it first delivers a live value from iteration i,
// unless `max_parallel_iterations` iterations are already live (then the
// value is deferred until the oldest finishes). An iteration is done when
// nothing of it is ready or running, no child frame of it is live, the one
// before it is done (iteration 0: every Enter has arrived); done
// iterations are freed in order. The frame is done when every Enter has
// arrived and no iteration is live; then dead Exits of its last iteration
// are delivered (as dead) to the parent.
class FrameState {
 public:
  using TaggedNodeSeq = LoopTaggedNodeSeq;

  // The root frame.
  explicit FrameState(const StaticFrame* sf);
  // A child frame started by an Enter in `parent`'s iteration
  // `parent_iter`.
  FrameState(const StaticFrame* sf, std::string path, FrameState* parent,
             int64_t parent_iter, int max_parallel_iterations);

  uint64_t frame_id() const { return frame_id_; }
  const std::string& path() const { return path_; }
  FrameState* parent() const { return parent_; }
  int64_t parent_iter() const { return parent_iter_; }
  bool is_root() const { return parent_ == nullptr; }
  absl::Mutex* mu() ABSL_LOCK_RETURNED(mu_) { return &mu_; }

  IterationState* GetIteration(int64_t iter)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = iterations_.find(iter);
    return it == iterations_.end() ? nullptr : it->second.get();
  }
  int64_t iteration_count() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return iteration_count_;
  }

  // Delivers `item`'s outputs along its out-edges in iteration `iter` and
  // appends the nodes that became ready to `ready` (counting them as
  // outstanding in that iteration).
  void ActivateNodes(const ImmutableExecutorState& immutable,
                     const NodeItem& item, bool is_dead, int64_t iter,
                     EntryVector* outputs, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ActivateNodes(immutable, item, is_dead, iter, GetIteration(iter), outputs,
                  ready);
  }
  // The same with iteration `iter`'s state at hand (a ready node's
  // LoopTaggedNode carries it): no lookup.
  void ActivateNodes(const ImmutableExecutorState& immutable,
                     const NodeItem& item, bool is_dead, int64_t iter,
                     IterationState* iter_state, EntryVector* outputs,
                     TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A constant Enter's value: delivered to every live iteration now and to
  // every iteration started later.
  void AddLoopInvariant(const ImmutableExecutorState& immutable,
                        const NodeItem& item, const Entry& value, bool is_dead,
                        TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // One of this frame's Enters has delivered. Returns true if that made the
  // frame done.
  bool EnterArrived(const ImmutableExecutorState& immutable,
                    TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A live value from NextIteration `item` in iteration `iter`: delivered
  // to iteration iter+1 (started if needed) or deferred.
  void NextIteration(const ImmutableExecutorState& immutable,
                     const NodeItem& item, int64_t iter, EntryVector* outputs,
                     TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A dead Exit in iteration `iter`: remembered if `iter` is the last
  // iteration so far.
  void AddDeadExit(const NodeItem& item, int64_t iter)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (iter == iteration_count_) dead_exits_.push_back(&item);
  }
  const std::vector<const NodeItem*>& dead_exits() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return dead_exits_;
  }

  // A node of iteration `iter` has finished (its outputs delivered).
  // Returns true if that made the frame done (never for the root frame).
  bool DecrementOutstandingOps(const ImmutableExecutorState& immutable,
                               int64_t iter, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return DecrementOutstandingOps(immutable, iter, GetIteration(iter), ready);
  }
  bool DecrementOutstandingOps(const ImmutableExecutorState& immutable,
                               int64_t iter, IterationState* iter_state,
                               TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Frees the done iterations from `iter` on. Returns true if the frame is
  // then done. Not for the root frame.
  bool CleanupIterations(const ImmutableExecutorState& immutable, int64_t iter,
                         TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  struct Deferred {
    const NodeItem* item = nullptr;
    Entry value;
    bool is_dead = false;
  };

  void IncrementIteration(const ImmutableExecutorState& immutable,
                          TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsIterationDone(int64_t iter) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsFrameDone() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return num_pending_inputs_ == 0 && num_outstanding_iterations_ == 0;
  }

  const StaticFrame* const sf_;
  const std::string path_;  // "" for the root frame.
  const uint64_t frame_id_;
  FrameState* const parent_;
  const int64_t parent_iter_;
  const int max_parallel_iterations_;

  absl::Mutex mu_;
  std::map<int64_t, std::unique_ptr<IterationState>> iterations_
      ABSL_GUARDED_BY(mu_);
  int64_t iteration_count_ ABSL_GUARDED_BY(mu_) = 0;  // Newest started.
  int num_outstanding_iterations_ ABSL_GUARDED_BY(mu_) = 1;
  int num_pending_inputs_ ABSL_GUARDED_BY(mu_);  // Enters yet to arrive.
  std::vector<Deferred> next_iter_roots_ ABSL_GUARDED_BY(mu_);
  std::vector<Deferred> loop_invariants_ ABSL_GUARDED_BY(mu_);
  std::vector<const NodeItem*> dead_exits_ ABSL_GUARDED_BY(mu_);
};

class PropagatorState {
 public:
  using TaggedNode = LoopTaggedNode;
  using TaggedNodeSeq = LoopTaggedNodeSeq;

  explicit PropagatorState(const ImmutableExecutorState& immutable);
  PropagatorState(const PropagatorState&) = delete;
  PropagatorState& operator=(const PropagatorState&) = delete;

  // Appends the root nodes (immutable.root_nodes(), in order), in the root
  // frame's iteration 0, to `ready`.
  void ActivateRoots(TaggedNodeSeq* ready);

  // Delivers the outputs of the finished node `tagged_node` (dead if
  // `is_dead`; moving between frames and iterations for Enter, Exit and
  // NextIteration), accounts for it in its iteration, frees iterations and
  // frame instances that became done, and appends the nodes that became
  // ready to `ready`.
  void PropagateOutputs(const TaggedNode& tagged_node, bool is_dead,
                        EntryVector* outputs, TaggedNodeSeq* ready);

  // The node's first input slot in its iteration; its inputs are the
  // num_inputs slots from there. Valid once the node is ready.
  Entry* GetInputTensors(const TaggedNode& tagged_node) const {
    return tagged_node.iter->input(tagged_node.item->input_start);
  }
  FrameAndIter GetFrameAndIter(const TaggedNode& tagged_node) const {
    return FrameAndIter{tagged_node.frame->frame_id(), tagged_node.iter_id};
  }

 private:
  // The child frame `enter` leads into from `parent`'s iteration
  // `parent_iter`, created on first use.
  FrameState* FindOrCreateChildFrame(FrameState* parent, int64_t parent_iter,
                                     const NodeItem& enter);
  // Frees a done frame after handing its dead Exits to the parent; repeats
  // for each ancestor that becomes done in turn.
  void DeleteFrame(FrameState* frame, TaggedNodeSeq* ready);

  const ImmutableExecutorState& immutable_;
  FrameState root_frame_;
  // Live child frame instances by path (see ChildFramePath).
  absl::Mutex frames_mu_;
  std::map<std::string, std::unique_ptr<FrameState>> frames_
      ABSL_GUARDED_BY(frames_mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_PROPAGATOR_STATE_H_
