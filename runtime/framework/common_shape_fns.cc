// The generic shape functions: unchanged/merged shapes, broadcasting,
// matrix products, reductions and concatenation. Convolution and pooling
// are in nn_shape_fns.cc, reshapes and slices in array_shape_fns.cc.
#include "runtime/framework/common_shape_fns.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext* c) { return absl::OkStatus(); }

absl::Status ScalarShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return absl::OkStatus();
}

absl::Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  const auto* handle = c->input_handle_shapes_and_types(0);
  if (handle != nullptr) c->set_output_handle_shapes_and_types(0, *handle);
  return absl::OkStatus();
}

absl::Status UnchangedShapes(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) {
    c->set_output(i, c->input(i));
    const auto* handle = c->input_handle_shapes_and_types(i);
    if (handle != nullptr) c->set_output_handle_shapes_and_types(i, *handle);
  }
  return absl::OkStatus();
}

absl::Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), rank, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status UnchangedShapeWithRankAtMost(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), rank, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status CheckInputRank(InferenceContext* c, int index, int64_t rank) {
  ShapeHandle unused;
  return c->WithRank(c->input(index), rank, &unused);
}

absl::Status MergeBothInputsShapeFn(InferenceContext* c) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MergeAllInputs(InferenceContext* c, ShapeHandle* out) {
  *out = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    absl::Status s = c->Merge(c->input(i), *out, out);
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat(s.message(), "\n\tFrom merging shape ", i,
                                 " with other shapes."));
    }
  }
  return absl::OkStatus();
}

absl::Status MergeAllInputsShapeFn(InferenceContext* c) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(MergeAllInputs(c, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BroadcastBinaryOpOutputShapeFnHelper(InferenceContext* c,
                                                  ShapeHandle shape_x,
                                                  ShapeHandle shape_y,
                                                  bool incompatible_shape_error,
                                                  ShapeHandle* out) {
  if (!c->RankKnown(shape_x) || !c->RankKnown(shape_y)) {
    *out = c->UnknownShape();
    return absl::OkStatus();
  }
  const int32_t rank_x = c->Rank(shape_x), rank_y = c->Rank(shape_y);
  const int32_t rank = std::max(rank_x, rank_y);
  std::vector<DimensionHandle> dims;
  dims.reserve(rank);
  DimensionHandle one;
  for (int i = 0; i < rank; ++i) {
    const int ix = i - (rank - rank_x), iy = i - (rank - rank_y);
    if ((ix < 0 || iy < 0) && !one.IsSet()) one = c->MakeDim(1);
    DimensionHandle dx = ix < 0 ? one : c->DimKnownRank(shape_x, ix);
    DimensionHandle dy = iy < 0 ? one : c->DimKnownRank(shape_y, iy);
    const int64_t vx = c->Value(dx), vy = c->Value(dy);
    if (!c->ValueKnown(dx) || !c->ValueKnown(dy)) {
      // A dimension above 1 decides (the other broadcasts to it); a 1
      // yields the other; otherwise nothing is known.
      if (vx > 1) {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return absl::OkStatus();
        }
        dims.push_back(dx);
      } else if (vy > 1) {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return absl::OkStatus();
        }
        dims.push_back(dy);
      } else if (vx == 1) {
        dims.push_back(dy);
      } else if (vy == 1) {
        dims.push_back(dx);
      } else if (dx.SameHandle(dy)) {
        dims.push_back(dx);
      } else {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return absl::OkStatus();
        }
        dims.push_back(c->UnknownDim());
      }
    } else if (vx == 1 || vy == 1) {
      dims.push_back(vx == 1 && vy != 1 ? dy : dx);
    } else {
      DimensionHandle d;
      absl::Status s = c->Merge(dx, dy, &d);
      if (!s.ok()) {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return absl::OkStatus();
        }
        return s;
      }
      dims.push_back(d);
    }
  }
  *out = c->MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c,
                                            int output_index) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), true, &out));
  c->set_output(output_index, out);
  return absl::OkStatus();
}

