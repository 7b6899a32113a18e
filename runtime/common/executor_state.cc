#include "runtime/common/executor_state.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "proto/step_stats.pb.h"
#include "runtime/common/entry.h"
#include "runtime/common/kernel_io.h"
#include "runtime/common/propagator_state.h"
#include "runtime/common/simple_propagator_state.h"
#include "runtime/common/step_stats_collector.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {
namespace {

// FIFO of nodes to run inline in the current closure, or on the thread
// that called Executor::Run.
template <class TaggedNode>
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

// Completion: `num_outstanding_` counts nodes that are ready or running;
// when it drops to zero every kernel has finished. `holds_` then keeps the
// state alive until the cancellation callback (if registered) can no
// longer run: it starts at 2 with a registered callback (one for the nodes,
// one for the callback) and 1 otherwise; the last release calls Finish().
template <class PropagatorStateType>
class ExecutorState {
 public:
  // With `done_inline`, Finish calls `done` on the thread that finishes the
  // step instead of scheduling it: for Run, whose `done` only notifies.
  ExecutorState(const Executor::Args& args,
                const ImmutableExecutorState& immutable,
                Executor::DoneCallback done, bool done_inline);

  // Schedules the root nodes.
  void RunAsync();
  // Runs the step on the calling thread for as long as it is the step's
  // only worker (see ReadyQueue::OnCallerThread).
  void RunInline();

 private:
  using TaggedNode = typename PropagatorStateType::TaggedNode;
  using TaggedNodeSeq = typename PropagatorStateType::TaggedNodeSeq;
  using Queue = ReadyQueue<TaggedNode>;
  struct AsyncState;

  // Runs `inline_ready` and whatever becomes ready inline behind it.
  void Process(Queue inline_ready);
  // Hands the caller's remaining queue to the scheduler (Run's caller,
  // once part of the step runs elsewhere).
  void HandOff(Queue* inline_ready);
  // The error of a kernel that threw std::bad_alloc: ResourceExhausted
  // naming the node (the step fails; the process lives).
  absl::Status OutOfHostMemory(const NodeItem& item) const;
  // Runs `item`'s synchronous kernel on the inputs in `params`; fills
  // `outputs` (and `*node_dead` for a dead _Recv). A std::bad_alloc from
  // the kernel becomes its OutOfHostMemory status.
  absl::Status ComputeSync(const NodeItem& item,
                           OpKernelContext::Params* params,
                           EntryVector* outputs, bool* node_dead,
                           NodeExecStats* stats);
  // Launches `item`'s async kernel and, if it completed during the launch,
  // finishes the node here (its successors may then run inline).
  void RunAsyncKernel(const NodeItem& item, const TaggedNode& tn,
                      const OpKernelContext::Params& params,
                      const TensorValueVec& inputs,
                      std::unique_ptr<NodeExecStats> stats,
                      Queue* inline_ready);
  // Starts an async kernel. Returns its state if the kernel completed
  // before ComputeAsync returned (then the caller finishes the node, with
  // FinishAsync, and may run its successors inline); null otherwise (then
  // the kernel's `done` finishes it through AsyncDone). A ComputeAsync
  // that throws std::bad_alloc completes the node with OutOfHostMemory
  // (such a kernel must not call `done` after throwing).
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
  bool FinishAsync(AsyncState* state, Queue* inline_ready);

  static void ClearInputs(Entry* first_input, int n) {
    for (int i = 0; i < n; ++i) first_input[i].Clear();
  }

  // Accounts for one finished node and schedules its successors. Returns
  // true if that was the last outstanding node.
  bool NodeDone(const absl::Status& s, TaggedNodeSeq* ready,
                Queue* inline_ready);
  // Accounts for a ready node dropped because the step is aborting.
  bool DropNode() {
    return num_outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }
  // Schedules `ready`: with `inline_ready`, cheap nodes (and one expensive
  // node if nothing else) go there; without, everything is scheduled.
  void ScheduleReady(TaggedNodeSeq* ready, Queue* inline_ready);
  // Schedules one closure that runs `tn`.
  void ScheduleOne(const TaggedNode& tn, Queue* inline_ready);

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

  const ImmutableExecutorState& immutable_;
  const int64_t step_id_;
  Rendezvous* const rendezvous_;
  CallFrameInterface* const call_frame_;
  CancellationManager* const cancellation_manager_;
  StepStatsCollector* const stats_collector_;
  ScopedStepContainer* const step_container_;
  const std::string stats_name_prefix_;
  Executor::DoneCallback done_;
  const bool done_inline_;

