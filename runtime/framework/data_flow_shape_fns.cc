#include "runtime/framework/data_flow_shape_fns.h"

#include <vector>

#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// Input 0 must be a TensorArray handle: a vector of two.
absl::Status CheckHandle(InferenceContext* c) {
  ShapeHandle handle;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &handle));
  DimensionHandle unused;
  return c->WithValue(c->Dim(handle, 0), 2, &unused);
}

// The element shape the handle's data records, or null.
const ShapeAndType* Element(InferenceContext* c) {
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data == nullptr || data->empty()) return nullptr;
  return &(*data)[0];
}

// A new handle and flow (TensorArrayV3 and its gradients).
void SetHandleAndFlow(InferenceContext* c) {
  c->set_output(0, c->Vector(2));
  c->set_output(1, c->Scalar());
}

}  // namespace

absl::Status TensorArrayShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 0, 0));
  SetHandleAndFlow(c);
  bool identical = false;
  SF_RETURN_IF_ERROR(c->GetAttr("identical_element_shapes", &identical));
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  TensorShapeProto proto;
  SF_RETURN_IF_ERROR(c->GetAttr("element_shape", &proto));
  ShapeHandle element;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto, &element));
  if (c->FullyDefined(element) || identical) {
    c->set_output_handle_shapes_and_types(0, {ShapeAndType{element, dtype}});
  }
  return absl::OkStatus();
}

absl::Status TensorArrayGradShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  SetHandleAndFlow(c);
  if (const auto* data = c->input_handle_shapes_and_types(0)) {
    c->set_output_handle_shapes_and_types(0, *data);
  }
  return absl::OkStatus();
}

absl::Status TensorArrayGradWithShapeShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  SetHandleAndFlow(c);
  const ShapeAndType* data = Element(c);
  if (data == nullptr) return absl::OkStatus();
  // The gradient's elements have shape_to_prepend's length of (unknown)
  // leading dimensions before the forward element's.
  const ShapeAndType& element = *data;
  const int64_t prepend = c->Value(c->Dim(c->input(2), 0));
  if (!c->RankKnown(element.shape) || prepend == kUnknownDim) {
    c->set_output_handle_shapes_and_types(
        0, {ShapeAndType{c->UnknownShape(), element.dtype}});
    return absl::OkStatus();
  }
  ShapeHandle grad;
  SF_RETURN_IF_ERROR(
      c->Concatenate(c->UnknownShapeOfRank(prepend), element.shape, &grad));
  c->set_output_handle_shapes_and_types(0, {ShapeAndType{grad, element.dtype}});
  return absl::OkStatus();
}

absl::Status TensorArrayReadShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 2, 0));
  const ShapeAndType* element = Element(c);
  c->set_output(0, element != nullptr ? element->shape : c->UnknownShape());
  return absl::OkStatus();
}

absl::Status TensorArrayWriteShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 3, 0));
  if (const ShapeAndType* element = Element(c)) {
    ShapeHandle unused;
    SF_RETURN_IF_ERROR(c->Merge(element->shape, c->input(2), &unused));
  }
  return ScalarShape(c);
}

absl::Status TensorArrayGatherShape(InferenceContext* c) {
  ShapeHandle handle, indices;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &handle));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(handle, 0), 2, &unused));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 2, 0));
  ShapeHandle element;
  if (const ShapeAndType* data = Element(c)) {
    element = data->shape;
  } else {
    TensorShapeProto proto;
    SF_RETURN_IF_ERROR(c->GetAttr("element_shape", &proto));
    SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto, &element));
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->Concatenate(indices, element, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status TensorArrayScatterShape(InferenceContext* c) {
  ShapeHandle handle, indices;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &handle));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(handle, 0), 2, &unused));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 3, 0));
  // One row of value per index.
  ShapeHandle value;
  SF_RETURN_IF_ERROR(c->MergePrefix(c->input(2), indices, &value, &indices));
  if (const ShapeAndType* element = Element(c)) {
    ShapeHandle rows;
    SF_RETURN_IF_ERROR(c->Subshape(value, 1, &rows));
    SF_RETURN_IF_ERROR(c->Merge(element->shape, rows, &rows));
  }
  return ScalarShape(c);
}

absl::Status TensorArrayConcatShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  c->set_output(0, c->UnknownShape());
  c->set_output(1, c->Vector(kUnknownDim));
  return absl::OkStatus();
}

absl::Status TensorArraySplitShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 2, 1));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 3, 0));
  return ScalarShape(c);
}

absl::Status TensorArraySizeShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckHandle(c));
  return ScalarShape(c);
}

absl::Status CloseHandleShape(InferenceContext* c) { return CheckHandle(c); }

absl::Status StackShape(InferenceContext* c) {
  c->set_output(0, c->Vector(2));
  return absl::OkStatus();
}

absl::Status StackPushShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