absl::Status BroadcastBinaryOpShapeFn(InferenceContext* c) {
  return BroadcastBinaryOpOutputShapeFn(c, 0);
}

absl::Status MatMulShape(InferenceContext* c) {
  ShapeHandle a, b;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  bool transpose_a = false, transpose_b = false;
  SF_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  SF_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  DimensionHandle rows = c->Dim(a, transpose_a ? 1 : 0);
  DimensionHandle cols = c->Dim(b, transpose_b ? 0 : 1);
  DimensionHandle merged;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(a, transpose_a ? 0 : 1),
                              c->Dim(b, transpose_b ? 1 : 0), &merged));
  c->set_output(0, c->Matrix(rows, cols));
  return absl::OkStatus();
}

namespace {

// adj_x/adj_y (BatchMatMul*) or transpose_a/transpose_b.
absl::Status GetAdjoints(InferenceContext* c, bool* adj_x, bool* adj_y) {
  *adj_x = *adj_y = false;
  if (c->GetAttr("adj_x") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("adj_x", adj_x));
    SF_RETURN_IF_ERROR(c->GetAttr("adj_y", adj_y));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BatchMatMulShape(InferenceContext* c) {
  ShapeHandle a, b;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x, adj_y;
  SF_RETURN_IF_ERROR(GetAdjoints(c, &adj_x, &adj_y));
  DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  ShapeHandle a_batch, b_batch, batch;
  SF_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  SF_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  SF_RETURN_IF_ERROR(c->Merge(a_batch, b_batch, &batch));
  DimensionHandle inner;
  SF_RETURN_IF_ERROR(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BatchMatMulV2Shape(InferenceContext* c) {
  ShapeHandle a, b;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x, adj_y;
  SF_RETURN_IF_ERROR(GetAdjoints(c, &adj_x, &adj_y));
  DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  DimensionHandle inner;
  SF_RETURN_IF_ERROR(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner));
  ShapeHandle a_batch, b_batch, batch;
  SF_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  SF_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  SF_RETURN_IF_ERROR(
      BroadcastBinaryOpOutputShapeFnHelper(c, a_batch, b_batch, true, &batch));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ReductionShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle indices;
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &indices));
  bool keep_dims = false;
  SF_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const Tensor* axes = c->input_tensor(1);
  if (axes == nullptr || !c->RankKnown(input)) {
    if (keep_dims && c->RankKnown(input)) {
      c->set_output(0, c->UnknownShapeOfRank(c->Rank(input)));
      return absl::OkStatus();
    }
    return UnknownShape(c);
  }
  if (axes->dtype() != DT_INT32 && axes->dtype() != DT_INT64) {
    return UnknownShape(c);
  }
  const int32_t rank = c->Rank(input);
  std::set<int64_t> reduced;
  for (int64_t v : FlatInt64(*axes)) {
    if (v < -rank || v >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid reduction dimension ", v, " for input with ",
                       rank, " dimensions."));
    }
    reduced.insert(v < 0 ? v + rank : v);
  }
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    if (reduced.count(i) > 0) {
      if (keep_dims) dims.push_back(c->MakeDim(1));
    } else {
      dims.push_back(c->Dim(input, i));
    }
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status ArgOpShape(InferenceContext* c) {
  ShapeHandle input, unused;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  if (!c->RankKnown(input)) return UnknownShape(c);
  const int32_t rank = c->Rank(input);
  if (rank <= 1) {
    c->set_output(0, c->Scalar());
    return absl::OkStatus();
  }
  const Tensor* axis_t = c->input_tensor(1);
  if (axis_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank - 1));
    return absl::OkStatus();
  }
  int64_t axis;
  SF_RETURN_IF_ERROR(c->GetScalarFromTensor(axis_t, &axis));
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Dimension (", axis, ") must be in the range [", -rank, ", ", rank,
        "), where ", rank, " is the number of dimensions in the input."));
  }
  if (axis < 0) axis += rank;
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    if (i != axis) dims.push_back(c->Dim(input, i));
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

