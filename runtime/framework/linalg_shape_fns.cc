// Shape functions of the linear-algebra and matrix-diagonal ops (declared
// in linalg_shape_fns.h).
#include "runtime/framework/linalg_shape_fns.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// `input` as a batch of square matrices: its last two dimensions merged.
absl::Status SquareMatrices(InferenceContext* c, ShapeHandle input,
                            ShapeHandle* out) {
  ShapeHandle s, batch;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(input, 2, &s));
  DimensionHandle n;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(s, -2), c->Dim(s, -1), &n));
  SF_RETURN_IF_ERROR(c->Subshape(s, 0, -2, &batch));
  return c->Concatenate(batch, c->Matrix(n, n), out);
}

// The batch shape of a determinant's input (last two dims merged, the
// last first).
absl::Status DeterminantBatch(InferenceContext* c, ShapeHandle* batch) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  DimensionHandle n;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(input, -1), c->Dim(input, -2), &n));
  return c->Subshape(input, 0, -2, batch);
}

// The operands of a solve: input 0 square matrices (`lhs`), input 1 at
// least a matrix (`rhs`), and the batch dimensions of each.
absl::Status SolveOperands(InferenceContext* c, ShapeHandle* lhs,
                           ShapeHandle* rhs, ShapeHandle* lhs_batch,
                           ShapeHandle* rhs_batch) {
  SF_RETURN_IF_ERROR(SquareMatrices(c, c->input(0), lhs));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, rhs));
  SF_RETURN_IF_ERROR(c->Subshape(*lhs, 0, -2, lhs_batch));
  return c->Subshape(*rhs, 0, -2, rhs_batch);
}

}  // namespace

absl::Status BatchUnchangedSquareShape(InferenceContext* c) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(SquareMatrices(c, c->input(0), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixDeterminantShape(InferenceContext* c) {
  ShapeHandle batch;
  SF_RETURN_IF_ERROR(DeterminantBatch(c, &batch));
  c->set_output(0, batch);
  return absl::OkStatus();
}

absl::Status LogMatrixDeterminantShape(InferenceContext* c) {
  ShapeHandle batch;
  SF_RETURN_IF_ERROR(DeterminantBatch(c, &batch));
  c->set_output(0, batch);
  c->set_output(1, batch);
  return absl::OkStatus();
}

absl::Status MatrixSolveShape(InferenceContext* c) {
  ShapeHandle lhs, rhs, lhs_batch, rhs_batch, batch;
  SF_RETURN_IF_ERROR(SolveOperands(c, &lhs, &rhs, &lhs_batch, &rhs_batch));
  SF_RETURN_IF_ERROR(c->Merge(lhs_batch, rhs_batch, &batch));
  DimensionHandle m, n = c->Dim(lhs, -1);
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(lhs, -2), c->Dim(rhs, -2), &m));
  SF_RETURN_IF_ERROR(c->Merge(m, n, &n));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(batch, c->Vector(n), &out));
  SF_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(c->Dim(rhs, -1)), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixTriangularSolveShape(InferenceContext* c) {
  ShapeHandle lhs, rhs, lhs_batch, rhs_batch, batch;
  SF_RETURN_IF_ERROR(SolveOperands(c, &lhs, &rhs, &lhs_batch, &rhs_batch));
  SF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, lhs_batch, rhs_batch, true, &batch));
  DimensionHandle m;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(lhs, -1), c->Dim(rhs, -2), &m));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(
      c->Concatenate(batch, c->Matrix(m, c->Dim(rhs, -1)), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

namespace {

// [..., m, n]: its batch shape, m, n and min(m, n).
struct MatrixDims {
  ShapeHandle batch;
  DimensionHandle m, n, p;
};

absl::Status GetMatrixDims(InferenceContext* c, MatrixDims* d) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  d->m = c->Dim(input, -2);
  d->n = c->Dim(input, -1);
  SF_RETURN_IF_ERROR(c->Min(d->m, d->n, &d->p));
  return c->Subshape(input, 0, -2, &d->batch);
}

}  // namespace

absl::Status QrShape(InferenceContext* c) {
  MatrixDims d;
  SF_RETURN_IF_ERROR(GetMatrixDims(c, &d));
  bool full_matrices = false;
  SF_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full_matrices));
  ShapeHandle q, r;
  SF_RETURN_IF_ERROR(c->Concatenate(
      d.batch, full_matrices ? c->Matrix(d.m, d.m) : c->Matrix(d.m, d.p), &q));
  SF_RETURN_IF_ERROR(c->Concatenate(
      d.batch, full_matrices ? c->Matrix(d.m, d.n) : c->Matrix(d.p, d.n), &r));
  c->set_output(0, q);
  c->set_output(1, r);
  return absl::OkStatus();
}

