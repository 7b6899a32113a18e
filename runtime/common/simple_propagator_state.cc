#include "runtime/common/simple_propagator_state.h"

#include <utility>

namespace stepflow {

SimplePropagatorState::SimplePropagatorState(
    const ImmutableExecutorState& immutable)
    : immutable_(immutable) {
  const StaticFrame& root = immutable.static_frame(0);
  const size_t n = root.initial_pending.size();
  pending_.reset(new std::atomic<int32_t>[n]);
  for (size_t i = 0; i < n; ++i) {
    pending_[i].store(root.initial_pending[i].pending,
                      std::memory_order_relaxed);
  }
  input_tensors_.resize(root.total_inputs);
}

void SimplePropagatorState::ActivateRoots(TaggedNodeSeq* ready) {
  for (int id : immutable_.root_nodes()) {
    ready->push_back(TaggedNode(&immutable_.item(id)));
  }
}

void SimplePropagatorState::PropagateOutputs(const TaggedNode& tagged_node,
                                             bool /*is_dead*/,
                                             EntryVector* outputs,
                                             TaggedNodeSeq* ready) {
  const NodeItem& item = tagged_node.get_item();
  const OutEdge* edges = immutable_.out_edges().data();
  for (int k = item.out_begin; k < item.out_end; ++k) {
    const OutEdge& e = edges[k];
    const NodeItem& dst = immutable_.item(e.dst_id);
    if (e.dst_slot != kControlSlot) {
      Entry* slot = input_tensors_.data() + dst.input_start + e.dst_slot;
      if (e.last_use) {
        *slot = std::move((*outputs)[e.src_slot]);
      } else {
        *slot = (*outputs)[e.src_slot];
      }
    }
    // acq_rel: the delivery that makes `dst` ready sees every input slot
    // written before the others.
    if (pending_[dst.pending_id].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ready->push_back(TaggedNode(&dst));
    }
  }
}

}  // namespace stepflow