namespace {

absl::Status ConcatShapeHelper(InferenceContext* c, int start, int end,
                               int axis_index) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(axis_index), 0, &unused));
  const Tensor* axis_t = c->input_tensor(axis_index);
  if (axis_t == nullptr) {
    int32_t rank = kUnknownRank;
    for (int i = start; i < end && rank == kUnknownRank; ++i) {
      rank = c->Rank(c->input(i));
    }
    if (rank == kUnknownRank) return UnknownShape(c);
    if (rank == 0) {
      return absl::InvalidArgumentError(
          "Can't concatenate scalars (use tf.stack instead)");
    }
    for (int i = start; i < end; ++i) {
      SF_RETURN_IF_ERROR(c->WithRank(c->input(i), rank, &unused));
    }
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return absl::OkStatus();
  }
  int64_t axis;
  SF_RETURN_IF_ERROR(c->GetScalarFromTensor(axis_t, &axis));
  const int64_t min_rank = axis < 0 ? -axis : axis + 1;
  ShapeHandle input = c->input(end - 1);
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(input, min_rank, &input));
  ShapeHandle out_before, out_after;
  SF_RETURN_IF_ERROR(c->Subshape(input, 0, axis, &out_before));
  DimensionHandle out_middle = c->Dim(input, axis);
  if (axis == -1) {
    out_after = c->Scalar();
  } else {
    SF_RETURN_IF_ERROR(c->Subshape(input, axis + 1, &out_after));
  }
  for (int i = end - 2; i >= start; --i) {
    ShapeHandle before, after;
    input = c->input(i);
    SF_RETURN_IF_ERROR(c->WithRankAtLeast(input, min_rank, &input));
    SF_RETURN_IF_ERROR(c->Subshape(input, 0, axis, &before));
    DimensionHandle middle = c->Dim(input, axis);
    if (axis == -1) {
      after = c->Scalar();
    } else {
      SF_RETURN_IF_ERROR(c->Subshape(input, axis + 1, &after));
    }
    SF_RETURN_IF_ERROR(c->Merge(before, out_before, &out_before));
    SF_RETURN_IF_ERROR(c->Add(out_middle, middle, &out_middle));
    SF_RETURN_IF_ERROR(c->Merge(after, out_after, &out_after));
  }
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->Concatenate(out_before, c->Vector(out_middle), &s));
  SF_RETURN_IF_ERROR(c->Concatenate(s, out_after, &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

}  // namespace

absl::Status ConcatShape(InferenceContext* c, int num_inputs_to_concat) {
  return ConcatShapeHelper(c, 1, 1 + num_inputs_to_concat, 0);
}

absl::Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeHelper(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}

absl::Status RandomShape(InferenceContext* c) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MakeDimForScalarInputWithNegativeIndexing(InferenceContext* c,
                                                       int idx,
                                                       int32_t input_rank,
                                                       DimensionHandle* out) {
  const Tensor* t = c->input_tensor(idx);
  if (t == nullptr) {
    *out = c->UnknownDim();
    return absl::OkStatus();
  }
  int64_t v;
  SF_RETURN_IF_ERROR(c->GetScalarFromTensor(t, &v));
  if (v < 0) {
    if (input_rank < 0) {
      *out = c->UnknownDim();
      return absl::OkStatus();
    }
    if (v + input_rank < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Dimension size, given by scalar input ", v, " must be in range [-",
          input_rank, ", ", input_rank, ")"));
    }
    v += input_rank;
  } else if (input_rank >= 0 && v >= input_rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Dimension size, given by scalar input ", v, " must be in range [-",
        input_rank, ", ", input_rank, ")"));
  }
  *out = c->MakeDim(v);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