absl::Status SvdShape(InferenceContext* c) {
  MatrixDims d;
  SF_RETURN_IF_ERROR(GetMatrixDims(c, &d));
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->Concatenate(d.batch, c->Vector(d.p), &s));
  c->set_output(0, s);
  bool compute_uv = true, full_matrices = false;
  SF_RETURN_IF_ERROR(c->GetAttr("compute_uv", &compute_uv));
  SF_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full_matrices));
  if (!compute_uv) {
    // No factors: empty placeholders.
    c->set_output(1, c->Vector(0));
    c->set_output(2, c->Vector(0));
    return absl::OkStatus();
  }
  ShapeHandle u, v;
  SF_RETURN_IF_ERROR(
      c->Concatenate(d.batch, c->Matrix(d.m, full_matrices ? d.m : d.p), &u));
  SF_RETURN_IF_ERROR(
      c->Concatenate(d.batch, c->Matrix(d.n, full_matrices ? d.n : d.p), &v));
  c->set_output(1, u);
  c->set_output(2, v);
  return absl::OkStatus();
}

namespace {

// Whether `subscript` holds an ellipsis; more than one, or periods not
// forming "...", are refused.
absl::Status FindEllipsis(const std::string& subscript, bool* found) {
  const int64_t periods = std::count(subscript.begin(), subscript.end(), '.');
  if (periods != 0 && periods != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected at most one ellipsis (...), but found ", periods,
                     " periods (.) in the input subscript: ", subscript));
  }
  if (periods == 3 && !absl::StrContains(subscript, "...")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Periods found outside of ellipsis in subscript: ", subscript));
  }
  *found = periods == 3;
  return absl::OkStatus();
}

// A failure of a rank check on Einsum input `i`, with the equation.
absl::Status EinsumRankError(const absl::Status& s, int i,
                             const std::string& equation) {
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat(s.message(), "\n\t for ", i,
                                   "th input and equation: ", equation));
}

}  // namespace

