// How the executor hands a node's values to its kernel and takes the
// kernel's results back: between the Entries of the node's input slots and
// outputs (entry.h) and the kernel's OpKernelContext. Part of one step's
// work (ExecutorState), the same for both propagators.
//
// Errors name the node ("{{node <name>}}"): Internal for a missing input,
// a value where a reference is expected, an output left unset (except by
// Switch and _Recv, whose unset outputs are dead) or of the wrong dtype;
// FailedPrecondition for an uninitialized variable reaching an op that
// does not allow uninitialized input; a kernel's own error, annotated.
//
// Thread-safety: the functions touch only what they are given; a
// reference Entry is read under its variable's mutex.
#ifndef STEPFLOW_RUNTIME_COMMON_KERNEL_IO_H_
#define STEPFLOW_RUNTIME_COMMON_KERNEL_IO_H_

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "proto/step_stats.pb.h"
#include "runtime/common/entry.h"
#include "runtime/common/immutable_executor_state.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/rendezvous.h"

namespace stepflow {

using TensorValueVec = absl::InlinedVector<TensorValue, 4>;

// Fills `inputs` (item.num_inputs long) from the node's input slots, which
// start at `first_input`: a value as is; a reference as a reference if the
// kernel takes one, else dereferenced into the slot (a copy sharing the
// buffer). Only a Merge may have an empty slot (an untaken branch).
absl::Status PrepareInputs(const NodeItem& item, Entry* first_input,
                           TensorValueVec* inputs);

// Moves the outputs of the kernel that ran with `ctx` (and `params`) into
// `outputs` (item.num_outputs long, empty on entry), checking them against
// the kernel's declared types, and records their shapes in `stats` if set.
// A dead _Recv (params.is_output_dead) sets `*node_dead` instead.
absl::Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                            const OpKernelContext::Params& params,
                            EntryVector* outputs, bool* node_dead,
                            NodeExecStats* stats);

// What a _Send (or _HostSend) whose input is dead does instead of running
// its kernel: sends a dead value under its rendezvous key for
// `frame_iter`. FailedPrecondition without a rendezvous; otherwise the
// rendezvous' error, annotated.
absl::Status SendDeadValue(const NodeItem& item, const FrameAndIter& frame_iter,
                           Rendezvous* rendezvous,
                           CancellationManager* cancellation_manager);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_KERNEL_IO_H_
