// Shape functions of reshapes and slices (declared in common_shape_fns.h).
#include <array>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status ReshapeShape(InferenceContext* c) {
  ShapeHandle in = c->input(0);
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return absl::OkStatus();
  }
  // Known elements of each side and the position of its one unknown dim.
  bool too_many_unknown = false;
  auto count = [&](ShapeHandle s, DimensionHandle* known, int* unknown_idx) {
    *unknown_idx = -1;
    *known = c->NumElements(s);
    if (c->ValueKnown(*known)) return;
    *known = c->MakeDim(1);
    for (int i = 0; i < c->Rank(s); ++i) {
      DimensionHandle d = c->Dim(s, i);
      if (!c->ValueKnown(d)) {
        if (*unknown_idx >= 0) {
          too_many_unknown = true;
          return;
        }
        *unknown_idx = i;
      } else {
        c->Multiply(*known, d, known).IgnoreError();
      }
    }
  };
  DimensionHandle known_out, known_in;
  int out_unknown = -1, in_unknown = -1;
  count(out, &known_out, &out_unknown);
  if (!too_many_unknown) count(in, &known_in, &in_unknown);
  if (!too_many_unknown) {
    if (in_unknown < 0 && out_unknown < 0) {
      if (c->Value(known_in) != c->Value(known_out)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Cannot reshape a tensor with ", c->DebugString(known_in),
            " elements to shape ", c->DebugString(out), " (",
            c->DebugString(known_out), " elements)"));
      }
    } else if (in_unknown < 0 && out_unknown >= 0 && c->Value(known_out) > 0) {
      DimensionHandle inferred;
      SF_RETURN_IF_ERROR(
          c->Divide(known_in, c->Value(known_out), true, &inferred));
      SF_RETURN_IF_ERROR(c->ReplaceDim(out, out_unknown, inferred, &out));
    } else if (in_unknown >= 0 && out_unknown < 0 && c->Value(known_in) != 0) {
      DimensionHandle inferred;
      SF_RETURN_IF_ERROR(
          c->Divide(known_out, c->Value(known_in), true, &inferred));
      DimensionHandle unknown_in = c->Dim(in, in_unknown);
      SF_RETURN_IF_ERROR(c->Merge(unknown_in, inferred, &unknown_in));
    } else if (in_unknown >= 0 && out_unknown >= 0 &&
               c->Value(known_in) == c->Value(known_out)) {
      SF_RETURN_IF_ERROR(
          c->ReplaceDim(out, out_unknown, c->Dim(in, in_unknown), &out));
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status SliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape, sizes_shape;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &sizes_shape));
  SF_RETURN_IF_ERROR(c->Merge(begin_shape, sizes_shape, &begin_shape));
  DimensionHandle ndims = c->Dim(begin_shape, 0);
  if (c->ValueKnown(ndims)) {
    SF_RETURN_IF_ERROR(c->WithRank(input, c->Value(ndims), &input));
  }
  const Tensor* begin = c->input_tensor(1);
  const Tensor* sizes = c->input_tensor(2);
  if (sizes != nullptr) {
    SF_RETURN_IF_ERROR(c->WithRank(begin_shape, sizes->dims(), &begin_shape));
    std::vector<DimensionHandle> dims;
    for (int64_t i = 0; i < sizes->NumElements(); ++i) {
      int64_t size;
      SF_RETURN_IF_ERROR(c->GetScalarFromTensor(sizes, i, &size));
      if (begin == nullptr) {
        dims.push_back(size < 0 ? c->UnknownDim() : c->MakeDim(size));
        continue;
      }
      DimensionHandle dim = c->Dim(input, i);
      if (size != -1) {
        if (size < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Out of bounds slicing on dimension ", i, " of length ",
              c->Value(dim), ": sizes vector cannot be < -1, but was ", size));
        }
        dims.push_back(c->MakeDim(size));
      } else {
        int64_t b;
        SF_RETURN_IF_ERROR(c->GetScalarFromTensor(begin, i, &b));
        DimensionHandle d;
        SF_RETURN_IF_ERROR(c->Subtract(dim, b, &d));
        dims.push_back(d);
      }
    }
    c->set_output(0, c->MakeShape(std::move(dims)));
    return absl::OkStatus();
  }
  ShapeHandle sizes_value;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &sizes_value));
  if (c->RankKnown(sizes_value)) {
    c->set_output(0, sizes_value);
    return absl::OkStatus();
  }
  if (c->RankKnown(input)) {
    c->set_output(0, c->UnknownShapeOfRank(c->Rank(input)));
    return absl::OkStatus();
  }
  return UnknownShape(c);
}

