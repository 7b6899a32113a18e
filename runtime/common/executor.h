// Executor: runs one device's partition graph, step after step.
//
// NewLocalExecutor checks the graph and creates every node's kernel once
// (errors are returned naming the node); RunAsync then runs one step and
// calls `done` with its status. RunAsync may be called concurrently for
// different steps; each step has its own state.
//
// Execution model (TensorFlow's):
//  * A node becomes ready when all its in-edges (data + control) have
//    delivered. Merge is special: it fires on its first live data input
//    (once its control inputs have arrived), or as dead when every data
//    input is dead.
//  * Dead values: Switch leaves its untaken output unset, which is "dead".
//    A node (other than Merge) with any dead input does not run and emits
//    dead on every output and control edge; ControlTrigger turns dead into
//    live. _Recv reports a dead value with ctx->is_output_dead(); a _Send
//    (or _HostSend) whose input is dead does not run its kernel: the
//    executor sends a dead value under the same rendezvous key itself, so
//    the receiving side sees the deadness.
//  * All work runs through env->scheduler: RunAsync schedules the root
//    nodes and returns (Run starts them on the calling thread instead).
//    Inexpensive kernels (OpKernel::IsExpensive() == false) run inline in
//    the closure that made them ready; expensive ones are scheduled
//    (except one, kept inline when nothing else is). Async kernels
//    complete through their callback, whose successors are scheduled; one
//    whose callback runs before ComputeAsync returns (a Recv whose value
//    is there, a MatMul too small to split) is finished in place, its
//    successors inline like a synchronous kernel's. RunAsync's `done` is
//    always delivered through Schedule, never inline in RunAsync or in
//    another component's callback.
//  * Errors: the first error is recorded (a Cancelled error gives way to a
//    later non-Cancelled one, since cancellation is usually a consequence
//    of the root cause), the step's rendezvous is aborted with it, no new
//    node starts, and `done(status)` runs exactly once after every kernel
//    already started has finished. A kernel leaving a promised output
//    unset (other than Switch/_Recv) or producing the wrong dtype is
//    Internal naming the node; an uninitialized variable reaching an op
//    that does not allow uninitialized input (anything but Assign and
//    IsVariableInitialized), as a ref or dereferenced, is FailedPrecondition
//    "Attempting to use uninitialized value <input>". A kernel that throws
//    std::bad_alloc (Compute, or ComputeAsync before it calls `done`) fails
//    with ResourceExhausted "OOM: kernel <op> on <device> ran out of host
//    memory" naming the node, like any kernel error: the process lives.
//  * Cancellation: when args.cancellation_manager is cancelled the step
//    stops starting nodes, aborts its rendezvous with Cancelled and ends
//    with Cancelled (unless a different error came first).
//  * Step stats: with args.stats_collector set, one NodeExecStats per op
//    node (times from env->clock) is saved under the device's name.
//  * Loop frames (TensorFlow's while loops). Every node runs in a frame
//    (the root frame, or the frame named by the frame_name of the Enter
//    nodes leading to it) and an iteration of it. Enter(frame_name,
//    is_constant, parallel_iterations) moves a value from its frame and
//    iteration into iteration 0 of the child frame instance keyed by
//    (parent frame instance, parent iteration, frame_name); a constant
//    Enter's value reaches every iteration. NextIteration moves a live
//    value to the next iteration of its frame (a dead one stops there);
//    Exit moves a live value to the parent frame and iteration. At most
//    parallel_iterations iterations of a frame instance are live at once:
//    a NextIteration value for a further one waits until the oldest live
//    iteration is done (nothing of it ready or running, no live child
//    frame, the previous one done and, for iteration 0, every Enter of
//    the frame arrived). Done iterations are freed; a frame instance is
//    done when every Enter has arrived and no iteration is live, and then
//    the Exits that were dead in its last iteration deliver dead values
//    to the parent (so a loop on an untaken branch still lets its
//    consumers run, as dead). Merge fires on its first live input as
//    usual; a dead Enter input makes a Merge dead at once.
//    OpKernelContext::Params::frame_iter (and so every rendezvous key) is
//    {FrameIdFromPath(path), iteration}, where the root frame's path is
//    "" (frame id 0) and a child frame's path is
//    ChildFramePath(parent path, parent iteration, frame_name): the same
//    on every device and in every process.
//    Construction errors (InvalidArgument, naming the node): a node with
//    inputs from different frames; Exit or NextIteration outside any
//    loop; Enters of one frame_name in different parent frames; an Enter
//    without a frame_name or with parallel_iterations <= 0; a cycle other
//    than through NextIteration.
//
// Ownership and lifetime: the executor owns the graph and the kernels. The
// device, env and everything in Args are borrowed; they and the executor
// must outlive every step until its `done` has been called.
// Thread-safety: RunAsync and Run are thread-safe.
//
// Where each part lives (TensorFlow's split, and names):
//  * immutable_executor_state.h: what NewLocalExecutor computes once per
//    graph and every step reads: the checks above, the kernels, NodeItem
//    per node, the flattened out-edges, the static loop frames with their
//    initial pending counts, the root nodes, and whether the graph needs
//    control-flow support (loop frames or a node that can make or pass on
//    a dead value: Switch, Merge, _Recv, Enter, Exit, NextIteration,
//    ControlTrigger).
//  * The propagator, picked once per executor from that answer, holds a
//    step's activation state and delivers a finished node's outputs:
//    propagator_state.h (frame instances, iterations, dead values) for
//    graphs with control flow; simple_propagator_state.h (one atomic
//    pending count and one input slot per node, no lock) for the others.
//  * executor_state.h: the per-step ExecutorState over that propagator:
//    running ready nodes, inline or through the scheduler, errors,
//    cancellation, step stats and `done`; Run's caller-thread loop.
//    kernel_io.h: a node's inputs and outputs to and from its kernel
//    (references, uninitialized variables, dtype checks, dead _Sends).
//  * executor.cc: NewLocalExecutor and the Executor implementation that
//    ties them together; frame_path.h: FrameIdFromPath and ChildFramePath.
//  * entry.h: the value on an edge (a tensor, a reference, or none).
#ifndef STEPFLOW_RUNTIME_COMMON_EXECUTOR_H_
#define STEPFLOW_RUNTIME_COMMON_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "proto/node_def.pb.h"
#include "runtime/common/device.h"
#include "runtime/common/frame_path.h"  // IWYU pragma: export
#include "runtime/env/env.h"
#include "runtime/framework/call_frame.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/function_runtime.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/graph/graph.h"

