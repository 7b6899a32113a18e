// Shape functions of the segment reductions and bin counts (declared in
// segment_shape_fns.h).
#include "runtime/framework/segment_shape_fns.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status SegmentReductionShape(InferenceContext* c) {
  ShapeHandle data, ids, inner, out;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &data));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &ids));
  SF_RETURN_IF_ERROR(c->Subshape(data, 1, &inner));
  SF_RETURN_IF_ERROR(c->Concatenate(c->Vector(kUnknownDim), inner, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status UnsortedSegmentReductionShape(InferenceContext* c) {
  ShapeHandle data = c->input(0), ids = c->input(1), num_segments;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &num_segments));
  if (!c->RankKnown(ids)) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  // data's leading dimensions are segment_ids'.
  SF_RETURN_IF_ERROR(c->MergePrefix(data, ids, &data, &ids));
  DimensionHandle n;
  SF_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &n));
  ShapeHandle inner, out;
  SF_RETURN_IF_ERROR(c->Subshape(data, c->Rank(ids), &inner));
  SF_RETURN_IF_ERROR(c->Concatenate(c->Vector(n), inner, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

namespace {

// The value of the scalar `size` input (input 1), refused when negative;
// false in *known when it is not constant.
absl::Status BinCount(InferenceContext* c, bool* known, int64_t* size) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  const Tensor* t = c->input_tensor(1);
  *known = t != nullptr;
  if (t == nullptr) return absl::OkStatus();
  if (t->dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape must be rank 0 but is rank ", t->dims()));
  }
  if (t->dtype() != DT_INT32 && t->dtype() != DT_INT64) {
    return absl::InvalidArgumentError("size dtype must be int32 or int64");
  }
  *size = FlatInt64(*t)[0];
  if (*size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size (", *size, ") must be non-negative"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BincountShape(InferenceContext* c) {
  bool known = false;
  int64_t size = 0;
  SF_RETURN_IF_ERROR(BinCount(c, &known, &size));
  c->set_output(0, c->Vector(known ? size : kUnknownDim));
  return absl::OkStatus();
}

absl::Status DenseBincountShape(InferenceContext* c) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), 2, &input));
  bool known = false;
  int64_t size = 0;
  SF_RETURN_IF_ERROR(BinCount(c, &known, &size));
  if (!known) {
    c->set_output(0, c->UnknownShape());
  } else if (c->Rank(input) == 1) {
    c->set_output(0, c->Vector(size));
  } else if (c->Rank(input) == 2) {
    c->set_output(0, c->Matrix(c->Dim(input, 0), size));
  }
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
