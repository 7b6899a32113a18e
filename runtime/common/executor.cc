#include "runtime/common/executor.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "proto/step_stats.pb.h"
#include "runtime/common/step_stats_collector.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/types.h"

namespace stepflow {

uint64_t FrameIdFromPath(absl::string_view path) {
  if (path.empty()) return 0;
  // 64-bit FNV-1a: fixed, so every process and partition agrees.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : path) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h == 0 ? 1 : h;
}

std::string ChildFramePath(absl::string_view parent_path, int64_t parent_iter,
                           absl::string_view frame_name) {
  return absl::StrCat(parent_path, ";", parent_iter, ";", frame_name);
}

namespace {

// Appends " [[{{node x}}]]" unless the message already names a node.
absl::Status WithNode(const absl::Status& s, const std::string& node) {
  if (s.ok() || absl::StrContains(s.message(), "{{node ")) return s;
  return absl::Status(
      s.code(), absl::StrCat(s.message(), " [[", FormatNodeName(node), "]]"));
}

std::string FrameDisplayName(const std::string& name) {
  return name.empty() ? std::string("(root)") : absl::StrCat("'", name, "'");
}

// ---------------------------------------------------------------------------
// Static layout, computed once per executor and shared by all steps.

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
  std::string send_device;
  std::string recv_device;
  std::string tensor_name;
  uint64_t send_device_incarnation = 0;
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
  int out_begin = 0;    // [out_begin, out_end) in ExecutorImpl::out_edges_.
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
  // Lock-free counters (IterationState::DecrementPending) instead of
  // `pending` under the frame's mutex: set on the root frame of a graph
  // without control flow (see ExecutorImpl::lock_free_propagation).
  bool atomic_pending = false;
  int total_inputs = 0;
  int num_enters = 0;  // Enter nodes whose frame_name is `name`.
};

// A value travelling on an edge: a tensor, a reference to a variable's
// tensor, or nothing (not arrived yet, or dead).
struct Entry {
  enum class State : uint8_t { kNoValue, kHasValue, kHasRef };

  bool has_value() const { return state != State::kNoValue; }
  void Clear() {
    val = Tensor();
    ref = nullptr;
    ref_mu = nullptr;
    state = State::kNoValue;
  }

  Tensor val;                     // kHasValue (and deref'd copies).
  Tensor* ref = nullptr;          // kHasRef.
  absl::Mutex* ref_mu = nullptr;  // kHasRef.
  State state = State::kNoValue;
};

class ExecutorImpl;

// ---------------------------------------------------------------------------
// Per-step state.

class FrameState;

// One iteration of one frame instance: the counters and input slots of the
// frame's nodes for that iteration, and what keeps the iteration alive.
// Everything is guarded by the owning frame's mutex, except that a node
// reads its own input slots without the lock once it is ready (the lock
// that made it ready orders those reads after the writes), and nothing
// writes them again until the node has finished. With lock-free
// propagation (StaticFrame::atomic_pending) no lock is taken at all: each
// input slot has one writer, and the atomic decrement that makes a node
// ready orders its reads after every write.
class IterationState {
 public:
  explicit IterationState(const StaticFrame& sf) : inputs_(sf.total_inputs) {
    if (sf.atomic_pending) {
      const size_t n = sf.initial_pending.size();
      atomic_pending_.reset(new std::atomic<int32_t>[n]);
      for (size_t i = 0; i < n; ++i) {
        atomic_pending_[i].store(sf.initial_pending[i].pending,
                                 std::memory_order_relaxed);
      }
    } else {
      pending_ = sf.initial_pending;
    }
  }

  // Without StaticFrame::atomic_pending only.
  PendingState& pending(int pending_id) { return pending_[pending_id]; }
  Entry* input(int slot) { return inputs_.data() + slot; }

  // With StaticFrame::atomic_pending, without the frame's mutex: one
  // in-edge of `pending_id` delivered; true for the delivery that made the
  // node ready. acq_rel: that delivery sees every input slot written
  // before the others.
  bool DecrementPending(int pending_id) {
    return atomic_pending_[pending_id].fetch_sub(
               1, std::memory_order_acq_rel) == 1;
  }

  // Nodes of this iteration that are ready or running.
  int64_t outstanding_ops = 0;
  // Child frame instances started from this iteration and not yet done.
  int outstanding_frame_count = 0;

 private:
  std::vector<PendingState> pending_;
  std::unique_ptr<std::atomic<int32_t>[]> atomic_pending_;
  std::vector<Entry> inputs_;
};

struct TaggedNode {
  const NodeItem* item = nullptr;
  FrameState* frame = nullptr;
  IterationState* iter = nullptr;
  int64_t iter_id = 0;
  bool is_dead = false;
};
using TaggedNodeSeq = absl::InlinedVector<TaggedNode, 8>;
using EntryVector = absl::InlinedVector<Entry, 4>;
using TensorValueVec = absl::InlinedVector<TensorValue, 4>;

// FIFO of nodes to run inline in the current closure, or on the thread
// that called Executor::Run.
class ReadyQueue {
 public:
  ReadyQueue() = default;
  // The queue of Run's calling thread. The caller runs the step only while
  // it is the step's sole worker: once any node goes to the scheduler (or
  // an async kernel is left pending), it hands the rest of its queue over
  // too and just waits, so it never computes alongside the scheduler's
  // threads and a step uses no more threads than the scheduler has.
  static ReadyQueue OnCallerThread() {
    ReadyQueue q;
    q.on_caller_thread_ = true;
    return q;
  }
  // Records that part of the step now runs elsewhere.
  void MarkHandedOff() { handed_off_ = on_caller_thread_; }
  // True on the caller's queue once it must hand its nodes over.
  bool must_hand_off() const { return handed_off_ && !empty(); }

  bool empty() const { return head_ == nodes_.size(); }
  void push_back(const TaggedNode& n) { nodes_.push_back(n); }
  TaggedNode pop_front() {
    TaggedNode n = nodes_[head_++];
    if (head_ == nodes_.size()) {
      nodes_.clear();
      head_ = 0;
    }
    return n;
  }

 private:
  absl::InlinedVector<TaggedNode, 16> nodes_;
  size_t head_ = 0;
  bool on_caller_thread_ = false;
  bool handed_off_ = false;
};

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
  // The root frame.
  explicit FrameState(const StaticFrame* sf)
      : sf_(sf),
        frame_id_(0),
        parent_(nullptr),
        parent_iter_(0),
        max_parallel_iterations_(1),
        num_pending_inputs_(0) {
    iterations_.emplace(0, std::make_unique<IterationState>(*sf));
  }
  // A child frame started by an Enter in `parent`'s iteration
  // `parent_iter`.
  FrameState(const StaticFrame* sf, std::string path, FrameState* parent,
             int64_t parent_iter, int max_parallel_iterations)
      : sf_(sf),
        path_(std::move(path)),
        frame_id_(FrameIdFromPath(path_)),
        parent_(parent),
        parent_iter_(parent_iter),
        max_parallel_iterations_(max_parallel_iterations),
        num_pending_inputs_(sf->num_enters) {
    iterations_.emplace(0, std::make_unique<IterationState>(*sf));
  }