namespace {

constexpr int kShrinkAxis = -1;
constexpr int kNewAxis = -2;

// The strided slice of a partially known shape (TensorFlow's
// ValidateStridedSliceOp, shapes only). `input_dims` holds -1 for unknown
// dimensions; null begin/end mean not constant.
absl::Status StridedSliceFinalShape(InferenceContext* c,
                                    const std::vector<int64_t>& input_dims,
                                    const Tensor* begin_t, const Tensor* end_t,
                                    const Tensor& strides_t, int begin_mask,
                                    int end_mask, int ellipsis_mask,
                                    int new_axis_mask, int shrink_axis_mask,
                                    std::vector<int64_t>* final_dims) {
  const int64_t n = strides_t.NumElements();
  auto bad_shape = [&](const Tensor* t) {
    return t != nullptr && (t->dims() != 1 || t->NumElements() != n);
  };
  if (strides_t.dims() != 1 || bad_shape(begin_t) || bad_shape(end_t) ||
      n >= 32) {
    return absl::InvalidArgumentError(
        "Expected begin, end, and strides to be 1D equal size tensors");
  }
  if (ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return absl::InvalidArgumentError(
        "Multiple ellipses in slice spec not allowed");
  }
  // Sparse spec: count new axes after the ellipsis; add one at the end
  // when there is none.
  int sparse_dims = static_cast<int>(n);
  int num_add_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && ((1 << i) & new_axis_mask) != 0) {
      ++num_add_axis_after_ellipsis;
    }
    if ((1 << i) & ellipsis_mask) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= (1 << sparse_dims);
    ++sparse_dims;
  }
  // Dense spec.
  const int dims = static_cast<int>(input_dims.size());
  std::vector<int64_t> begin(dims, 0), end(dims, 0), strides(dims, 1);
  int dense_begin_mask = 0, dense_end_mask = 0, dense_shrink_mask = 0;
  std::vector<int> gather;
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if ((1 << i) & ellipsis_mask) {
      const int next = std::min(
          dims - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        begin[full] = end[full] = 0;
        strides[full] = 1;
        dense_begin_mask |= (1 << full);
        dense_end_mask |= (1 << full);
        gather.push_back(full);
      }
    } else if ((1 << i) & new_axis_mask) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return absl::InvalidArgumentError(
            absl::StrCat("Index out of range using input dim ", full,
                         "; input has only ", dims, " dims"));
      }
      if (begin_t != nullptr) {
        SF_RETURN_IF_ERROR(c->GetScalarFromTensor(begin_t, i, &begin[full]));
      }
      if (end_t != nullptr) {
        SF_RETURN_IF_ERROR(c->GetScalarFromTensor(end_t, i, &end[full]));
      }
      SF_RETURN_IF_ERROR(c->GetScalarFromTensor(&strides_t, i, &strides[full]));
      if (begin_mask & (1 << i)) dense_begin_mask |= (1 << full);
      if (end_mask & (1 << i)) dense_end_mask |= (1 << full);
      if (shrink_axis_mask & (1 << i)) {
        gather.push_back(kShrinkAxis);
        dense_shrink_mask |= (1 << full);
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }
  // Processing shape.
  const bool begin_valid = begin_t != nullptr, end_valid = end_t != nullptr;
  std::vector<int64_t> processing;
  for (int i = 0; i < dims; ++i) {
    int64_t b = begin[i], e = end[i];
    const int64_t stride = strides[i];
    const int64_t dim = input_dims[i];
    if (stride == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strides[", i, "] must be non-zero"));
    }
    const bool shrink = dense_shrink_mask & (1 << i);
    if (dim == -1) {
      processing.push_back(shrink ? 1 : -1);
      continue;
    }
    const std::array<bool, 2> masks = {(dense_begin_mask & (1 << i)) != 0,
                                       (dense_end_mask & (1 << i)) != 0};
    const std::array<int64_t, 2> range = {stride > 0 ? 0 : -1,
                                          stride > 0 ? dim : dim - 1};
    auto canonical = [&](int64_t x, int which) {
      if (masks[which]) {
        return stride > 0 ? range[which] : range[(which + 1) & 1];
      }
      const int64_t fwd = x < 0 ? dim + x : x;
      return fwd < range[0] ? range[0] : fwd > range[1] ? range[1] : fwd;
    };
    if (shrink && stride <= 0) {
      return absl::InvalidArgumentError(
          "only stride 1 allowed on non-range indexing.");
    }
    const bool both_masked = masks[0] && masks[1];
    if (begin_valid && end_valid) {
      if (shrink) {
        const int64_t fwd = b < 0 ? dim + b : b;
        b = fwd;
        e = b + 1;
        if (fwd < 0 || fwd >= dim) {
          return absl::InvalidArgumentError(absl::StrCat(
              "slice index ", b, " of dimension ", i, " out of bounds."));
        }
      } else {
        b = canonical(b, 0);
        e = canonical(e, 1);
      }
    }
    int64_t length = 0;
    bool known = false;
    if (begin_valid && end_valid) {
      length = e - b;
      known = true;
    } else if (shrink) {
      length = 1;
      known = true;
    } else if (both_masked) {
      length = stride < 0 ? -dim : dim;
      known = true;
    }
    if (!known) {
      processing.push_back(-1);
    } else if (length == 0 || ((length < 0) != (stride < 0))) {
      processing.push_back(0);
    } else {
      processing.push_back(length / stride + (length % stride != 0 ? 1 : 0));
    }
  }
  final_dims->clear();
  for (int g : gather) {
    if (g >= 0) {
      final_dims->push_back(processing[g]);
    } else if (g == kNewAxis) {
      final_dims->push_back(1);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status StridedSliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape, end_shape, strides_shape;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &end_shape));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, &strides_shape));
  SF_RETURN_IF_ERROR(c->Merge(begin_shape, end_shape, &begin_shape));
  SF_RETURN_IF_ERROR(c->Merge(begin_shape, strides_shape, &begin_shape));
  DimensionHandle sparse_dims = c->Dim(begin_shape, 0);
  const Tensor* strides = c->input_tensor(3);
  if (!c->RankKnown(input) || !c->ValueKnown(sparse_dims) ||
      strides == nullptr) {
    return UnknownShape(c);
  }
  std::vector<int64_t> input_dims;
  for (int i = 0; i < c->Rank(input); ++i) {
    input_dims.push_back(c->Value(c->Dim(input, i)));
  }
  int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  SF_RETURN_IF_ERROR(c->GetAttr("begin_mask", &begin_mask));
  SF_RETURN_IF_ERROR(c->GetAttr("end_mask", &end_mask));
  SF_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &ellipsis_mask));
  SF_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &new_axis_mask));
  SF_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &shrink_mask));
  const Tensor* begin = c->input_tensor(1);
  const Tensor* end = c->input_tensor(2);
  std::vector<int64_t> final_dims;
  SF_RETURN_IF_ERROR(StridedSliceFinalShape(
      c, input_dims, begin, end, *strides, begin_mask, end_mask, ellipsis_mask,
      new_axis_mask, shrink_mask, &final_dims));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(
      c->MakeShapeFromPartialTensorShape(PartialTensorShape(final_dims), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
