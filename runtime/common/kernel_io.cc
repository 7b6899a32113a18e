#include "runtime/common/kernel_io.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "proto/graph.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/types.h"

namespace stepflow {

absl::Status PrepareInputs(const NodeItem& item, Entry* first_input,
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
              " expects a reference (", DataTypeString(item.input_types[i]),
              ") but got a value"));
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
          return absl::FailedPreconditionError(
              absl::StrCat("Attempting to use uninitialized value ", input_name,
                           " [[", FormatNodeName(item.name()), "]]"));
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

absl::Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                            const OpKernelContext::Params& params,
                            EntryVector* outputs, bool* node_dead,
                            NodeExecStats* stats) {
  if (!ctx->status().ok()) return AttachDef(ctx->status(), item.name());
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

absl::Status SendDeadValue(const NodeItem& item, const FrameAndIter& frame_iter,
                           Rendezvous* rendezvous,
                           CancellationManager* cancellation_manager) {
  if (rendezvous == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(FormatNodeName(item.name()),
                     " cannot send a dead value: the step has no rendezvous"));
  }
  const SendInfo& si = *item.send;
  Rendezvous::ParsedKey key;
  absl::Status s = si.key.Get(frame_iter, &key);
  if (!s.ok()) return AttachDef(s, item.name());
  Rendezvous::Args args;
  args.cancellation_manager = cancellation_manager;
  args.on_host = si.on_host;
  return AttachDef(rendezvous->Send(key, args, Tensor(), /*is_dead=*/true),
                   item.name());
}

}  // namespace stepflow
