#include "runtime/framework/state_shape_fns.h"

#include <vector>

#include "runtime/framework/index_shape_fns.h"
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
  return ScatterNdShapeHelper(c, indices, updates, ref);
}

}  // namespace shape_inference
}  // namespace stepflow
