#include "runtime/framework/string_shape_fns.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status StringJoinShape(InferenceContext* c) {
  bool all_scalars = true;
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (c->Rank(c->input(i)) != 0) all_scalars = false;
  }
  if (all_scalars) return ScalarShape(c);
  // An input of unknown rank may be a scalar or the result, so only the
  // inputs known to be non-scalars constrain the output.
  ShapeHandle out = c->UnknownShape();
  for (int i = 0; i < c->num_inputs(); ++i) {
    const ShapeHandle in = c->input(i);
    if (c->RankKnown(in) && c->Rank(in) != 0) {
      SF_RETURN_IF_ERROR(c->Merge(out, in, &out));
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status StringFormatShape(InferenceContext* c) {
  std::string format, placeholder;
  SF_RETURN_IF_ERROR(c->GetAttr("template", &format));
  SF_RETURN_IF_ERROR(c->GetAttr("placeholder", &placeholder));
  const std::vector<std::string> pieces = absl::StrSplit(format, placeholder);
  const int64_t num_placeholders = static_cast<int64_t>(pieces.size()) - 1;
  if (num_placeholders != c->num_inputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("num placeholders in template and num inputs must match: ",
                     num_placeholders, " vs. ", c->num_inputs()));
  }
  return ScalarShape(c);
}

absl::Status RegexShape(InferenceContext* c) {
  ShapeHandle unused;
  for (int i = 1; i < c->num_inputs(); ++i) {
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  }
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status SubstrShape(InferenceContext* c) {
  const ShapeHandle pos = c->input(1);
  const ShapeHandle len = c->input(2);
  if (c->RankKnown(len)) {
    ShapeHandle unused;
    SF_RETURN_IF_ERROR(c->WithRank(pos, c->Rank(len), &unused));
  }
  // Compared by value: an unknown dimension matches only another unknown.
  for (int32_t i = 0; i < c->Rank(pos); ++i) {
    if (c->Value(c->Dim(pos, i)) != c->Value(c->Dim(len, i))) {
      return absl::InvalidArgumentError(
          absl::StrCat("pos and len shapes must match: ", c->DebugString(pos),
                       " vs. ", c->DebugString(len)));
    }
  }
  return BroadcastBinaryOpShapeFn(c);
}

absl::Status StringSplitShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  c->set_output(0, c->Matrix(kUnknownDim, 2));
  c->set_output(1, c->Vector(kUnknownDim));
  c->set_output(2, c->Vector(2));
  return absl::OkStatus();
}

absl::Status UnicodeDecodeShape(InferenceContext* c) {
  DimensionHandle num_splits;
  SF_RETURN_IF_ERROR(c->Add(c->NumElements(c->input(0)), 1, &num_splits));
  c->set_output(0, c->Vector(num_splits));
  // The character values and their offsets share one unknown length.
  const DimensionHandle num_chars = c->UnknownDim();
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, c->Vector(num_chars));
  }
  return absl::OkStatus();
}

absl::Status UnicodeEncodeShape(InferenceContext* c) {
  ShapeHandle unused, splits;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &splits));
  DimensionHandle rows;
  SF_RETURN_IF_ERROR(c->Subtract(c->Dim(splits, 0), 1, &rows));
  c->set_output(0, c->Vector(rows));
  return absl::OkStatus();
}

absl::Status PrintV2Shape(InferenceContext* c) {
  const ShapeHandle in = c->input(0);
  if (c->RankKnown(in) && c->Rank(in) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be a scalar, but has rank: ", c->Rank(in)));
  }
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