  uint64_t frame_id() const { return frame_id_; }
  const std::string& path() const { return path_; }
  FrameState* parent() const { return parent_; }
  int64_t parent_iter() const { return parent_iter_; }
  bool is_root() const { return parent_ == nullptr; }
  absl::Mutex* mu() ABSL_LOCK_RETURNED(mu_) { return &mu_; }

  IterationState* GetIteration(int64_t iter) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = iterations_.find(iter);
    return it == iterations_.end() ? nullptr : it->second.get();
  }
  int64_t iteration_count() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return iteration_count_;
  }

  // Delivers `item`'s outputs along its out-edges in iteration `iter` and
  // appends the nodes that became ready to `ready` (counting them as
  // outstanding in that iteration).
  void ActivateNodes(const ExecutorImpl& impl, const NodeItem& item,
                     bool is_dead, int64_t iter, EntryVector* outputs,
                     TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ActivateNodes(impl, item, is_dead, iter, GetIteration(iter), outputs,
                  ready);
  }
  // The same with iteration `iter`'s state at hand (a ready node's
  // TaggedNode carries it): no lookup.
  void ActivateNodes(const ExecutorImpl& impl, const NodeItem& item,
                     bool is_dead, int64_t iter, IterationState* iter_state,
                     EntryVector* outputs, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A constant Enter's value: delivered to every live iteration now and to
  // every iteration started later.
  void AddLoopInvariant(const ExecutorImpl& impl, const NodeItem& item,
                        const Entry& value, bool is_dead,
                        TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // One of this frame's Enters has delivered. Returns true if that made the
  // frame done.
  bool EnterArrived(const ExecutorImpl& impl, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A live value from NextIteration `item` in iteration `iter`: delivered
  // to iteration iter+1 (started if needed) or deferred.
  void NextIteration(const ExecutorImpl& impl, const NodeItem& item,
                     int64_t iter, EntryVector* outputs, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

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
  bool DecrementOutstandingOps(const ExecutorImpl& impl, int64_t iter,
                               TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return DecrementOutstandingOps(impl, iter, GetIteration(iter), ready);
  }
  bool DecrementOutstandingOps(const ExecutorImpl& impl, int64_t iter,
                               IterationState* iter_state,
                               TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Frees the done iterations from `iter` on. Returns true if the frame is
  // then done. Not for the root frame.
  bool CleanupIterations(const ExecutorImpl& impl, int64_t iter,
                         TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  struct Deferred {
    const NodeItem* item = nullptr;
    Entry value;
    bool is_dead = false;
  };

  void IncrementIteration(const ExecutorImpl& impl, TaggedNodeSeq* ready)
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

// ---------------------------------------------------------------------------

class ExecutorImpl : public Executor {
 public:
  ExecutorImpl(const LocalExecutorParams& params,
               std::unique_ptr<const Graph> graph)
      : device_(params.device),
        env_(params.env != nullptr ? params.env : params.device->env()),
        create_kernel_(params.create_kernel),
        graph_(std::move(graph)),
        create_shared_kernel_(params.create_shared_kernel) {}

  absl::Status Initialize();
  void RunAsync(const Args& args, DoneCallback done) override;
  absl::Status Run(const Args& args) override;

  Device* device() const { return device_; }
  Env* env() const { return env_; }
  const NodeItem& item(int id) const { return items_[id]; }
  const std::vector<OutEdge>& out_edges() const { return out_edges_; }
  const StaticFrame& static_frame(int index) const { return frames_[index]; }
  const std::vector<int>& root_nodes() const { return root_nodes_; }
  // No loop frames and no node that can make or pass on a dead value
  // (Switch, Merge, Recv, Enter, Exit, NextIteration, ControlTrigger):
  // every value is live, every node runs once per step in the root frame,
  // so successors are activated with atomic counters instead of under the
  // frame's mutex (PropagateOutputs).
  bool lock_free_propagation() const { return lock_free_propagation_; }

 private:
  absl::Status InitializeNode(const Node* node, NodeItem* item);
  absl::Status CheckInEdges(const Node* node) const;
  absl::Status CheckAcyclic() const;
  // Assigns every node its static frame (BFS from the roots: Enter leads
  // into its frame, Exit back to the parent) and lays out each frame's
  // per-iteration state.
  absl::Status BuildFrames();
  // The static frame the values produced by `item` live in.
  int OutputFrame(const NodeItem& item) const {
    if (item.is_enter) return item.child_frame;
    if (item.is_exit) return frames_[item.frame].parent;
    return item.frame;
  }

  Device* const device_;
  Env* const env_;
  std::function<absl::Status(const NodeDef&, std::unique_ptr<OpKernel>*)>
      create_kernel_;
  std::unique_ptr<const Graph> graph_;
  std::function<absl::Status(const NodeDef&, std::shared_ptr<OpKernel>*)>
      create_shared_kernel_;
  std::vector<std::shared_ptr<OpKernel>> kernels_;
  std::vector<NodeItem> items_;  // Indexed by node id (holes for removed).
  std::vector<OutEdge> out_edges_;
  std::vector<StaticFrame> frames_;  // [0] is the root frame.
  std::vector<int> root_nodes_;      // No in-edges; id order.
  bool lock_free_propagation_ = false;
};

// ---------------------------------------------------------------------------
// FrameState

void FrameState::ActivateNodes(const ExecutorImpl& impl, const NodeItem& item,
                               bool is_dead, int64_t iter_id,
                               IterationState* iter, EntryVector* outputs,
                               TaggedNodeSeq* ready) {
  const OutEdge* edges = impl.out_edges().data();
  for (int k = item.out_begin; k < item.out_end; ++k) {
    const OutEdge& e = edges[k];
    const NodeItem& dst = impl.item(e.dst_id);
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
      ready->push_back(TaggedNode{&dst, this, iter, iter_id, dst_dead});
      ++iter->outstanding_ops;
    }
  }
}

void FrameState::AddLoopInvariant(const ExecutorImpl& impl,
                                  const NodeItem& item, const Entry& value,
                                  bool is_dead, TaggedNodeSeq* ready) {
  loop_invariants_.push_back(Deferred{&item, value, is_dead});
  // No iteration can have been freed yet: iteration 0 waits for every
  // Enter, and later ones wait for it.
  for (int64_t i = 0; i <= iteration_count_; ++i) {
    if (GetIteration(i) == nullptr) continue;
    EntryVector outputs(item.num_outputs);
    outputs[0] = value;
    ActivateNodes(impl, item, is_dead, i, &outputs, ready);
  }
}

bool FrameState::EnterArrived(const ExecutorImpl& impl, TaggedNodeSeq* ready) {
  --num_pending_inputs_;
  if (num_pending_inputs_ > 0) return false;
  // Iteration 0 may have nothing left to run (the Enters' consumers are
  // elsewhere or not ready); it can only be freed now.
  return CleanupIterations(impl, 0, ready);
}

void FrameState::NextIteration(const ExecutorImpl& impl, const NodeItem& item,
                               int64_t iter, EntryVector* outputs,
                               TaggedNodeSeq* ready) {
  if (iter == iteration_count_ &&
      num_outstanding_iterations_ >= max_parallel_iterations_) {
    // Too many live iterations: start iter+1 when the oldest is done.
    next_iter_roots_.push_back(
        Deferred{&item, std::move((*outputs)[0]), /*is_dead=*/false});
    return;
  }
  if (iter == iteration_count_) IncrementIteration(impl, ready);
  ActivateNodes(impl, item, /*is_dead=*/false, iter + 1, outputs, ready);
}

void FrameState::IncrementIteration(const ExecutorImpl& impl,
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
    ActivateNodes(impl, *d.item, /*is_dead=*/false, next, &outputs, ready);
  }
  for (const Deferred& inv : loop_invariants_) {
    EntryVector outputs(inv.item->num_outputs);
    outputs[0] = inv.value;
    ActivateNodes(impl, *inv.item, inv.is_dead, next, &outputs, ready);
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

bool FrameState::DecrementOutstandingOps(const ExecutorImpl& impl,
                                         int64_t iter, IterationState* state,
                                         TaggedNodeSeq* ready) {
  --state->outstanding_ops;
  if (is_root() || state->outstanding_ops != 0) return false;
  return CleanupIterations(impl, iter, ready);
}

bool FrameState::CleanupIterations(const ExecutorImpl& impl, int64_t iter,
                                   TaggedNodeSeq* ready) {
  int64_t curr = iter;
  while (curr <= iteration_count_ && IsIterationDone(curr)) {
    iterations_.erase(curr);
    --num_outstanding_iterations_;
    ++curr;
    // A deferred NextIteration may start its iteration now.
    if (!next_iter_roots_.empty()) IncrementIteration(impl, ready);
  }
  return IsFrameDone();
}

// ---------------------------------------------------------------------------
// ExecutorState: one step. Deletes itself after handing `done` to the
// scheduler (RunAsync) or calling it (RunInline).
//
// Completion: `num_outstanding_` counts nodes that are ready or running;
// when it drops to zero every kernel has finished. `holds_` then keeps the
// state alive until the cancellation callback (if registered) can no
// longer run: it starts at 2 with a registered callback (one for the nodes,
// one for the callback) and 1 otherwise; the last release calls Finish().

class ExecutorState {
 public:
  // With `done_inline`, Finish calls `done` on the thread that finishes the
  // step instead of scheduling it: for Run, whose `done` only notifies.
  ExecutorState(const Executor::Args& args, const ExecutorImpl* impl,
                Executor::DoneCallback done, bool done_inline)
      : impl_(impl),
        step_id_(args.step_id),
        rendezvous_(args.rendezvous),
        call_frame_(args.call_frame),
        cancellation_manager_(args.cancellation_manager),
        stats_collector_(impl->env()->clock != nullptr ? args.stats_collector
                                                       : nullptr),
        step_container_(args.step_container),
        done_(std::move(done)),
        done_inline_(done_inline),
        root_frame_(&impl->static_frame(0)) {}

  // Schedules the root nodes.
  void RunAsync();
  // Runs the step on the calling thread for as long as it is the step's
  // only worker (see ReadyQueue::OnCallerThread).
  void RunInline();

 private:
  struct AsyncState;

  // Runs `inline_ready` and whatever becomes ready inline behind it.
  void Process(ReadyQueue inline_ready);
  // Starts an async kernel. Returns its state if the kernel completed
  // before ComputeAsync returned (then the caller finishes the node, with
  // FinishAsync, and may run its successors inline); null otherwise (then
  // the kernel's `done` finishes it through AsyncDone).
  AsyncState* LaunchAsync(const NodeItem& item, const TaggedNode& tn,
                          const OpKernelContext::Params& params,
                          const TensorValueVec& inputs,
                          std::unique_ptr<NodeExecStats> stats);
  void AsyncDone(AsyncState* state);
  // Registers for cancellation and puts the root nodes in `ready`. Returns
  // false when the step is over already (cancelled before it started, or
  // nothing to run): then `this` may be gone.
  bool Start(TaggedNodeSeq* ready);
  // Collects an async node's outputs, frees `state` and completes the node
  // (NodeDone); returns true if that finished the step.
  bool FinishAsync(AsyncState* state, ReadyQueue* inline_ready);

  absl::Status PrepareInputs(const NodeItem& item, Entry* first_input,
                             TensorValueVec* inputs);
  absl::Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                              const OpKernelContext::Params& params,
                              EntryVector* outputs, bool* node_dead,
                              NodeExecStats* stats);
  static void ClearInputs(Entry* first_input, int n) {
    for (int i = 0; i < n; ++i) first_input[i].Clear();
  }
  absl::Status SendDead(const NodeItem& item, const TaggedNode& tn);
  // Delivers a finished node's outputs (moving between frames and
  // iterations for Enter/Exit/NextIteration), accounts for it in its
  // iteration, and frees iterations and frames that became done.
  void PropagateOutputs(const TaggedNode& tn, bool is_dead,
                        EntryVector* outputs, TaggedNodeSeq* ready);
  // The child frame `enter` leads into from `parent`'s iteration
  // `parent_iter`, created on first use.
  FrameState* FindOrCreateChildFrame(FrameState* parent, int64_t parent_iter,
                                     const NodeItem& enter);
  // Frees a done frame after handing its dead Exits to the parent; repeats
  // for each ancestor that becomes done in turn.
  void DeleteFrame(FrameState* frame, TaggedNodeSeq* ready);

  // Accounts for one finished node and schedules its successors. Returns
  // true if that was the last outstanding node.
  bool NodeDone(const absl::Status& s, TaggedNodeSeq* ready,
                ReadyQueue* inline_ready);
  // Accounts for a ready node dropped because the step is aborting.
  bool DropNode() {
    return num_outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }
  // Schedules `ready`: with `inline_ready`, cheap nodes (and one expensive
  // node if nothing else) go there; without, everything is scheduled.
  void ScheduleReady(TaggedNodeSeq* ready, ReadyQueue* inline_ready);

  void RecordError(const absl::Status& s);
  void OnCancel();
  void AllNodesDone();
  void ReleaseHold() {
    if (holds_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }
  void Finish();

  // Step stats.
  std::unique_ptr<NodeExecStats> StartStats(const NodeItem& item) const;
  void SetOpStart(NodeExecStats* stats) const;
  void SetOpEnd(NodeExecStats* stats) const;
  void FinishStats(const NodeItem& item,
                   std::unique_ptr<NodeExecStats> stats) const;

  const ExecutorImpl* const impl_;
  const int64_t step_id_;
  Rendezvous* const rendezvous_;
  CallFrameInterface* const call_frame_;
  CancellationManager* const cancellation_manager_;
  StepStatsCollector* const stats_collector_;
  ScopedStepContainer* const step_container_;
  Executor::DoneCallback done_;
  const bool done_inline_;

  CancellationToken cancel_token_ = 0;
  bool cancel_registered_ = false;

  std::atomic<int64_t> num_outstanding_{0};
  std::atomic<int> holds_{1};
  std::atomic<bool> aborted_{false};

  absl::Mutex status_mu_;
  absl::Status status_ ABSL_GUARDED_BY(status_mu_);

  FrameState root_frame_;
  // Live child frame instances by path (see ChildFramePath).
  absl::Mutex frames_mu_;
  std::map<std::string, std::unique_ptr<FrameState>> frames_
      ABSL_GUARDED_BY(frames_mu_);
};

struct ExecutorState::AsyncState {
  AsyncState(const OpKernelContext::Params& p, const TaggedNode& tn,
             const TensorValueVec& in, std::unique_ptr<NodeExecStats> st)
      : tagged_node(tn),
        inputs(in),
        params(p),
        ctx(BindInputs(&params, inputs)),
        stats(std::move(st)) {}

  static OpKernelContext::Params* BindInputs(OpKernelContext::Params* p,
                                             const TensorValueVec& in) {
    p->inputs = absl::MakeConstSpan(in);
    return p;
  }

  const TaggedNode tagged_node;
  const TensorValueVec inputs;
  OpKernelContext::Params params;
  OpKernelContext ctx;
  std::unique_ptr<NodeExecStats> stats;
  // Who finishes the node: whichever of LaunchAsync (after ComputeAsync
  // returns) and the kernel's `done` comes second, told apart by swapping
  // in kLaunched or kDoneEarly.
  enum Handoff : int { kLaunching, kLaunched, kDoneEarly };
  std::atomic<int> handoff{kLaunching};
};

void ExecutorState::RunAsync() {
  TaggedNodeSeq ready;
  if (!Start(&ready)) return;
  // Everything (even cheap roots) goes through the scheduler: RunAsync
  // never runs kernels on the caller's thread.
  ScheduleReady(&ready, nullptr);
}

void ExecutorState::RunInline() {
  TaggedNodeSeq ready;
  if (!Start(&ready)) return;
  ReadyQueue inline_ready = ReadyQueue::OnCallerThread();
  ScheduleReady(&ready, &inline_ready);
  Process(std::move(inline_ready));
}

bool ExecutorState::Start(TaggedNodeSeq* ready) {
  if (cancellation_manager_ != nullptr) {
    cancel_token_ = cancellation_manager_->get_cancellation_token();
    holds_.store(2, std::memory_order_relaxed);
    if (!cancellation_manager_->RegisterCallback(cancel_token_,
                                                 [this] { OnCancel(); })) {
      {
        absl::MutexLock l(&status_mu_);
        status_ = absl::CancelledError(
            absl::StrCat("Step ", step_id_, " was cancelled before it started"));
      }
      holds_.store(1, std::memory_order_relaxed);
      Finish();
      return false;
    }
    cancel_registered_ = true;
  }
  const std::vector<int>& roots = impl_->root_nodes();
  if (roots.empty()) {
    AllNodesDone();
    return false;
  }
  num_outstanding_.store(static_cast<int64_t>(roots.size()),
                         std::memory_order_relaxed);
  absl::MutexLock l(root_frame_.mu());
  IterationState* iter0 = root_frame_.GetIteration(0);
  for (int id : roots) {
    ready->push_back(TaggedNode{&impl_->item(id), &root_frame_, iter0, 0,
                                false});
  }
  iter0->outstanding_ops += static_cast<int64_t>(roots.size());
  return true;
}

void ExecutorState::Process(ReadyQueue inline_ready) {
  TaggedNodeSeq ready;
  EntryVector outputs;
  TensorValueVec inputs;
  OpKernelContext::Params params;
  params.step_id = step_id_;
  params.device = impl_->device();
  params.rendezvous = rendezvous_;
  params.call_frame = call_frame_;
  params.cancellation_manager = cancellation_manager_;
  params.step_container = step_container_;

  while (!inline_ready.empty()) {
    if (inline_ready.must_hand_off()) {
      // Run's caller: the rest goes to the scheduler with the nodes already
      // there (counted in num_outstanding_, so `this` stays alive).
      ReadyQueue rest;
      while (!inline_ready.empty()) rest.push_back(inline_ready.pop_front());
      impl_->env()->scheduler->Schedule(
          [this, rest = std::move(rest)]() mutable { Process(std::move(rest)); });
      return;
    }
    const TaggedNode tn = inline_ready.pop_front();
    const NodeItem& item = *tn.item;

    if (aborted_.load(std::memory_order_acquire)) {
      // The step is failing: start nothing new.
      if (DropNode()) AllNodesDone();
      continue;
    }

    ready.clear();
    outputs.clear();
    outputs.resize(item.num_outputs);
    std::unique_ptr<NodeExecStats> stats;
    if (stats_collector_ != nullptr && item.kernel != nullptr) {
      stats = StartStats(item);
    }
    Entry* first_input = tn.iter->input(item.input_start);
    bool node_dead = tn.is_dead;
    absl::Status s;

    if (item.kernel == nullptr) {
      // SOURCE / SINK: nothing to compute.
    } else if (tn.is_dead && !item.is_transfer()) {
      // Dead: the kernel does not run; every output stays dead.
    } else if (item.is_noop && stats == nullptr) {
      // Nothing to compute; only its control edges matter.
    } else if (tn.is_dead && item.is_send) {
      s = SendDead(item, tn);
      ClearInputs(first_input, item.num_inputs);
    } else {
      s = PrepareInputs(item, first_input, &inputs);
      if (s.ok()) {
        params.op_kernel = item.kernel;
        params.inputs = absl::MakeConstSpan(inputs);
        params.frame_iter = FrameAndIter{tn.frame->frame_id(), tn.iter_id};
        params.is_output_dead = false;
        if (item.async_kernel != nullptr) {
          AsyncState* done_early =
              LaunchAsync(item, tn, params, inputs, std::move(stats));
          // Completed during the launch (a Recv whose value was there, a
          // product not worth splitting): finish it here, so its
          // successors can run inline instead of through the scheduler.
          if (done_early == nullptr) {
            inline_ready.MarkHandedOff();  // Completes on another thread.
          } else if (FinishAsync(done_early, &inline_ready)) {
            AllNodesDone();  // Last node: `inline_ready` is empty.
          }
          // Otherwise the node completes through AsyncDone, possibly
          // already (and possibly finishing the step if nothing is left
          // inline: then the loop ends here without touching `this`).
          continue;
        }
        OpKernelContext ctx(&params);
        SetOpStart(stats.get());
        impl_->device()->Compute(item.kernel, &ctx);
        SetOpEnd(stats.get());
        s = ProcessOutputs(item, &ctx, params, &outputs, &node_dead,
                           stats.get());
      }
      ClearInputs(first_input, item.num_inputs);
    }
    if (stats != nullptr) FinishStats(item, std::move(stats));
    if (s.ok()) PropagateOutputs(tn, node_dead, &outputs, &ready);
    if (NodeDone(s, &ready, &inline_ready)) {
      // Last node: `inline_ready` is empty, so the loop ends.
      AllNodesDone();
    }
  }
}

ExecutorState::AsyncState* ExecutorState::LaunchAsync(
    const NodeItem& item, const TaggedNode& tn,
    const OpKernelContext::Params& params, const TensorValueVec& inputs,
    std::unique_ptr<NodeExecStats> stats) {
  auto* state = new AsyncState(params, tn, inputs, std::move(stats));
  SetOpStart(state->stats.get());
  impl_->device()->ComputeAsync(item.async_kernel, &state->ctx, [this, state] {
    if (state->handoff.exchange(AsyncState::kDoneEarly,
                                std::memory_order_acq_rel) ==
        AsyncState::kLaunched) {
      AsyncDone(state);
    }
  });
  if (state->handoff.exchange(AsyncState::kLaunched,
                              std::memory_order_acq_rel) ==
      AsyncState::kDoneEarly) {
    return state;
  }
  return nullptr;
}

void ExecutorState::AsyncDone(AsyncState* state) {
  // Successors are scheduled, not run inline: this callback may be running
  // inside another component (a Send on another executor, a cancellation).
  if (FinishAsync(state, nullptr)) AllNodesDone();
}

bool ExecutorState::FinishAsync(AsyncState* state, ReadyQueue* inline_ready) {
  const TaggedNode tn = state->tagged_node;
  const NodeItem& item = *tn.item;
  SetOpEnd(state->stats.get());
  EntryVector outputs(item.num_outputs);
  bool node_dead = tn.is_dead;
  absl::Status s = ProcessOutputs(item, &state->ctx, state->params, &outputs,
                                  &node_dead, state->stats.get());
  ClearInputs(tn.iter->input(item.input_start), item.num_inputs);
  if (state->stats != nullptr) FinishStats(item, std::move(state->stats));
  delete state;
  TaggedNodeSeq ready;
  if (s.ok()) PropagateOutputs(tn, node_dead, &outputs, &ready);
  outputs.clear();
  return NodeDone(s, &ready, inline_ready);
}

absl::Status ExecutorState::PrepareInputs(const NodeItem& item,
                                          Entry* first_input,
                                          TensorValueVec* inputs) {
  inputs->clear();
  inputs->resize(item.num_inputs);
  for (int i = 0; i < item.num_inputs; ++i) {
    Entry* entry = first_input + i;
    TensorValue& tv = (*inputs)[i];
    const bool want_ref = IsRefType(item.input_types[i]);
    switch (entry->state) {
      case Entry::State::kNoValue:
        // Only Merge runs with missing inputs (the untaken branches); they
        // are uninitialized tensors.
        if (!item.is_merge) {
          return absl::InternalError(absl::StrCat(
              FormatNodeName(item.name()), " input ", i, " has no value"));
        }
        tv = TensorValue(&entry->val);
        break;
      case Entry::State::kHasValue:
        if (want_ref) {
          return absl::InternalError(absl::StrCat(
              FormatNodeName(item.name()), " input ", i,
              " expects a reference (",
              DataTypeString(item.input_types[i]), ") but got a value"));
        }
        tv = TensorValue(&entry->val);
        break;
      case Entry::State::kHasRef: {
        // Checked and dereferenced under the variable's lock. Only ops that
        // allow uninitialized input (Assign, IsVariableInitialized) may see
        // an uninitialized variable, whether as a ref or as a value.
        absl::ReaderMutexLock l(entry->ref_mu);
        if (!entry->ref->IsInitialized() && !item.allows_uninitialized_input) {
          const NodeDef& def = item.node->def();
          const std::string input_name =
              i < def.input_size() ? def.input(i) : absl::StrCat("#", i);
          return absl::FailedPreconditionError(absl::StrCat(
              "Attempting to use uninitialized value ", input_name, " [[",
              FormatNodeName(item.name()), "]]"));
        }
        if (want_ref) {
          tv = TensorValue(entry->ref_mu, entry->ref);
        } else {
          entry->val = *entry->ref;
          tv = TensorValue(&entry->val);
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ExecutorState::ProcessOutputs(
    const NodeItem& item, OpKernelContext* ctx,
    const OpKernelContext::Params& params, EntryVector* outputs,
    bool* node_dead, NodeExecStats* stats) {
  if (!ctx->status().ok()) return WithNode(ctx->status(), item.name());
  if (params.is_output_dead) {
    // A Recv got a dead value: the whole node is dead.
    *node_dead = true;
    return absl::OkStatus();
  }
  for (int i = 0; i < item.num_outputs; ++i) {
    TensorValue v = ctx->release_output(i);
    if (v.tensor == nullptr) {
      if (item.is_switch || item.is_recv) continue;  // A dead output.
      return absl::InternalError(absl::StrCat(FormatNodeName(item.name()),
                                              " did not produce output ", i));
    }
    Entry& out = (*outputs)[i];
    if (v.is_ref()) {
      // An uninitialized variable has no dtype yet; reading it through a
      // non-ref input is FailedPrecondition (PrepareInputs).
      const DataType actual = MakeRefType(v.tensor->dtype());
      if (v.tensor->dtype() != DT_INVALID && actual != item.output_types[i]) {
        return absl::InternalError(absl::StrCat(
            FormatNodeName(item.name()), " output ", i, " has type ",
            DataTypeString(actual), " but ",
            DataTypeString(item.output_types[i]), " was declared"));
      }
      out.state = Entry::State::kHasRef;
      out.ref = v.tensor;
      out.ref_mu = v.mutex_if_ref;
    } else {
      if (v.tensor->dtype() != item.output_types[i]) {
        return absl::InternalError(absl::StrCat(
            FormatNodeName(item.name()), " output ", i, " has type ",
            DataTypeString(v.tensor->dtype()), " but ",
            DataTypeString(item.output_types[i]), " was declared"));
      }
      out.state = Entry::State::kHasValue;
      out.val = std::move(*v.tensor);
    }
    if (stats != nullptr) {
      const Tensor& t = out.state == Entry::State::kHasRef ? *out.ref : out.val;
      NodeOutput* o = stats->add_output();
      o->set_slot(i);
      TensorDescription* desc = o->mutable_tensor_description();
      desc->set_dtype(t.dtype());
      t.shape().AsProto(desc->mutable_shape());
    }
  }
  return absl::OkStatus();
}

absl::Status ExecutorState::SendDead(const NodeItem& item,
                                     const TaggedNode& tn) {
  if (rendezvous_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(FormatNodeName(item.name()),
                     " cannot send a dead value: the step has no rendezvous"));
  }
  const SendInfo& si = *item.send;
  Rendezvous::ParsedKey key;
  absl::Status s = Rendezvous::ParseKey(
      Rendezvous::CreateKey(si.send_device, si.send_device_incarnation,
                            si.recv_device, si.tensor_name,
                            FrameAndIter{tn.frame->frame_id(), tn.iter_id}),
      &key);
  if (!s.ok()) return WithNode(s, item.name());
  Rendezvous::Args args;
  args.cancellation_manager = cancellation_manager_;
  args.on_host = si.on_host;
  return WithNode(rendezvous_->Send(key, args, Tensor(), /*is_dead=*/true),
                  item.name());
}

void ExecutorState::PropagateOutputs(const TaggedNode& tn, bool is_dead,
                                     EntryVector* outputs,
                                     TaggedNodeSeq* ready) {
  if (impl_->lock_free_propagation()) {
    // Root frame only, nothing dead: deliver and count down without the
    // frame's mutex (its iteration bookkeeping matters only for loops).
    IterationState* iter = tn.iter;
    const OutEdge* edges = impl_->out_edges().data();
    for (int k = tn.item->out_begin; k < tn.item->out_end; ++k) {
      const OutEdge& e = edges[k];
      const NodeItem& dst = impl_->item(e.dst_id);
      if (e.dst_slot != kControlSlot) {
        Entry* slot = iter->input(dst.input_start + e.dst_slot);
        if (e.last_use) {
          *slot = std::move((*outputs)[e.src_slot]);
        } else {
          *slot = (*outputs)[e.src_slot];
        }
      }
      if (iter->DecrementPending(dst.pending_id)) {
        ready->push_back(TaggedNode{&dst, tn.frame, iter, tn.iter_id, false});
      }
    }
    return;
  }
  const NodeItem& item = *tn.item;
  FrameState* input_frame = tn.frame;
  const int64_t input_iter = tn.iter_id;
  bool frame_done = false;
  if (item.is_enter) {
    FrameState* child = FindOrCreateChildFrame(input_frame, input_iter, item);
    bool child_done = false;
    {
      absl::MutexLock l(child->mu());
      if (item.is_constant_enter) {
        child->AddLoopInvariant(*impl_, item, (*outputs)[0], is_dead, ready);
      } else {
        child->ActivateNodes(*impl_, item, is_dead, 0, outputs, ready);
      }
      child_done = child->EnterArrived(*impl_, ready);
    }
    if (child_done) DeleteFrame(child, ready);
    absl::MutexLock l(input_frame->mu());
    frame_done = input_frame->DecrementOutstandingOps(*impl_, input_iter, ready);
  } else if (item.is_exit) {
    if (!is_dead) {
      FrameState* parent = input_frame->parent();
      absl::MutexLock l(parent->mu());
      parent->ActivateNodes(*impl_, item, false, input_frame->parent_iter(),
                            outputs, ready);
    }
    absl::MutexLock l(input_frame->mu());
    if (is_dead) input_frame->AddDeadExit(item, input_iter);
    frame_done = input_frame->DecrementOutstandingOps(*impl_, input_iter, ready);
  } else if (item.is_next_iteration) {
    absl::MutexLock l(input_frame->mu());
    // A dead value stops here: the loop does not go on.
    if (!is_dead) {
      input_frame->NextIteration(*impl_, item, input_iter, outputs, ready);
    }
    frame_done = input_frame->DecrementOutstandingOps(*impl_, input_iter, ready);
  } else {
    absl::MutexLock l(input_frame->mu());
    input_frame->ActivateNodes(*impl_, item, is_dead, input_iter, tn.iter,
                               outputs, ready);
    frame_done = input_frame->DecrementOutstandingOps(*impl_, input_iter,
                                                      tn.iter, ready);
  }
  if (frame_done) DeleteFrame(input_frame, ready);
}

FrameState* ExecutorState::FindOrCreateChildFrame(FrameState* parent,
                                                  int64_t parent_iter,
                                                  const NodeItem& enter) {
  std::string path =
      ChildFramePath(parent->path(), parent_iter, enter.frame_name);
  absl::MutexLock l(&frames_mu_);
  auto it = frames_.find(path);
  if (it != frames_.end()) return it->second.get();
  auto child = std::make_unique<FrameState>(
      &impl_->static_frame(enter.child_frame), path, parent, parent_iter,
      enter.parallel_iterations);
  FrameState* raw = child.get();
  frames_.emplace(std::move(path), std::move(child));
  absl::MutexLock pl(parent->mu());
  ++parent->GetIteration(parent_iter)->outstanding_frame_count;
  return raw;
}

void ExecutorState::DeleteFrame(FrameState* frame, TaggedNodeSeq* ready) {
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
          parent->ActivateNodes(*impl_, *exit, /*is_dead=*/true, parent_iter,
                                &none, ready);
        }
      }
      --parent->GetIteration(parent_iter)->outstanding_frame_count;
      if (!parent->is_root()) {
        parent_done = parent->CleanupIterations(*impl_, parent_iter, ready);
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

bool ExecutorState::NodeDone(const absl::Status& s, TaggedNodeSeq* ready,
                             ReadyQueue* inline_ready) {
  if (!s.ok()) RecordError(s);
  const size_t ready_size =
      aborted_.load(std::memory_order_acquire) ? 0 : ready->size();
  if (ready_size == 0) {
    return num_outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }
  if (ready_size > 1) {
    num_outstanding_.fetch_add(static_cast<int64_t>(ready_size) - 1,
                               std::memory_order_relaxed);
  }
  ScheduleReady(ready, inline_ready);
  return false;
}

void ExecutorState::ScheduleReady(TaggedNodeSeq* ready,
                                  ReadyQueue* inline_ready) {
  if (ready->empty()) return;
  if (inline_ready != nullptr && ready->size() == 1) {
    // The common case (a chain): one successor, run here unless it is
    // expensive and other work is queued here already.
    const TaggedNode& tn = ready->front();
    if (!tn.item->is_expensive || tn.is_dead || inline_ready->empty()) {
      inline_ready->push_back(tn);
      return;
    }
  }
  // Every node in `ready` is counted in num_outstanding_, so the step (and
  // `this`) stays alive until all of them have run, even if the first
  // scheduled closure runs at once on another thread.
  Scheduler* scheduler = impl_->env()->scheduler;
  auto schedule_one = [this, scheduler, inline_ready](const TaggedNode& tn) {
    if (inline_ready != nullptr) inline_ready->MarkHandedOff();
    scheduler->Schedule([this, tn] {
      ReadyQueue q;
      q.push_back(tn);
      Process(std::move(q));
    });
  };
  if (inline_ready == nullptr) {
    ReadyQueue cheap;
    bool any_cheap = false;
    for (const TaggedNode& tn : *ready) {
      if (tn.item->is_expensive && !tn.is_dead) {
        schedule_one(tn);
      } else {
        cheap.push_back(tn);
        any_cheap = true;
      }
    }
    if (any_cheap) {
      scheduler->Schedule(
          [this, cheap = std::move(cheap)]() mutable {
            Process(std::move(cheap));
          });
    }
    return;
  }
  const TaggedNode* curr_expensive = nullptr;
  for (const TaggedNode& tn : *ready) {
    if (!tn.item->is_expensive || tn.is_dead) {
      inline_ready->push_back(tn);
    } else {
      if (curr_expensive != nullptr) schedule_one(*curr_expensive);
      curr_expensive = &tn;
    }
  }
  if (curr_expensive != nullptr) {
    if (inline_ready->empty()) {
      inline_ready->push_back(*curr_expensive);
    } else {
      schedule_one(*curr_expensive);
    }
  }
}

void ExecutorState::RecordError(const absl::Status& s) {
  bool first_error = false;
  {
    absl::MutexLock l(&status_mu_);
    if (status_.ok() ||
        (absl::IsCancelled(status_) && !absl::IsCancelled(s))) {
      status_ = s;
    }
    first_error = !aborted_.exchange(true, std::memory_order_acq_rel);
  }
  // Outside the lock: aborting runs pending Recv callbacks inline, which
  // may complete nodes of this very step.
  if (first_error && rendezvous_ != nullptr) rendezvous_->StartAbort(s);
}

void ExecutorState::OnCancel() {
  RecordError(
      absl::CancelledError(absl::StrCat("Step ", step_id_, " was cancelled")));
  ReleaseHold();
}

void ExecutorState::AllNodesDone() {
  if (cancel_registered_ &&
      cancellation_manager_->DeregisterCallback(cancel_token_)) {
    ReleaseHold();  // On behalf of the callback, which will never run.
  }
  ReleaseHold();
}

void ExecutorState::Finish() {
  absl::Status status;
  {
    absl::MutexLock l(&status_mu_);
    status = status_;
  }
  Executor::DoneCallback done = std::move(done_);
  Scheduler* scheduler = impl_->env()->scheduler;
  const bool done_inline = done_inline_;
  delete this;
  if (done_inline) {
    done(status);
    return;
  }
  scheduler->Schedule(
      [done = std::move(done), status = std::move(status)] { done(status); });
}

std::unique_ptr<NodeExecStats> ExecutorState::StartStats(
    const NodeItem& item) const {
  auto stats = std::make_unique<NodeExecStats>();
  stats->set_node_name(item.name());
  const int64_t now = impl_->env()->clock->NowNanos();
  stats->set_all_start_nanos(now);
  stats->set_all_start_micros(now / 1000);
  return stats;
}

void ExecutorState::SetOpStart(NodeExecStats* stats) const {
  if (stats == nullptr) return;
  const int64_t rel =
      impl_->env()->clock->NowNanos() - stats->all_start_nanos();
  stats->set_op_start_rel_nanos(rel);
  stats->set_op_start_rel_micros(rel / 1000);
}

void ExecutorState::SetOpEnd(NodeExecStats* stats) const {
  if (stats == nullptr) return;
  const int64_t rel =
      impl_->env()->clock->NowNanos() - stats->all_start_nanos();
  stats->set_op_end_rel_nanos(rel);
  stats->set_op_end_rel_micros(rel / 1000);
}

void ExecutorState::FinishStats(const NodeItem& item,
                                std::unique_ptr<NodeExecStats> stats) const {
  const int64_t rel =
      impl_->env()->clock->NowNanos() - stats->all_start_nanos();
  stats->set_all_end_rel_nanos(rel);
  stats->set_all_end_rel_micros(rel / 1000);
  stats->set_timeline_label(TimelineLabel(item.node->def()));
  AllocatorMemoryUsed memory;
  if (impl_->device()->GetAllocatorMemoryUsed(&memory)) {
    *stats->add_memory() = std::move(memory);
  }
  stats_collector_->Save(impl_->device()->name(), std::move(*stats));
}

// ---------------------------------------------------------------------------
// ExecutorImpl

void ExecutorImpl::RunAsync(const Args& args, DoneCallback done) {
  (new ExecutorState(args, this, std::move(done), /*done_inline=*/false))
      ->RunAsync();
}

absl::Status ExecutorImpl::Run(const Args& args) {
  // Shared with the callback: the thread that finishes the step may still
  // be inside Notify when WaitFor returns here.
  struct Result {
    Notification done;
    absl::Status status;
  };
  auto result = std::make_shared<Result>();
  (new ExecutorState(args, this,
                     [result](const absl::Status& s) {
                       result->status = s;
                       result->done.Notify();
                     },
                     /*done_inline=*/true))
      ->RunInline();
  env_->scheduler->WaitFor(&result->done);
  return result->status;
}

absl::Status ExecutorImpl::InitializeNode(const Node* node, NodeItem* item) {
  item->node = node;
  if (!node->IsOp()) return absl::OkStatus();  // SOURCE / SINK.
  std::shared_ptr<OpKernel> kernel;
  absl::Status s;
  if (create_shared_kernel_) {
    s = create_shared_kernel_(node->def(), &kernel);
  } else {
    std::unique_ptr<OpKernel> owned;
    s = create_kernel_ ? create_kernel_(node->def(), &owned)
                       : CreateOpKernel(device_->device_type(), device_,
                                        node->def(), &owned);
    kernel = std::move(owned);
  }
  if (!s.ok()) return WithNode(s, node->name());
  if (kernel == nullptr) {
    return absl::InternalError(absl::StrCat(
        "Kernel creation returned no kernel for ", FormatNodeName(node->name())));
  }
  if (kernel->num_inputs() != node->num_inputs() ||
      kernel->num_outputs() != node->num_outputs()) {
    return absl::InternalError(absl::StrCat(
        "Kernel for ", FormatNodeName(node->name()), " has ",
        kernel->num_inputs(), " inputs and ", kernel->num_outputs(),
        " outputs but the node has ", node->num_inputs(), " and ",
        node->num_outputs()));
  }
  item->kernel = kernel.get();
  item->async_kernel = kernel->AsAsync();
  item->is_expensive = kernel->IsExpensive();
  item->is_merge = node->IsMerge();
  item->is_noop = node->IsNoOp() && kernel->num_inputs() == 0 &&
                  kernel->num_outputs() == 0;
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
    return absl::InvalidArgumentError(
        absl::StrCat(FormatNodeName(node->name()), " is a ",
                     node->type_string(), " node but has ", item->num_inputs,
                     " inputs and ", item->num_outputs, " outputs (want 1 and 1)"));
  }
  if (item->is_enter) {
    const NodeDef& def = node->def();
    int64_t parallel_iterations = 0;
    for (absl::Status as :
         {GetNodeAttr(def, "frame_name", &item->frame_name),
          GetNodeAttr(def, "is_constant", &item->is_constant_enter),
          GetNodeAttr(def, "parallel_iterations", &parallel_iterations)}) {
      if (!as.ok()) return WithNode(as, node->name());
    }
    if (item->frame_name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          FormatNodeName(node->name()), " has an empty frame_name"));
    }
    if (parallel_iterations <= 0 || parallel_iterations > (1 << 30)) {
      return absl::InvalidArgumentError(absl::StrCat(
          FormatNodeName(node->name()), " has parallel_iterations ",
          parallel_iterations, "; it must be positive"));
    }
    item->parallel_iterations = static_cast<int>(parallel_iterations);
  }
  if (item->is_send) {
    auto si = std::make_unique<SendInfo>();
    int64_t incarnation = 0;
    const NodeDef& def = node->def();
    for (absl::Status as :
         {GetNodeAttr(def, "send_device", &si->send_device),
          GetNodeAttr(def, "recv_device", &si->recv_device),
          GetNodeAttr(def, "tensor_name", &si->tensor_name),
          GetNodeAttr(def, "send_device_incarnation", &incarnation)}) {
      if (!as.ok()) return WithNode(as, node->name());
    }
    si->send_device_incarnation = static_cast<uint64_t>(incarnation);
    si->on_host = node->type_string() == "_HostSend" ||
                  device_->device_type() == DEVICE_CPU;
    item->send = std::move(si);
  }
  kernels_.push_back(std::move(kernel));
  return absl::OkStatus();
}

absl::Status ExecutorImpl::CheckInEdges(const Node* node) const {
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

absl::Status ExecutorImpl::Initialize() {
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

  // Out-edges, flattened. Edges into SINK matter only from the root frame
  // (SINK runs there); from inside a loop they are dropped.
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
    PendingState& ps =
        frames_[item.frame].initial_pending[item.pending_id];
    ps.pending = item.is_merge ? num_control_in[node->id()] + 1
                               : num_in[node->id()];
    if (num_in[node->id()] == 0) root_nodes_.push_back(node->id());
  }
  lock_free_propagation_ = frames_.size() == 1;
  for (const Node* node : nodes) {
    const NodeItem& item = items_[node->id()];
    if (item.is_merge || item.is_switch || item.is_recv || item.is_enter ||
        item.is_exit || item.is_next_iteration || item.is_control_trigger) {
      lock_free_propagation_ = false;
    }
  }
  frames_[0].atomic_pending = lock_free_propagation_;
  return absl::OkStatus();
}

absl::Status ExecutorImpl::CheckAcyclic() const {
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

absl::Status ExecutorImpl::BuildFrames() {
  const Graph& g = *graph_;
  frames_.clear();
  frames_.emplace_back();  // The root frame.
  std::map<std::string, int> frame_index;
  std::vector<int> frame_of(g.num_node_ids(), -1);
  std::vector<const Node*> reached_from(g.num_node_ids(), nullptr);
  std::deque<const Node*> queue;
  const std::vector<Node*> nodes = g.nodes();
  for (const Node* node : nodes) {
    if (node->in_edges().empty()) {
      frame_of[node->id()] = 0;
      queue.push_back(node);
    }
  }
  while (!queue.empty()) {
    const Node* node = queue.front();
    queue.pop_front();
    NodeItem& item = items_[node->id()];
    const int frame = frame_of[node->id()];
    item.frame = frame;
    int out_frame = frame;
    if (item.is_enter) {
      auto [it, inserted] =
          frame_index.emplace(item.frame_name, static_cast<int>(frames_.size()));
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
      int& dst_frame = frame_of[dst->id()];
      if (dst_frame == -1) {
        dst_frame = out_frame;
        reached_from[dst->id()] = node;
        queue.push_back(dst);
      } else if (dst_frame != out_frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            FormatNodeName(dst->name()),
            " has inputs from different frames: ",
            FormatNodeName(reached_from[dst->id()]->name()), " is in frame ",
            FrameDisplayName(frames_[dst_frame].name), " and ",
            FormatNodeName(node->name()), " in frame ",
            FrameDisplayName(frames_[out_frame].name)));
      }
    }
  }
  // Lay out each frame's nodes in id order.
  for (const Node* node : nodes) {
    NodeItem& item = items_[node->id()];
    if (frame_of[node->id()] == -1) {
      if (node->IsOp()) {
        return absl::InternalError(absl::StrCat(
            "Frame analysis never reached ", FormatNodeName(node->name())));
      }
      frame_of[node->id()] = 0;  // SINK.
    }
    item.frame = frame_of[node->id()];
    StaticFrame& sf = frames_[item.frame];
    item.pending_id = static_cast<int>(sf.initial_pending.size());
    sf.initial_pending.emplace_back();
    item.input_start = sf.total_inputs;
    sf.total_inputs += item.num_inputs;
    if (item.is_enter) ++frames_[item.child_frame].num_enters;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status NewLocalExecutor(const LocalExecutorParams& params,
                              std::unique_ptr<const Graph> graph,
                              std::unique_ptr<Executor>* executor) {
  if (graph == nullptr) {
    return absl::InvalidArgumentError("NewLocalExecutor needs a graph");
  }
  if (params.device == nullptr) {
    return absl::InvalidArgumentError("NewLocalExecutor needs a device");
  }
  auto impl = std::make_unique<ExecutorImpl>(params, std::move(graph));
  absl::Status s = impl->Initialize();
  if (!s.ok()) return s;
  *executor = std::move(impl);
  return absl::OkStatus();
}

}  // namespace stepflow
