// Shape functions of the gather, scatter and selection ops (declared in
// index_shape_fns.h).
#include "runtime/framework/index_shape_fns.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status GatherNdShape(InferenceContext* c) {
  ShapeHandle params = c->input(0), indices;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  DimensionHandle index_len = c->Dim(indices, -1);
  if (!c->RankKnown(params) || !c->ValueKnown(index_len)) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  if (c->Value(index_len) > c->Rank(params)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices.shape[-1] must be <= params.rank, but saw indices shape: ",
        c->DebugString(indices),
        " and params shape: ", c->DebugString(params)));
  }
  ShapeHandle outer, inner, out;
  SF_RETURN_IF_ERROR(c->Subshape(indices, 0, -1, &outer));
  SF_RETURN_IF_ERROR(c->Subshape(params, c->Value(index_len), &inner));
  SF_RETURN_IF_ERROR(c->Concatenate(outer, inner, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ScatterNdShapeHelper(InferenceContext* c, ShapeHandle indices,
                                  ShapeHandle updates, ShapeHandle output) {
  if (c->Value(c->NumElements(output)) == 0 &&
      (c->Value(c->NumElements(indices)) > 0 ||
       c->Value(c->NumElements(updates)) > 0)) {
    return absl::InvalidArgumentError(
        "Indices and updates specified for empty input");
  }
  if (c->RankKnown(indices) && c->RankKnown(updates) && c->Rank(updates) != 0) {
    const int64_t outer = c->Rank(indices) - 1;
    const DimensionHandle index_len = c->Dim(indices, -1);
    if (c->ValueKnown(index_len)) {
      const int64_t ix = c->Value(index_len);
      ShapeHandle indices_outer, updates_outer, unused;
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
      ShapeHandle output_inner, updates_inner;
      SF_RETURN_IF_ERROR(c->Subshape(output, ix, &output_inner));
      SF_RETURN_IF_ERROR(c->Subshape(updates, outer, &updates_inner));
      s = c->Merge(output_inner, updates_inner, &unused);
      if (!s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Dimensions [", ix, ",", c->Rank(output), ") of input[shape=",
            c->DebugString(output), "] = ", c->DebugString(output_inner),
            " must match dimensions [", outer, ",", c->Rank(updates),
            ") of updates[shape=", c->DebugString(updates),
            "] = ", c->DebugString(updates_inner), ": ", s.message()));
      }
    }
  }
  if (c->input_handle_shapes_and_types(0) == nullptr && c->num_outputs() > 0) {
    c->set_output(0, output);
  }
  return absl::OkStatus();
}

absl::Status ScatterNdShape(InferenceContext* c) {
  ShapeHandle indices, updates, output;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &indices));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &updates));
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &output));
  return ScatterNdShapeHelper(c, indices, updates, output);
}

absl::Status TensorScatterShape(InferenceContext* c) {
  ShapeHandle tensor, indices, updates;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &tensor));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(2), 1, &updates));
  return ScatterNdShapeHelper(c, indices, updates, tensor);
}

absl::Status DynamicStitchShape(InferenceContext* c) {
  int64_t n = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("N", &n));
  bool all_constant = true;
  int64_t max_index = -1;
  ShapeHandle inner = c->UnknownShape();
  for (int64_t i = 0; i < n; ++i) {
    const Tensor* t = c->input_tensor(i);
    if (t == nullptr) all_constant = false;
    ShapeHandle indices = c->input(i), data = c->input(i + n);
    if (!c->RankKnown(indices)) continue;
    ShapeHandle unused, rest;
    SF_RETURN_IF_ERROR(c->MergePrefix(data, indices, &unused, &unused));
    SF_RETURN_IF_ERROR(c->Subshape(data, c->Rank(indices), &rest));
    SF_RETURN_IF_ERROR(c->Merge(inner, rest, &inner));
    if (t != nullptr) {
      for (int64_t v : FlatInt64(*t)) max_index = std::max(max_index, v);
    }
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(
      c->Vector(all_constant ? c->MakeDim(max_index + 1) : c->UnknownDim()),
      inner, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ListDiffShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  ShapeHandle out = c->Vector(kUnknownDim);
  c->set_output(0, out);
  c->set_output(1, out);
  return absl::OkStatus();
}

absl::Status NthElementShape(InferenceContext* c) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  DimensionHandle n;
  SF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &n));
  DimensionHandle last = c->Dim(input, -1);
  if (c->ValueKnown(last) && c->ValueKnown(n) &&
      c->Value(last) <= c->Value(n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input must have last dimension > n = ", c->Value(n),
                     " but is ", c->Value(last)));
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Subshape(input, 0, -1, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status UniqueV2Shape(InferenceContext* c) {
  ShapeHandle x = c->input(0);
  c->set_output(0, c->RankKnown(x) ? c->UnknownShapeOfRank(c->Rank(x))
                                   : c->UnknownShape());
  // idx runs along the axis; its length is known when the axis is.
  c->set_output(1, c->Vector(kUnknownDim));
  const Tensor* axis = c->input_tensor(1);
  if (axis == nullptr) return absl::OkStatus();
  if (axis->dims() != 1) {
    return absl::InvalidArgumentError("axis expects a 1D vector.");
  }
  if (axis->NumElements() > 1) {
    return absl::InvalidArgumentError(
        "axis does not support input tensors larger than 1 elements.");
  }
  if (!c->RankKnown(x)) return absl::OkStatus();
  const int32_t rank = c->Rank(x);
  int64_t a = 0;
  if (axis->NumElements() == 0) {
    // No axis: x is flattened, and must be a vector.
    if (rank != 1) {
      return absl::InvalidArgumentError("x expects a 1D vector.");
    }
  } else {
    a = FlatInt64(*axis)[0];
    if (a < -rank || a >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "axis expects to be in the range [", -rank, ", ", rank, ")"));
    }
    if (a < 0) a += rank;
  }
  c->set_output(1, c->Vector(c->Dim(x, a)));
  return absl::OkStatus();
}

absl::Status UniqueWithCountsShape(InferenceContext* c) {
  ShapeHandle unique = c->Vector(kUnknownDim);
  c->set_output(0, unique);
  c->set_output(1, c->input(0));
  c->set_output(2, unique);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