absl::Status EinsumShape(InferenceContext* c) {
  std::string equation;
  SF_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  std::vector<std::string> sides = absl::StrSplit(equation, "->");
  if (sides.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting exactly one '->' in einsum equation: ", equation));
  }
  const std::string output_labels = sides[1];
  std::vector<std::string> input_labels = absl::StrSplit(sides[0], ',');
  if (input_labels.size() != 1 && input_labels.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting 1 or 2 input subscripts in equation '",
                     equation, "' but got: ", input_labels.size()));
  }
  const int num_inputs = c->num_inputs();
  if (num_inputs == 0 || num_inputs > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected either 1 or 2 inputs but got: ", num_inputs));
  }
  if (num_inputs != static_cast<int>(input_labels.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected ", input_labels.size(), " inputs for equation ",
                     equation, " but got: ", num_inputs));
  }

  // Each label's dimension (merged over its uses) and each input's
  // broadcast shape, the dimensions its ellipsis covers.
  absl::flat_hash_map<char, DimensionHandle> label_dims;
  std::vector<ShapeHandle> bcast(num_inputs);
  for (int i = 0; i < num_inputs; ++i) {
    const std::string& labels = input_labels[i];
    bool has_ellipsis = false;
    SF_RETURN_IF_ERROR(FindEllipsis(labels, &has_ellipsis));
    ShapeHandle shape = c->input(i);
    const bool rank_known = c->RankKnown(shape);
    if (rank_known) {
      const int64_t named =
          static_cast<int64_t>(labels.size()) - (has_ellipsis ? 3 : 0);
      SF_RETURN_IF_ERROR(EinsumRankError(
          has_ellipsis ? c->WithRankAtLeast(shape, named, &shape)
                       : c->WithRank(shape, named, &shape),
          i, equation));
    }
    bcast[i] = c->Scalar();
    bool after_ellipsis = false;
    const int64_t num_labels = static_cast<int64_t>(labels.size());
    for (int64_t k = 0; k < num_labels; ++k) {
      // After the ellipsis a label's axis counts from the end.
      const int64_t axis_from_end =
          rank_known ? k + c->Rank(shape) - num_labels : -1;
      if (labels[k] == '.') {
        if (rank_known) {
          SF_RETURN_IF_ERROR(
              c->Subshape(shape, k, axis_from_end + 3, &bcast[i]));
        } else {
          bcast[i] = c->UnknownShape();
        }
        k += 2;
        after_ellipsis = true;
        continue;
      }
      DimensionHandle dim =
          rank_known ? c->Dim(shape, after_ellipsis ? axis_from_end : k)
                     : c->UnknownDim();
      auto it = label_dims.find(labels[k]);
      if (it == label_dims.end()) {
        label_dims.emplace(labels[k], dim);
      } else {
        SF_RETURN_IF_ERROR(c->Merge(it->second, dim, &it->second));
      }
    }
  }

  ShapeHandle out_bcast = bcast[0];
  if (num_inputs == 2) {
    SF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
        c, bcast[0], bcast[1], true, &out_bcast));
  }
  bool output_ellipsis = false;
  SF_RETURN_IF_ERROR(FindEllipsis(output_labels, &output_ellipsis));
  if (output_ellipsis) {
    if (!c->RankKnown(out_bcast)) {
      c->set_output(0, c->UnknownShape());
      return absl::OkStatus();
    }
  } else {
    absl::Status s = c->WithRankAtMost(out_bcast, 0, &out_bcast);
    if (!s.ok()) {
      return absl::Status(
          s.code(),
          absl::StrCat(s.message(), "\n\t for einsum equation '", equation,
                       "' without ellipsis (...) in the output subscripts "
                       "where input(s) have non-empty broadcasting shape"));
    }
    out_bcast = c->Scalar();
  }
  std::vector<DimensionHandle> dims;
  for (size_t k = 0; k < output_labels.size(); ++k) {
    const char label = output_labels[k];
    if (label == '.') {
      for (int j = 0; j < c->Rank(out_bcast); ++j) {
        dims.push_back(c->Dim(out_bcast, j));
      }
      k += 2;
      continue;
    }
    auto it = label_dims.find(label);
    if (it == label_dims.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Einsum output subscripts for equation '", equation,
                       "' has label '", std::string(1, label),
                       "' which is not present in the input subscripts"));
    }
    dims.push_back(it->second);
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status MatrixDiagShape(InferenceContext* c) {
  ShapeHandle in;
  // An unknown rank gives an unknown shape.
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &in));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(in, c->Vector(c->Dim(in, -1)), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixDiagPartShape(InferenceContext* c) {
  ShapeHandle in;
  // An unknown rank gives an unknown shape.
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &in));
  ShapeHandle batch;
  SF_RETURN_IF_ERROR(c->Subshape(in, 0, -2, &batch));
  DimensionHandle len;
  SF_RETURN_IF_ERROR(c->Min(c->Dim(in, -2), c->Dim(in, -1), &len));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(batch, c->Vector(len), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixSetDiagShape(InferenceContext* c) {
  ShapeHandle input, diag;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &diag));
  if (c->RankKnown(input)) {
    SF_RETURN_IF_ERROR(c->WithRank(c->input(1), c->Rank(input) - 1, &diag));
  }
  DimensionHandle len;
  SF_RETURN_IF_ERROR(c->Min(c->Dim(input, -2), c->Dim(input, -1), &len));
  SF_RETURN_IF_ERROR(c->Merge(len, c->Dim(diag, -1), &len));
  ShapeHandle out = input;
  if (c->RankKnown(diag) && !c->FullyDefined(input)) {
    // The diagonal's batch dimensions refine the input's.
    ShapeHandle diag_batch;
    SF_RETURN_IF_ERROR(c->Subshape(diag, 0, -1, &diag_batch));
    SF_RETURN_IF_ERROR(
        c->Concatenate(diag_batch, c->UnknownShapeOfRank(2), &diag));
    SF_RETURN_IF_ERROR(c->Merge(input, diag, &out));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

namespace {

// The diagonal band `k` holds: one index (lower == upper) or two.
absl::Status ReadDiagIndex(const Tensor& k, int64_t* lower, int64_t* upper) {
  const std::vector<int64_t> v = FlatInt64(k);
  if (k.dims() == 0 || v.size() == 1) {
    *lower = *upper = v.empty() ? 0 : v[0];
  } else if (v.size() == 2) {
    *lower = v[0];
    *upper = v[1];
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index must be a vector with one or two elements. It has ",
        v.size(), " elements."));
  }
  if (*lower > *upper) {
    return absl::InvalidArgumentError(
        "lower_diag_index is greater than upper_diag_index");
  }
  return absl::OkStatus();
}

