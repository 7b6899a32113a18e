#include "runtime/framework/state_shape_fns.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

namespace {

// updates (unless a scalar) must be indices.shape + var.shape[1:].
absl::Status CheckScatterUpdates(InferenceContext* c, ShapeHandle var) {
  ShapeHandle rows, expected;
  SF_RETURN_IF_ERROR(c->Subshape(var, 1, &rows));
  SF_RETURN_IF_ERROR(c->Concatenate(c->input(1), rows, &expected));
  // A scalar update is broadcast to every indexed row.
  if (c->Rank(c->input(2)) != 0) {
    ShapeHandle unused;
    SF_RETURN_IF_ERROR(c->Merge(c->input(2), expected, &unused));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ScatterUpdateShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckScatterUpdates(c, c->input(0)));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status ResourceScatterUpdateShape(InferenceContext* c) {
  ShapeAndType var;
  SF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  return CheckScatterUpdates(c, var.shape);
}

absl::Status ScatterNdUpdateShape(InferenceContext* c) {
  ShapeHandle ref = c->input(0);
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data != nullptr && !data->empty()) ref = (*data)[0].shape;
  ShapeHandle indices, updates;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(2), 1, &updates));
  if (c->Value(c->NumElements(ref)) == 0 &&
      (c->Value(c->NumElements(indices)) > 0 ||
       c->Value(c->NumElements(updates)) > 0)) {
    return absl::InvalidArgumentError(
        "Indices and updates specified for empty input");
  }
  if (c->RankKnown(indices) && c->RankKnown(updates) && c->Rank(updates) != 0) {
    const int64_t outer = c->Rank(indices) - 1;
    const DimensionHandle index_depth = c->Dim(indices, -1);
    if (c->ValueKnown(index_depth)) {
      const int64_t depth = c->Value(index_depth);
      ShapeHandle unused, indices_outer, updates_outer;
      SF_RETURN_IF_ERROR(c->Subshape(indices, 0, outer, &indices_outer));
      SF_RETURN_IF_ERROR(c->Subshape(updates, 0, outer, &updates_outer));
      absl::Status s = c->Merge(indices_outer, updates_outer, &unused);
      if (!s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Dimensions [0,", outer,
            ") of indices[shape=", c->DebugString(indices),
            "] = ", c->DebugString(indices_outer), " must match dimensions [0,",
            outer, ") of updates[shape=", c->DebugString(updates),
            "] = ", c->DebugString(updates_outer), ": ", s.message()));
      }
      ShapeHandle ref_inner, updates_inner;
      SF_RETURN_IF_ERROR(c->Subshape(ref, depth, &ref_inner));
      SF_RETURN_IF_ERROR(c->Subshape(updates, outer, &updates_inner));
      s = c->Merge(ref_inner, updates_inner, &unused);
      if (!s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Dimensions [", depth, ",", c->Rank(ref), ") of input[shape=",
            c->DebugString(ref), "] = ", c->DebugString(ref_inner),
            " must match dimensions [", outer, ",", c->Rank(updates),
            ") of updates[shape=", c->DebugString(updates),
            "] = ", c->DebugString(updates_inner), ": ", s.message()));
      }
    }
  }
  if (data == nullptr && c->num_outputs() > 0) c->set_output(0, ref);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
