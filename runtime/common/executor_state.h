// The per-step ExecutorState (private to the :executor library): one step
// of an executor. It runs the step's ready nodes (Process), hands their
// outputs to the propagator, decides which newly ready nodes run inline
// and which go to the scheduler (ScheduleReady), records the first error,
// handles cancellation and step stats, and delivers `done` exactly once:
// the Executor::RunAsync and Executor::Run contract of executor.h (a
// node's inputs and outputs go through kernel_io.h). The class itself
// lives in executor_state.cc, with internal linkage so that the compiler
// inlines its hot path as one unit; this header declares its entry
// points.
//
// ExecutorState is a template over the propagator that holds the step's
// activation state, chosen once per executor (see executor.cc):
//  * SimplePropagatorState (simple_propagator_state.h) for graphs without
//    control flow;
//  * PropagatorState (propagator_state.h) for graphs with loop frames or
//    dead values.
// A propagator offers: TaggedNode (get_item(), get_is_dead()) and
// TaggedNodeSeq; a constructor from the ImmutableExecutorState;
// ActivateRoots(ready); PropagateOutputs(tagged_node, is_dead, outputs,
// ready); GetInputTensors(tagged_node); GetFrameAndIter(tagged_node). Both
// instantiations are compiled in executor_state.cc; the hot path has no
// branch on which propagator runs.
//
// Ownership: each step's state is heap-allocated and deletes itself when
// the step ends (after scheduling `done`, or calling it for Run). It
// borrows the immutable state and everything in Executor::Args, which
// must outlive the step (until `done` has been called).
// Thread-safety: the entry points may be called concurrently for
// different steps; a step's nodes may run concurrently on the scheduler's
// threads (its counters are atomic, its status under a mutex).
#ifndef STEPFLOW_RUNTIME_COMMON_EXECUTOR_STATE_H_
#define STEPFLOW_RUNTIME_COMMON_EXECUTOR_STATE_H_

#include "runtime/common/executor.h"
#include "runtime/common/immutable_executor_state.h"

namespace stepflow {

// Starts one step of `immutable`'s graph, with Executor::RunAsync's
// contract: every node, the roots included, runs through the scheduler,
// and `done` is scheduled once the step is over.
template <class PropagatorStateType>
void StartStepAsync(const ImmutableExecutorState& immutable,
                    const Executor::Args& args, Executor::DoneCallback done);

// Runs one step of `immutable`'s graph starting on the calling thread, for
// as long as it is the step's only worker (Executor::Run), and returns
// when it has handed the rest to the scheduler or the step is over. `done`
// is called, not scheduled, by whichever thread ends the step.
template <class PropagatorStateType>
void RunStepOnCaller(const ImmutableExecutorState& immutable,
                     const Executor::Args& args, Executor::DoneCallback done);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_EXECUTOR_STATE_H_