// Both indices must name a diagonal of a rows x cols matrix (when both
// sizes are known; index 0 always passes).
absl::Status CheckDiagBounds(int64_t rows, int64_t cols, int64_t lower,
                             int64_t upper) {
  if (rows == kUnknownDim || cols == kUnknownDim) return absl::OkStatus();
  auto out_of_bounds = [&](int64_t k) {
    return k != 0 && (-rows >= k || k >= cols);
  };
  if (out_of_bounds(lower)) {
    return absl::InvalidArgumentError("lower_diag_index is out of bound.");
  }
  if (out_of_bounds(upper)) {
    return absl::InvalidArgumentError("upper_diag_index is out of bound.");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status MatrixDiagPartV2Shape(InferenceContext* c) {
  ShapeHandle input, k_shape, unused;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &k_shape));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const Tensor* k = c->input_tensor(1);
  if (!c->RankKnown(input) || k == nullptr) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  int64_t lower = 0, upper = 0;
  SF_RETURN_IF_ERROR(ReadDiagIndex(*k, &lower, &upper));
  const int64_t rows = c->Value(c->Dim(input, -2));
  const int64_t cols = c->Value(c->Dim(input, -1));
  SF_RETURN_IF_ERROR(CheckDiagBounds(rows, cols, lower, upper));
  int64_t max_len = kUnknownDim;
  if (rows != kUnknownDim && cols != kUnknownDim) {
    max_len = std::min(rows + std::min<int64_t>(upper, 0),
                       cols - std::max<int64_t>(lower, 0));
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Subshape(input, 0, -2, &out));
  if (lower < upper) {
    SF_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(upper - lower + 1), &out));
  }
  SF_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(max_len), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixDiagV2Shape(InferenceContext* c) {
  ShapeHandle input, k_shape, unused;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &k_shape));
  for (int i = 2; i <= 4; ++i) {
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  }
  const Tensor* k = c->input_tensor(1);
  if (!c->RankKnown(input) || k == nullptr) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  int64_t lower = 0, upper = 0;
  SF_RETURN_IF_ERROR(ReadDiagIndex(*k, &lower, &upper));
  const int32_t rank = c->Rank(input);
  if (lower < upper) {
    // One row of `diagonal` per diagonal of the band.
    const int64_t num_diags = c->Value(c->Dim(input, rank - 2));
    const int64_t other = c->Value(c->Dim(input, rank - 1));
    if (num_diags != upper - lower + 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The number of rows of `diagonal` doesn't match the number of "
          "diagonals implied from `d_lower` and `d_upper`.\n",
          "num_diags = ", num_diags, ", d_lower = ", lower,
          ", d_upper = ", upper, " ", rank, " ", other));
    }
  }
  int64_t num_rows = -1, num_cols = -1;
  if (const Tensor* t = c->input_tensor(2)) {
    SF_RETURN_IF_ERROR(c->GetScalarFromTensor(t, &num_rows));
  }
  if (const Tensor* t = c->input_tensor(3)) {
    SF_RETURN_IF_ERROR(c->GetScalarFromTensor(t, &num_cols));
  }
  // The smallest matrix holding the band; a missing size takes it (both
  // missing: square).
  const int64_t max_len = c->Value(c->Dim(input, rank - 1));
  const int64_t min_rows = max_len - std::min<int64_t>(upper, 0);
  const int64_t min_cols = max_len + std::max<int64_t>(lower, 0);
  if (num_rows == -1 && num_cols == -1) {
    num_rows = num_cols = std::max(min_rows, min_cols);
  }
  if (num_rows == -1) {
    num_rows = min_rows;
  } else if (num_rows < min_rows) {
    return absl::InvalidArgumentError("num_rows is too small");
  }
  if (num_cols == -1) {
    num_cols = min_cols;
  } else if (num_cols < min_cols) {
    return absl::InvalidArgumentError("num_cols is too small.");
  }
  if (num_rows != min_rows && num_cols != min_cols) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_rows and num_cols are not consistent with lower_diag_index, "
        "upper_diag_index, and the length of the given diagonals.\n",
        "num_rows = ", num_rows, " != min_num_rows = ", min_rows,
        ", num_cols = ", num_cols, " != min_num_cols = ", min_cols));
  }
  ShapeHandle out;
  if (lower == upper) {
    SF_RETURN_IF_ERROR(
        c->ReplaceDim(input, rank - 1, c->MakeDim(num_rows), &out));
    SF_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(num_cols), &out));
  } else {
    SF_RETURN_IF_ERROR(
        c->ReplaceDim(input, rank - 2, c->MakeDim(num_rows), &out));
    SF_RETURN_IF_ERROR(
        c->ReplaceDim(out, rank - 1, c->MakeDim(num_cols), &out));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixSetDiagV2Shape(InferenceContext* c) {
  ShapeHandle input, diag, k_shape;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &diag));
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(2), 1, &k_shape));
  int64_t lower = 0, upper = 0;
  bool k_known = false;
  const Tensor* k = c->input_tensor(2);
  if (k != nullptr && c->FullyDefined(k_shape)) {
    k_known = true;
    SF_RETURN_IF_ERROR(ReadDiagIndex(*k, &lower, &upper));
  }
  if (c->RankKnown(input)) {
    const int32_t rank = c->Rank(input);
    if (k_known) {
      SF_RETURN_IF_ERROR(
          c->WithRank(c->input(1), lower == upper ? rank - 1 : rank, &diag));
    } else {
      SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), rank - 1, &diag));
      SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), rank, &diag));
    }
    SF_RETURN_IF_ERROR(CheckDiagBounds(c->Value(c->Dim(input, rank - 2)),
                                       c->Value(c->Dim(input, rank - 1)), lower,
                                       upper));
  }
  ShapeHandle out = input;
  if (c->RankKnown(diag) && !c->FullyDefined(input)) {
    ShapeHandle diag_batch;
    SF_RETURN_IF_ERROR(
        c->Subshape(diag, 0, lower == upper ? -1 : -2, &diag_batch));
    SF_RETURN_IF_ERROR(
        c->Concatenate(diag_batch, c->UnknownShapeOfRank(2), &diag));
    SF_RETURN_IF_ERROR(c->Merge(input, diag, &out));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
