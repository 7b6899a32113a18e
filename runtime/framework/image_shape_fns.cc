// Shape functions of image ops (declared in image_shape_fns.h).
#include "runtime/framework/image_shape_fns.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status AdjustContrastv2Shape(InferenceContext* c) {
  ShapeHandle factor;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &factor));
  return UnchangedShapeWithRankAtLeast(c, 3);
}

absl::Status SetOutputToSizedImage(InferenceContext* c, DimensionHandle batch,
                                   int size_input, DimensionHandle channels) {
  ShapeHandle size;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(size_input), 1, &size));
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 2, &unused));
  DimensionHandle height = c->UnknownDim(), width = c->UnknownDim();
  if (const Tensor* t = c->input_tensor(size_input)) {
    if (t->dtype() != DT_INT32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Bad size input type for SetOutputToSizedImage: Expected DT_INT32 "
          "but got ",
          DataTypeString(t->dtype()), " for input #", size_input));
    }
    height = c->MakeDim(t->flat<int32_t>()(0));
    width = c->MakeDim(t->flat<int32_t>()(1));
  }
  c->set_output(0, c->MakeShape({batch, height, width, channels}));
  return absl::OkStatus();
}

absl::Status CropAndResizeShape(InferenceContext* c) {
  ShapeHandle image, boxes, box_index;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &image));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &boxes));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &box_index));
  DimensionHandle num_boxes, unused;
  SF_RETURN_IF_ERROR(
      c->Merge(c->Dim(boxes, 0), c->Dim(box_index, 0), &num_boxes));
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(boxes, 1), 4, &unused));
  return SetOutputToSizedImage(c, num_boxes, 3, c->Dim(image, 3));
}

absl::Status ResizeBilinearGradShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

absl::Status ResizeNearestNeighborGradShape(InferenceContext* c) {
  ShapeHandle grads, size;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &grads));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size));
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 2, &unused));
  DimensionHandle height = c->UnknownDim(), width = c->UnknownDim();
  if (const Tensor* t = c->input_tensor(1)) {
    height = c->MakeDim(t->flat<int32_t>()(0));
    width = c->MakeDim(t->flat<int32_t>()(1));
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->ReplaceDim(grads, 1, height, &out));
  SF_RETURN_IF_ERROR(c->ReplaceDim(out, 2, width, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

namespace {

// boxes [num_boxes, 4], scores [num_boxes] and `num_scalars` scalar
// inputs after them.
absl::Status CheckNmsInputs(InferenceContext* c, int num_scalars) {
  ShapeHandle boxes, scores, scalar;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &boxes));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &scores));
  for (int i = 0; i < num_scalars; ++i) {
    SF_RETURN_IF_ERROR(c->WithRank(c->input(2 + i), 0, &scalar));
  }
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(boxes, 0), c->Dim(scores, 0), &unused));
  return c->WithValue(c->Dim(boxes, 1), 4, &unused);
}

// The selected outputs' length: max_output_size when padded to it.
absl::Status SelectedLength(InferenceContext* c, DimensionHandle* len) {
  bool pad = false;
  SF_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad));
  *len = c->UnknownDim();
  if (pad) SF_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, len));
  return absl::OkStatus();
}

}  // namespace

absl::Status NonMaxSuppressionV3Shape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckNmsInputs(c, 3));
  c->set_output(0, c->Vector(c->UnknownDim()));
  return absl::OkStatus();
}

absl::Status NonMaxSuppressionV4Shape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckNmsInputs(c, 3));
  DimensionHandle len;
  SF_RETURN_IF_ERROR(SelectedLength(c, &len));
  c->set_output(0, c->Vector(len));
  c->set_output(1, c->Scalar());
  return absl::OkStatus();
}

absl::Status NonMaxSuppressionV5Shape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckNmsInputs(c, 4));
  DimensionHandle len;
  SF_RETURN_IF_ERROR(SelectedLength(c, &len));
  c->set_output(0, c->Vector(len));
  c->set_output(1, c->Vector(len));
  c->set_output(2, c->Scalar());
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