namespace stepflow {

class StepStatsCollector;

struct LocalExecutorParams {
  Device* device = nullptr;
  // Defaults to device->env() when null.
  Env* env = nullptr;
  // Creates the kernel for one node. Defaults to
  // CreateOpKernelBorrowingDef(device->device_type(), device, ndef, kernel)
  // when empty. Both factories get the node's NodeDef in the executor's own
  // graph, which outlives every kernel the executor holds (a kernel may
  // keep a reference to it; one that outlives the executor must copy).
  std::function<absl::Status(const NodeDef&, std::unique_ptr<OpKernel>*)>
      create_kernel;
  // If set, used instead of create_kernel: the kernel may be shared with
  // other executors (a session shares its stateful kernels, e.g. random
  // ops, across every executor of a device so their state persists).
  std::function<absl::Status(const NodeDef&, std::shared_ptr<OpKernel>*)>
      create_shared_kernel;
  // The device's function runtime, handed to every kernel (call kernels
  // run library functions through it); may be null. Borrowed.
  FunctionLibraryRuntime* function_library = nullptr;
};

class Executor {
 public:
  struct Args {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;
    CallFrameInterface* call_frame = nullptr;
    CancellationManager* cancellation_manager = nullptr;
    StepStatsCollector* stats_collector = nullptr;
    ScopedStepContainer* step_container = nullptr;
    // Prepended to every node name (and timeline label) saved to
    // stats_collector: a function body run by call node "c" passes "c/".
    std::string stats_name_prefix;
  };
  using DoneCallback = std::function<void(const absl::Status&)>;

  virtual ~Executor() = default;

  // Runs one step; `done` is called exactly once, through the scheduler.
  virtual void RunAsync(const Args& args, DoneCallback done) = 0;

  // Runs one step, starting on the calling thread, and returns its status
  // (what RunAsync would pass to `done`). The caller runs nodes inline, as
  // a scheduler closure would, for as long as it is the step's only
  // worker: once a node must go to the scheduler (ready alongside others
  // and expensive) or an async kernel does not complete at once, it hands
  // its remaining nodes to the scheduler too and waits (Scheduler::WaitFor)
  // for the step to end. A step of cheap or serial kernels thus needs no
  // scheduler hop and no wake-up, and no step uses more threads at once
  // than the scheduler has. Like WaitFor, it must not be called from inside
  // a scheduled closure.
  virtual absl::Status Run(const Args& args) = 0;
};

// Builds an executor for `graph` on params.device. InvalidArgument for a
// malformed graph (an unconnected or doubly connected input, a cycle not
// closed by NextIteration, an inconsistent loop frame), and kernel-creation
// errors as returned by create_kernel, each naming the node.
absl::Status NewLocalExecutor(const LocalExecutorParams& params,
                              std::unique_ptr<const Graph> graph,
                              std::unique_ptr<Executor>* executor);

// FrameIdFromPath(path) and ChildFramePath(parent_path, parent_iter,
// frame_name), which name frame instances as described above, are declared
// in frame_path.h, included here.

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_EXECUTOR_H_
