#include "runtime/framework/training_shape_fns.h"

#include <vector>

#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// How an update's variable-like inputs (variable, slots, grad) are read.
enum class Reading {
  // A ref input's own shape, unless it carries handle data.
  kRef,
  // A resource handle's handle data; unknown without it.
  kResource,
};

// Where an update keeps its inputs: `num_slots` variables first (var and
// its accumulators), then scalars up to `grad_index`, `grad` (followed by
// `indices` when sparse) and `scalars_after` more scalars.
struct ApplyLayout {
  int num_slots;
  int grad_index;
  int scalars_after;
};

ShapeHandle ShapeOf(InferenceContext* c, int index, Reading reading) {
  const std::vector<ShapeAndType>* data =
      c->input_handle_shapes_and_types(index);
  if (data != nullptr && !data->empty() && (*data)[0].dtype != DT_INVALID) {
    return (*data)[0].shape;
  }
  return reading == Reading::kResource ? c->UnknownShape() : c->input(index);
}

bool IsSparse(InferenceContext* c) {
  for (const OpDef::ArgDef& arg : c->op_def().input_arg()) {
    if (arg.name() == "indices") return true;
  }
  return false;
}

Reading ReadingOf(InferenceContext* c) {
  return c->op_def().input_arg(0).type() == DT_RESOURCE ? Reading::kResource
                                                        : Reading::kRef;
}

// Merges `grad` (and for a sparse update, checks `indices`) into `*var`.
absl::Status MergeGrad(InferenceContext* c, int grad_index, bool sparse,
                       Reading reading, ShapeHandle* var) {
  const ShapeHandle grad = ShapeOf(c, grad_index, reading);
  if (!sparse) return c->Merge(*var, grad, var);
  ShapeHandle indices;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(grad_index + 1), 1, &indices));
  if (c->Rank(grad) == 0) {
    return absl::InvalidArgumentError(
        "Argument grad must not be a scalar. Got grad with rank 0");
  }
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(indices, 0), c->Dim(grad, 0), &unused));
  // Only grad's trailing dimensions describe var's rows.
  ShapeHandle rows;
  SF_RETURN_IF_ERROR(c->ReplaceDim(grad, 0, c->UnknownDim(), &rows));
  return c->Merge(*var, rows, var);
}

absl::Status ApplyWithLayout(InferenceContext* c, const ApplyLayout& l,
                             Reading reading) {
  const bool sparse = IsSparse(c);
  ShapeHandle var = ShapeOf(c, 0, reading);
  for (int i = 1; i < l.num_slots; ++i) {
    SF_RETURN_IF_ERROR(c->Merge(var, ShapeOf(c, i, reading), &var));
  }
  for (int i = l.num_slots; i < l.grad_index; ++i) {
    SF_RETURN_IF_ERROR(CheckInputRank(c, i, 0));
  }
  SF_RETURN_IF_ERROR(MergeGrad(c, l.grad_index, sparse, reading, &var));
  const int after = l.grad_index + (sparse ? 2 : 1);
  for (int i = after; i < after + l.scalars_after; ++i) {
    SF_RETURN_IF_ERROR(CheckInputRank(c, i, 0));
  }
  if (c->num_outputs() > 0) c->set_output(0, var);
  return absl::OkStatus();
}

absl::Status Apply(InferenceContext* c, const ApplyLayout& l) {
  return ApplyWithLayout(c, l, ReadingOf(c));
}

}  // namespace

absl::Status ApplyGradientDescentShape(InferenceContext* c) {
  return Apply(c, {1, 2, 0});  // var, alpha, delta
}

absl::Status ApplyProximalGradientDescentShape(InferenceContext* c) {
  return Apply(c, {1, 4, 0});  // var, alpha, l1, l2, grad|delta
}

absl::Status ApplyMomentumShape(InferenceContext* c) {
  return Apply(c, {2, 3, 1});  // var, accum, lr, grad, momentum
}

absl::Status ApplyAdamShape(InferenceContext* c) {
  // var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad.
  return Apply(c, {3, 9, 0});
}

absl::Status ApplyAdaMaxShape(InferenceContext* c) {
  // var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad.
  return Apply(c, {3, 8, 0});
}

absl::Status ApplyAdadeltaShape(InferenceContext* c) {
  // var, accum, accum_update, lr, rho, epsilon, grad.
  return Apply(c, {3, 6, 0});
}

absl::Status ApplyAdagradShape(InferenceContext* c) {
  return Apply(c, {2, 3, 0});  // var, accum, lr, grad
}

absl::Status ApplyAdagradV2Shape(InferenceContext* c) {
  return Apply(c, {2, 4, 0});  // var, accum, lr, epsilon, grad
}

absl::Status ApplyProximalAdagradShape(InferenceContext* c) {
  return Apply(c, {2, 5, 0});  // var, accum, lr, l1, l2, grad
}

absl::Status ApplyRMSPropShape(InferenceContext* c) {
  // var, ms, mom, lr, rho, momentum, epsilon, grad.
  return Apply(c, {3, 7, 0});
}

absl::Status ApplyCenteredRMSPropShape(InferenceContext* c) {
  // var, mg, ms, mom, lr, rho, momentum, epsilon, grad.
  return Apply(c, {4, 8, 0});
}

absl::Status ApplyFtrlShape(InferenceContext* c) {
  // var, accum, linear, grad, then lr, l1, l2 and lr_power (V1) or
  // l2_shrinkage (V2).
  return Apply(c, {3, 3, 4});
}

absl::Status ResourceApplyProximalAdagradShape(InferenceContext* c) {
  return ApplyWithLayout(c, {2, 5, 0}, Reading::kRef);
}

}  // namespace shape_inference
}  // namespace stepflow
