#include "runtime/common/propagator_state.h"

#include <utility>

#include "runtime/common/frame_path.h"

namespace stepflow {

// ---------------------------------------------------------------------------
// FrameState

FrameState::FrameState(const StaticFrame* sf)
    : sf_(sf),
      frame_id_(0),
      parent_(nullptr),
      parent_iter_(0),
      max_parallel_iterations_(1),
      num_pending_inputs_(0) {
  iterations_.emplace(0, std::make_unique<IterationState>(*sf));
}

FrameState::FrameState(const StaticFrame* sf, std::string path,
                       FrameState* parent, int64_t parent_iter,
                       int max_parallel_iterations)
    : sf_(sf),
      path_(std::move(path)),
      frame_id_(FrameIdFromPath(path_)),
      parent_(parent),
      parent_iter_(parent_iter),
      max_parallel_iterations_(max_parallel_iterations),
      num_pending_inputs_(sf->num_enters) {
  iterations_.emplace(0, std::make_unique<IterationState>(*sf));
}

void FrameState::ActivateNodes(const ImmutableExecutorState& immutable,
                               const NodeItem& item, bool is_dead,
                               int64_t iter_id, IterationState* iter,
                               EntryVector* outputs, TaggedNodeSeq* ready) {
  const OutEdge* edges = immutable.out_edges().data();
  for (int k = item.out_begin; k < item.out_end; ++k) {
    const OutEdge& e = edges[k];
    const NodeItem& dst = immutable.item(e.dst_id);
    PendingState& ps = iter->pending(dst.pending_id);
    const bool is_control = e.dst_slot == kControlSlot;
    bool dst_ready = false;
    bool dst_dead = false;
    if (dst.is_merge) {
      if (is_control) {
        --ps.pending;
        dst_dead = ps.dead_count == dst.num_inputs;
        dst_ready = ps.pending == 0 || (ps.pending == 1 && dst_dead);
      } else if (!is_dead && (*outputs)[e.src_slot].has_value()) {
        // Live data: the first one becomes Merge's input; later ones are
        // dropped.
        if (!ps.live_seen) {
          ps.live_seen = true;
          --ps.pending;
          Entry* slot = iter->input(dst.input_start + e.dst_slot);
          if (e.last_use) {
            *slot = std::move((*outputs)[e.src_slot]);
          } else {
            *slot = (*outputs)[e.src_slot];
          }
          dst_ready = ps.pending == 0;
        }
      } else {
        ++ps.dead_count;
        // A dead Enter makes its loop's Merge dead at once: the back edge
        // will never deliver in iteration 0 (a loop on an untaken branch).
        dst_dead = ps.dead_count == dst.num_inputs || item.is_enter;
        dst_ready = dst_dead && ps.pending == 1 && !ps.live_seen;
      }
    } else {
      const bool dead_input =
          is_dead || (!is_control && !(*outputs)[e.src_slot].has_value());
      if (!is_control && !dead_input) {
        Entry* slot = iter->input(dst.input_start + e.dst_slot);
        if (e.last_use) {
          *slot = std::move((*outputs)[e.src_slot]);
        } else {
          *slot = (*outputs)[e.src_slot];
        }
      }
      --ps.pending;
      if (dead_input) ++ps.dead_count;
      dst_dead = ps.dead_count > 0;
      dst_ready = ps.pending == 0;
    }
    if (dst_ready) {
      if (dst.is_control_trigger) dst_dead = false;
      ready->push_back(LoopTaggedNode{&dst, this, iter, iter_id, dst_dead});
      ++iter->outstanding_ops;
    }
  }
}

void FrameState::AddLoopInvariant(const ImmutableExecutorState& immutable,
                                  const NodeItem& item, const Entry& value,
                                  bool is_dead, TaggedNodeSeq* ready) {
  loop_invariants_.push_back(Deferred{&item, value, is_dead});
  // No iteration can have been freed yet: iteration 0 waits for every
  // Enter, and later ones wait for it.
  for (int64_t i = 0; i <= iteration_count_; ++i) {
    if (GetIteration(i) == nullptr) continue;
    EntryVector outputs(item.num_outputs);
    outputs[0] = value;
    ActivateNodes(immutable, item, is_dead, i, &outputs, ready);
  }
}

bool FrameState::EnterArrived(const ImmutableExecutorState& immutable,
                              TaggedNodeSeq* ready) {
  --num_pending_inputs_;
  if (num_pending_inputs_ > 0) return false;
  // Iteration 0 may have nothing left to run (the Enters' consumers are
  // elsewhere or not ready); it can only be freed now.
  return CleanupIterations(immutable, 0, ready);
}

void FrameState::NextIteration(const ImmutableExecutorState& immutable,
                               const NodeItem& item, int64_t iter,
                               EntryVector* outputs, TaggedNodeSeq* ready) {
  if (iter == iteration_count_ &&
      num_outstanding_iterations_ >= max_parallel_iterations_) {
    // Too many live iterations: start iter+1 when the oldest is done.
    next_iter_roots_.push_back(
        Deferred{&item, std::move((*outputs)[0]), /*is_dead=*/false});
    return;
  }
  if (iter == iteration_count_) IncrementIteration(immutable, ready);
  ActivateNodes(immutable, item, /*is_dead=*/false, iter + 1, outputs, ready);
}

void FrameState::IncrementIteration(const ImmutableExecutorState& immutable,
                                    TaggedNodeSeq* ready) {
  ++iteration_count_;
  const int64_t next = iteration_count_;
  iterations_.emplace(next, std::make_unique<IterationState>(*sf_));
  ++num_outstanding_iterations_;
  // Dead Exits matter only in the frame's last iteration.
  dead_exits_.clear();
  std::vector<Deferred> deferred;
  deferred.swap(next_iter_roots_);
  for (Deferred& d : deferred) {
    EntryVector outputs(d.item->num_outputs);
    outputs[0] = std::move(d.value);
    ActivateNodes(immutable, *d.item, /*is_dead=*/false, next, &outputs, ready);
  }
  for (const Deferred& inv : loop_invariants_) {
    EntryVector outputs(inv.item->num_outputs);
    outputs[0] = inv.value;
    ActivateNodes(immutable, *inv.item, inv.is_dead, next, &outputs, ready);
  }
}

bool FrameState::IsIterationDone(int64_t iter) {
  IterationState* state = GetIteration(iter);
  if (state == nullptr || state->outstanding_ops != 0 ||
      state->outstanding_frame_count != 0) {
    return false;
  }
  if (iter == 0) return num_pending_inputs_ == 0;
  return GetIteration(iter - 1) == nullptr;
}

bool FrameState::DecrementOutstandingOps(
    const ImmutableExecutorState& immutable, int64_t iter,
    IterationState* state, TaggedNodeSeq* ready) {
  --state->outstanding_ops;
  if (is_root() || state->outstanding_ops != 0) return false;
  return CleanupIterations(immutable, iter, ready);
}

bool FrameState::CleanupIterations(const ImmutableExecutorState& immutable,
                                   int64_t iter, TaggedNodeSeq* ready) {
  int64_t curr = iter;
  while (curr <= iteration_count_ && IsIterationDone(curr)) {
    iterations_.erase(curr);
    --num_outstanding_iterations_;
    ++curr;
    // A deferred NextIteration may start its iteration now.
    if (!next_iter_roots_.empty()) IncrementIteration(immutable, ready);
  }
  return IsFrameDone();
}

// ---------------------------------------------------------------------------
// PropagatorState

PropagatorState::PropagatorState(const ImmutableExecutorState& immutable)
    : immutable_(immutable), root_frame_(&immutable.static_frame(0)) {}

void PropagatorState::ActivateRoots(TaggedNodeSeq* ready) {
  const std::vector<int>& roots = immutable_.root_nodes();
  absl::MutexLock l(root_frame_.mu());
  IterationState* iter0 = root_frame_.GetIteration(0);
  for (int id : roots) {
    ready->push_back(
        LoopTaggedNode{&immutable_.item(id), &root_frame_, iter0, 0, false});
  }
  iter0->outstanding_ops += static_cast<int64_t>(roots.size());
}

void PropagatorState::PropagateOutputs(const TaggedNode& tagged_node,
                                       bool is_dead, EntryVector* outputs,
                                       TaggedNodeSeq* ready) {
  const NodeItem& item = *tagged_node.item;
  FrameState* input_frame = tagged_node.frame;
  const int64_t input_iter = tagged_node.iter_id;
  bool frame_done = false;
  if (item.is_enter) {
    FrameState* child = FindOrCreateChildFrame(input_frame, input_iter, item);
    bool child_done = false;
    {
      absl::MutexLock l(child->mu());
      if (item.is_constant_enter) {
        child->AddLoopInvariant(immutable_, item, (*outputs)[0], is_dead,
                                ready);
      } else {
        child->ActivateNodes(immutable_, item, is_dead, 0, outputs, ready);
      }
      child_done = child->EnterArrived(immutable_, ready);
    }
    if (child_done) DeleteFrame(child, ready);
    absl::MutexLock l(input_frame->mu());
    frame_done =
        input_frame->DecrementOutstandingOps(immutable_, input_iter, ready);
  } else if (item.is_exit) {
    if (!is_dead) {
      FrameState* parent = input_frame->parent();
      absl::MutexLock l(parent->mu());
      parent->ActivateNodes(immutable_, item, false, input_frame->parent_iter(),
                            outputs, ready);
    }
    absl::MutexLock l(input_frame->mu());
    if (is_dead) input_frame->AddDeadExit(item, input_iter);
    frame_done =
        input_frame->DecrementOutstandingOps(immutable_, input_iter, ready);
  } else if (item.is_next_iteration) {
    absl::MutexLock l(input_frame->mu());
    // A dead value stops here: the loop does not go on.
    if (!is_dead) {
      input_frame->NextIteration(immutable_, item, input_iter, outputs, ready);
    }
    frame_done =
        input_frame->DecrementOutstandingOps(immutable_, input_iter, ready);
  } else {
    absl::MutexLock l(input_frame->mu());
    input_frame->ActivateNodes(immutable_, item, is_dead, input_iter,
                               tagged_node.iter, outputs, ready);
    frame_done = input_frame->DecrementOutstandingOps(immutable_, input_iter,
                                                      tagged_node.iter, ready);
  }
  if (frame_done) DeleteFrame(input_frame, ready);
}

FrameState* PropagatorState::FindOrCreateChildFrame(FrameState* parent,
                                                    int64_t parent_iter,
                                                    const NodeItem& enter) {
  std::string path =
      ChildFramePath(parent->path(), parent_iter, enter.frame_name);
  absl::MutexLock l(&frames_mu_);
  auto it = frames_.find(path);
  if (it != frames_.end()) return it->second.get();
  auto child = std::make_unique<FrameState>(
      &immutable_.static_frame(enter.child_frame), path, parent, parent_iter,
      enter.parallel_iterations);
  FrameState* raw = child.get();
  frames_.emplace(std::move(path), std::move(child));
  absl::MutexLock pl(parent->mu());
  ++parent->GetIteration(parent_iter)->outstanding_frame_count;
  return raw;
}

void PropagatorState::DeleteFrame(FrameState* frame, TaggedNodeSeq* ready) {
  while (frame != nullptr) {
    FrameState* parent = frame->parent();
    const int64_t parent_iter = frame->parent_iter();
    bool parent_done = false;
    {
      absl::MutexLock pl(parent->mu());
      {
        absl::MutexLock fl(frame->mu());
        // Exits that stayed dead in the last iteration hand their deadness
        // to the parent now, so the parent's consumers still run.
        for (const NodeItem* exit : frame->dead_exits()) {
          EntryVector none(exit->num_outputs);
          parent->ActivateNodes(immutable_, *exit, /*is_dead=*/true,
                                parent_iter, &none, ready);
        }
      }
      --parent->GetIteration(parent_iter)->outstanding_frame_count;
      if (!parent->is_root()) {
        parent_done = parent->CleanupIterations(immutable_, parent_iter, ready);
      }
    }
    const std::string path = frame->path();
    {
      absl::MutexLock l(&frames_mu_);
      frames_.erase(path);  // Frees `frame`.
    }
    frame = parent_done ? parent : nullptr;
  }
}

}  // namespace stepflow