  CancellationToken cancel_token_ = 0;
  bool cancel_registered_ = false;

  std::atomic<int64_t> num_outstanding_{0};
  std::atomic<int> holds_{1};
  std::atomic<bool> aborted_{false};

  absl::Mutex status_mu_;
  absl::Status status_ ABSL_GUARDED_BY(status_mu_);

  PropagatorStateType propagator_;
};

template <class P>
struct ExecutorState<P>::AsyncState {
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

template <class P>
ExecutorState<P>::ExecutorState(const Executor::Args& args,
                                const ImmutableExecutorState& immutable,
                                Executor::DoneCallback done, bool done_inline)
    : immutable_(immutable),
      step_id_(args.step_id),
      rendezvous_(args.rendezvous),
      call_frame_(args.call_frame),
      cancellation_manager_(args.cancellation_manager),
      stats_collector_(immutable.env()->clock != nullptr ? args.stats_collector
                                                         : nullptr),
      step_container_(args.step_container),
      stats_name_prefix_(stats_collector_ != nullptr ? args.stats_name_prefix
                                                     : std::string()),
      done_(std::move(done)),
      done_inline_(done_inline),
      propagator_(immutable) {}

template <class P>
void ExecutorState<P>::RunAsync() {
  TaggedNodeSeq ready;
  if (!Start(&ready)) return;
  // Everything (even cheap roots) goes through the scheduler: RunAsync
  // never runs kernels on the caller's thread.
  ScheduleReady(&ready, nullptr);
}

template <class P>
void ExecutorState<P>::RunInline() {
  TaggedNodeSeq ready;
  if (!Start(&ready)) return;
  Queue inline_ready = Queue::OnCallerThread();
  ScheduleReady(&ready, &inline_ready);
  Process(std::move(inline_ready));
}

template <class P>
bool ExecutorState<P>::Start(TaggedNodeSeq* ready) {
  if (cancellation_manager_ != nullptr) {
    cancel_token_ = cancellation_manager_->get_cancellation_token();
    holds_.store(2, std::memory_order_relaxed);
    if (!cancellation_manager_->RegisterCallback(cancel_token_,
                                                 [this] { OnCancel(); })) {
      {
        absl::MutexLock l(&status_mu_);
        status_ = absl::CancelledError(absl::StrCat(
            "Step ", step_id_, " was cancelled before it started"));
      }
      holds_.store(1, std::memory_order_relaxed);
      Finish();
      return false;
    }
    cancel_registered_ = true;
  }
  const size_t num_roots = immutable_.root_nodes().size();
  if (num_roots == 0) {
    AllNodesDone();
    return false;
  }
  num_outstanding_.store(static_cast<int64_t>(num_roots),
                         std::memory_order_relaxed);
  propagator_.ActivateRoots(ready);
  return true;
}

template <class P>
void ExecutorState<P>::Process(Queue inline_ready) {
  TaggedNodeSeq ready;
  EntryVector outputs;
  TensorValueVec inputs;
  OpKernelContext::Params params;
  params.step_id = step_id_;
  params.device = immutable_.device();
  params.rendezvous = rendezvous_;
  params.call_frame = call_frame_;
  params.cancellation_manager = cancellation_manager_;
  params.step_container = step_container_;
  params.function_library = immutable_.function_library();
  params.stats_collector = stats_collector_;
  params.stats_name_prefix = stats_name_prefix_;

  while (!inline_ready.empty()) {
    if (inline_ready.must_hand_off()) {
      HandOff(&inline_ready);
      return;
    }
    const TaggedNode tn = inline_ready.pop_front();
    const NodeItem& item = tn.get_item();

    if (aborted_.load(std::memory_order_acquire)) {
      // The step is failing: start nothing new.
      if (DropNode()) AllNodesDone();
      continue;
    }

    ready.clear();
    outputs.clear();
    // Not resize(): Entry's Resize is not inlined here, emplace_back is.
    for (int i = 0; i < item.num_outputs; ++i) outputs.emplace_back();
    std::unique_ptr<NodeExecStats> stats;
    if (stats_collector_ != nullptr && item.kernel != nullptr) {
      stats = StartStats(item);
    }
    Entry* first_input = propagator_.GetInputTensors(tn);
    bool node_dead = tn.get_is_dead();
    absl::Status s;

    if (item.kernel == nullptr) {
      // SOURCE / SINK: nothing to compute.
    } else if (tn.get_is_dead() && !item.is_transfer()) {
      // Dead: the kernel does not run; every output stays dead.
    } else if (item.is_noop && stats == nullptr) {
      // Nothing to compute; only its control edges matter.
    } else if (tn.get_is_dead() && item.is_send) {
      s = SendDeadValue(item, propagator_.GetFrameAndIter(tn), rendezvous_,
                        cancellation_manager_);
      ClearInputs(first_input, item.num_inputs);
    } else {
      s = PrepareInputs(item, first_input, &inputs);
      if (s.ok()) {
        params.op_kernel = item.kernel;
        params.inputs = absl::MakeConstSpan(inputs);
        params.frame_iter = propagator_.GetFrameAndIter(tn);
        params.is_output_dead = false;
        if (item.async_kernel != nullptr) {
          // Finishes the node if it completes during the launch; otherwise
          // it completes through AsyncDone, possibly already (and possibly
          // finishing the step if nothing is left inline: then the loop
          // ends here without touching `this`).
          RunAsyncKernel(item, tn, params, inputs, std::move(stats),
                         &inline_ready);
          continue;
        }
        s = ComputeSync(item, &params, &outputs, &node_dead, stats.get());
      }
      ClearInputs(first_input, item.num_inputs);
    }
    if (stats != nullptr) FinishStats(item, std::move(stats));
    if (s.ok()) propagator_.PropagateOutputs(tn, node_dead, &outputs, &ready);
    if (NodeDone(s, &ready, &inline_ready)) {
      // Last node: `inline_ready` is empty, so the loop ends.
      AllNodesDone();
    }
  }
}

template <class P>
void ExecutorState<P>::HandOff(Queue* inline_ready) {
  // The rest goes to the scheduler with the nodes already there (counted
  // in num_outstanding_, so `this` stays alive).
  Queue rest;
  while (!inline_ready->empty()) rest.push_back(inline_ready->pop_front());
  immutable_.env()->scheduler->Schedule(
      [this, rest = std::move(rest)]() mutable { Process(std::move(rest)); });
}

template <class P>
absl::Status ExecutorState<P>::OutOfHostMemory(const NodeItem& item) const {
  return AttachDef(absl::ResourceExhaustedError(absl::StrCat(
                       "OOM: kernel ", item.kernel->type_string(), " on ",
                       immutable_.device()->name(), " ran out of host memory")),
                   item.kernel->name());
}

template <class P>
absl::Status ExecutorState<P>::ComputeSync(const NodeItem& item,
                                           OpKernelContext::Params* params,
                                           EntryVector* outputs,
                                           bool* node_dead,
                                           NodeExecStats* stats) {
  OpKernelContext ctx(params);
  SetOpStart(stats);
  try {
    immutable_.device()->Compute(item.kernel, &ctx);
  } catch (const std::bad_alloc&) {
    // A kernel's own scratch (a std::vector sized by its inputs) ran the
    // process out of memory: the step fails, the process lives.
    ctx.SetStatus(OutOfHostMemory(item));
  }
  SetOpEnd(stats);
  return ProcessOutputs(item, &ctx, *params, outputs, node_dead, stats);
}

template <class P>
void ExecutorState<P>::RunAsyncKernel(const NodeItem& item,
                                      const TaggedNode& tn,
                                      const OpKernelContext::Params& params,
                                      const TensorValueVec& inputs,
                                      std::unique_ptr<NodeExecStats> stats,
                                      Queue* inline_ready) {
  AsyncState* done_early =
      LaunchAsync(item, tn, params, inputs, std::move(stats));
  // Completed during the launch (a Recv whose value was there, a product
  // not worth splitting): finish it here, so its successors can run inline
  // instead of through the scheduler.
  if (done_early == nullptr) {
    inline_ready->MarkHandedOff();  // Completes on another thread.
  } else if (FinishAsync(done_early, inline_ready)) {
    AllNodesDone();  // Last node: `inline_ready` is empty.
  }
}

template <class P>
typename ExecutorState<P>::AsyncState* ExecutorState<P>::LaunchAsync(
    const NodeItem& item, const TaggedNode& tn,
    const OpKernelContext::Params& params, const TensorValueVec& inputs,
    std::unique_ptr<NodeExecStats> stats) {
  auto* state = new AsyncState(params, tn, inputs, std::move(stats));
  SetOpStart(state->stats.get());
  auto done = [this, state] {
    if (state->handoff.exchange(AsyncState::kDoneEarly,
                                std::memory_order_acq_rel) ==
        AsyncState::kLaunched) {
      AsyncDone(state);
    }
  };
  try {
    immutable_.device()->ComputeAsync(item.async_kernel, &state->ctx, done);
  } catch (const std::bad_alloc&) {
    // As in ComputeSync. A kernel that throws has launched nothing, so it
    // never calls `done`: finish it here, unless it did before throwing.
    if (state->handoff.load(std::memory_order_acquire) !=
        AsyncState::kDoneEarly) {
      state->ctx.SetStatus(OutOfHostMemory(item));
      done();
    }
  }
  if (state->handoff.exchange(AsyncState::kLaunched,
                              std::memory_order_acq_rel) ==
      AsyncState::kDoneEarly) {
    return state;
  }
  return nullptr;
}

template <class P>
void ExecutorState<P>::AsyncDone(AsyncState* state) {
  // Successors are scheduled, not run inline: this callback may be running
  // inside another component (a Send on another executor, a cancellation).
  if (FinishAsync(state, nullptr)) AllNodesDone();
}

template <class P>
bool ExecutorState<P>::FinishAsync(AsyncState* state, Queue* inline_ready) {
  const TaggedNode tn = state->tagged_node;
  const NodeItem& item = tn.get_item();
  SetOpEnd(state->stats.get());
  EntryVector outputs(item.num_outputs);
  bool node_dead = tn.get_is_dead();
  absl::Status s = ProcessOutputs(item, &state->ctx, state->params, &outputs,
                                  &node_dead, state->stats.get());
  ClearInputs(propagator_.GetInputTensors(tn), item.num_inputs);
  if (state->stats != nullptr) FinishStats(item, std::move(state->stats));
  delete state;
  TaggedNodeSeq ready;
  if (s.ok()) propagator_.PropagateOutputs(tn, node_dead, &outputs, &ready);
  outputs.clear();
  return NodeDone(s, &ready, inline_ready);
}

template <class P>
bool ExecutorState<P>::NodeDone(const absl::Status& s, TaggedNodeSeq* ready,
                                Queue* inline_ready) {
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

template <class P>
void ExecutorState<P>::ScheduleOne(const TaggedNode& tn, Queue* inline_ready) {
  if (inline_ready != nullptr) inline_ready->MarkHandedOff();
  immutable_.env()->scheduler->Schedule([this, tn] {
    Queue q;
    q.push_back(tn);
    Process(std::move(q));
  });
}

template <class P>
void ExecutorState<P>::ScheduleReady(TaggedNodeSeq* ready,
                                     Queue* inline_ready) {
  if (ready->empty()) return;
  if (inline_ready != nullptr && ready->size() == 1) {
    // The common case (a chain): one successor, run here unless it is
    // expensive and other work is queued here already.
    const TaggedNode& tn = ready->front();
    if (!tn.get_item().is_expensive || tn.get_is_dead() ||
        inline_ready->empty()) {
      inline_ready->push_back(tn);
      return;
    }
  }
  // Every node in `ready` is counted in num_outstanding_, so the step (and
  // `this`) stays alive until all of them have run, even if the first
  // scheduled closure runs at once on another thread.
  if (inline_ready == nullptr) {
    Queue cheap;
    bool any_cheap = false;
    for (const TaggedNode& tn : *ready) {
      if (tn.get_item().is_expensive && !tn.get_is_dead()) {
        ScheduleOne(tn, nullptr);
      } else {
        cheap.push_back(tn);
        any_cheap = true;
      }
    }
    if (any_cheap) {
      immutable_.env()->scheduler->Schedule(
          [this, cheap = std::move(cheap)]() mutable {
            Process(std::move(cheap));
          });
    }
    return;
  }
  const TaggedNode* curr_expensive = nullptr;
  for (const TaggedNode& tn : *ready) {
    if (!tn.get_item().is_expensive || tn.get_is_dead()) {
      inline_ready->push_back(tn);
    } else {
      if (curr_expensive != nullptr) ScheduleOne(*curr_expensive, inline_ready);
      curr_expensive = &tn;
    }
  }
  if (curr_expensive != nullptr) {
    if (inline_ready->empty()) {
      inline_ready->push_back(*curr_expensive);
    } else {
      ScheduleOne(*curr_expensive, inline_ready);
    }
  }
}

template <class P>
void ExecutorState<P>::RecordError(const absl::Status& s) {
  bool first_error = false;
  {
    absl::MutexLock l(&status_mu_);
    if (status_.ok() || (absl::IsCancelled(status_) && !absl::IsCancelled(s))) {
      status_ = s;
    }
    first_error = !aborted_.exchange(true, std::memory_order_acq_rel);
  }
  // Outside the lock: aborting runs pending Recv callbacks inline, which
  // may complete nodes of this very step.
  if (first_error && rendezvous_ != nullptr) rendezvous_->StartAbort(s);
}

template <class P>
void ExecutorState<P>::OnCancel() {
  RecordError(
      absl::CancelledError(absl::StrCat("Step ", step_id_, " was cancelled")));
  ReleaseHold();
}

template <class P>
void ExecutorState<P>::AllNodesDone() {
  if (cancel_registered_ &&
      cancellation_manager_->DeregisterCallback(cancel_token_)) {
    ReleaseHold();  // On behalf of the callback, which will never run.
  }
  ReleaseHold();
}

template <class P>
void ExecutorState<P>::Finish() {
  absl::Status status;
  {
    absl::MutexLock l(&status_mu_);
    status = status_;
  }
  Executor::DoneCallback done = std::move(done_);
  Scheduler* scheduler = immutable_.env()->scheduler;
  const bool done_inline = done_inline_;
  delete this;
  if (done_inline) {
    done(status);
    return;
  }
  scheduler->Schedule(
      [done = std::move(done), status = std::move(status)] { done(status); });
}

template <class P>
std::unique_ptr<NodeExecStats> ExecutorState<P>::StartStats(
    const NodeItem& item) const {
  auto stats = std::make_unique<NodeExecStats>();
  stats->set_node_name(stats_name_prefix_.empty()
                           ? item.name()
                           : absl::StrCat(stats_name_prefix_, item.name()));
  const int64_t now = immutable_.env()->clock->NowNanos();
  stats->set_all_start_nanos(now);
  stats->set_all_start_micros(now / 1000);
  return stats;
}

template <class P>
void ExecutorState<P>::SetOpStart(NodeExecStats* stats) const {
  if (stats == nullptr) return;
  const int64_t rel =
      immutable_.env()->clock->NowNanos() - stats->all_start_nanos();
  stats->set_op_start_rel_nanos(rel);
  stats->set_op_start_rel_micros(rel / 1000);
}

template <class P>
void ExecutorState<P>::SetOpEnd(NodeExecStats* stats) const {
  if (stats == nullptr) return;
  const int64_t rel =
      immutable_.env()->clock->NowNanos() - stats->all_start_nanos();
  stats->set_op_end_rel_nanos(rel);
  stats->set_op_end_rel_micros(rel / 1000);
}

template <class P>
void ExecutorState<P>::FinishStats(const NodeItem& item,
                                   std::unique_ptr<NodeExecStats> stats) const {
  const int64_t rel =
      immutable_.env()->clock->NowNanos() - stats->all_start_nanos();
  stats->set_all_end_rel_nanos(rel);
  stats->set_all_end_rel_micros(rel / 1000);
  stats->set_timeline_label(
      absl::StrCat(stats_name_prefix_, TimelineLabel(item.node->def())));
  AllocatorMemoryUsed memory;
  if (immutable_.device()->GetAllocatorMemoryUsed(&memory)) {
    *stats->add_memory() = std::move(memory);
  }
  stats_collector_->Save(immutable_.device()->name(), std::move(*stats));
}

}  // namespace

template <class PropagatorStateType>
void StartStepAsync(const ImmutableExecutorState& immutable,
                    const Executor::Args& args, Executor::DoneCallback done) {
  (new ExecutorState<PropagatorStateType>(args, immutable, std::move(done),
                                          /*done_inline=*/false))
      ->RunAsync();
}

template <class PropagatorStateType>
void RunStepOnCaller(const ImmutableExecutorState& immutable,
                     const Executor::Args& args, Executor::DoneCallback done) {
  (new ExecutorState<PropagatorStateType>(args, immutable, std::move(done),
                                          /*done_inline=*/true))
      ->RunInline();
}

// The two propagators; executor.cc picks one per executor.
template void StartStepAsync<SimplePropagatorState>(
    const ImmutableExecutorState&, const Executor::Args&,
    Executor::DoneCallback);
template void StartStepAsync<PropagatorState>(const ImmutableExecutorState&,
                                              const Executor::Args&,
                                              Executor::DoneCallback);
template void RunStepOnCaller<SimplePropagatorState>(
    const ImmutableExecutorState&, const Executor::Args&,
    Executor::DoneCallback);
template void RunStepOnCaller<PropagatorState>(const ImmutableExecutorState&,
                                               const Executor::Args&,
                                               Executor::DoneCallback);

}  // namespace stepflow
