// Entry: a value travelling on one edge of an executor's graph, from the
// node that produced it to the input slot of the node that reads it.
//
// An Entry holds a tensor, a reference to a variable's tensor (with the
// variable's mutex), or nothing: no value has arrived yet, or the value is
// dead (Switch's untaken output, a dead _Recv). Readers dereference a
// reference under its mutex (ExecutorState::PrepareInputs).
//
// Ownership: a value Entry owns its tensor (tensors share buffers by
// reference count); a reference Entry borrows the variable's tensor and
// mutex, which the kernel that produced them keeps alive for the step.
// Thread-safety: none of its own; the propagators say who may touch an
// input slot when (see propagator_state.h, simple_propagator_state.h).
#ifndef STEPFLOW_RUNTIME_COMMON_ENTRY_H_
#define STEPFLOW_RUNTIME_COMMON_ENTRY_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

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

// A finished node's outputs, indexed by output slot.
using EntryVector = absl::InlinedVector<Entry, 4>;

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_ENTRY_H_
