#include "runtime/framework/list_shape_fns.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// The list input 0 refers to, when its handle data describes one list.
const ShapeAndType* ListData(InferenceContext* c) {
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data == nullptr || data->size() != 1) return nullptr;
  return &(*data)[0];
}

// InvalidArgument when input 0 carries handle data of several values.
absl::Status CheckNotSeveral(InferenceContext* c, const char* message) {
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data != nullptr && data->size() > 1) {
    return absl::InvalidArgumentError(message);
  }
  return absl::OkStatus();
}

// The `element_shape` input `index` (a scalar reads as unknown).
absl::Status ElementShapeInput(InferenceContext* c, int index,
                               ShapeHandle* out) {
  return c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(index, out);
}

// A list of `element_shape` elements of the op's element_dtype.
absl::Status SetListOutput(InferenceContext* c, ShapeHandle element_shape) {
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("element_dtype", &dtype));
  c->set_output(0, c->Scalar());
  c->set_output_handle_shapes_and_types(0,
                                        {ShapeAndType{element_shape, dtype}});
  return absl::OkStatus();
}

// The element shape of a list being read (PopBack, Stack), checking the
// list's dtype; unknown when the list is not described.
absl::Status ReadElementShape(InferenceContext* c, const char* expected_word,
                              ShapeHandle* out) {
  *out = c->UnknownShape();
  const ShapeAndType* list = ListData(c);
  if (list == nullptr) return absl::OkStatus();
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("element_dtype", &dtype));
  if (list->dtype != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to read from list with wrong element dtype. List has type ",
        DataTypeString(list->dtype), expected_word, DataTypeString(dtype)));
  }
  *out = list->shape;
  return absl::OkStatus();
}

}  // namespace

absl::Status TensorListReserveShape(InferenceContext* c) {
  ShapeHandle element_shape;
  SF_RETURN_IF_ERROR(ElementShapeInput(c, 0, &element_shape));
  return SetListOutput(c, element_shape);
}

absl::Status TensorListFromTensorShape(InferenceContext* c) {
  ShapeHandle rows;
  SF_RETURN_IF_ERROR(c->Subshape(c->input(0), 1, &rows));
  ShapeHandle element_shape;
  SF_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element_shape));
  // Checked against the tensor's rows; the list keeps the declared shape.
  SF_RETURN_IF_ERROR(c->Merge(rows, element_shape, &rows));
  return SetListOutput(c, element_shape);
}

absl::Status TensorListPushBackShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("element_dtype", &dtype));
  SF_RETURN_IF_ERROR(
      CheckNotSeveral(c, "Trying to push to list with wrong variant data."));
  ShapeHandle element_shape = c->UnknownShape();
  if (const ShapeAndType* list = ListData(c)) {
    if (list->dtype != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to push to list with wrong element dtype. List has type ",
          DataTypeString(list->dtype), " but trying to push element with type ",
          DataTypeString(dtype)));
    }
    element_shape = list->shape;
  }
  return SetListOutput(c, element_shape);
}

absl::Status TensorListPopBackShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckNotSeveral(
      c, "Trying to read from list with invalid variant data."));
  ShapeHandle element_shape;
  SF_RETURN_IF_ERROR(ReadElementShape(
      c, " but trying to push element with type ", &element_shape));
  if (ListData(c) != nullptr) {
    c->set_output_handle_shapes_and_types(0,
                                          *c->input_handle_shapes_and_types(0));
  }
  c->set_output(0, c->Scalar());
  c->set_output(1, element_shape);
  return absl::OkStatus();
}

absl::Status TensorListSetItemShape(InferenceContext* c) {
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("element_dtype", &dtype));
  c->set_output(0, c->Scalar());
  const ShapeAndType* list = ListData(c);
  if (list == nullptr) {
    c->set_output_handle_shapes_and_types(
        0, {ShapeAndType{c->UnknownShape(), dtype}});
    return absl::OkStatus();
  }
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->Merge(c->input(2), list->shape, &unused));
  c->set_output_handle_shapes_and_types(0,
                                        *c->input_handle_shapes_and_types(0));
  return absl::OkStatus();
}

absl::Status TensorListGetItemShape(InferenceContext* c) {
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("element_dtype", &dtype));
  ShapeHandle element_shape = c->UnknownShape();
  if (const ShapeAndType* list = ListData(c)) {
    element_shape = list->shape;
    if (list->dtype != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected list with element dtype ", DataTypeString(dtype),
          " but got list with element dtype ", DataTypeString(list->dtype)));
    }
  }
  ShapeHandle declared;
  SF_RETURN_IF_ERROR(ElementShapeInput(c, 2, &declared));
  SF_RETURN_IF_ERROR(c->Merge(element_shape, declared, &element_shape));
  c->set_output(0, element_shape);
  return absl::OkStatus();
}

absl::Status TensorListStackShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(
      CheckNotSeveral(c, "Trying to read from list with wrong variant data."));
  ShapeHandle element_shape;
  SF_RETURN_IF_ERROR(
      ReadElementShape(c, " but expected type ", &element_shape));
  ShapeHandle declared;
  SF_RETURN_IF_ERROR(ElementShapeInput(c, 1, &declared));
  SF_RETURN_IF_ERROR(c->Merge(element_shape, declared, &element_shape));
  int64_t num_elements = -1;
  SF_RETURN_IF_ERROR(c->GetAttr("num_elements", &num_elements));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(
      c->Concatenate(c->Vector(num_elements), element_shape, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status TensorListElementShapeShape(InferenceContext* c) {
  // One entry per dimension of the element shape, when its rank is known.
  const ShapeAndType* list = ListData(c);
  if (list == nullptr || !c->RankKnown(list->shape)) {
    c->set_output(0, c->UnknownShape());
  } else {
    c->set_output(0, c->Vector(c->Rank(list->shape)));
  }
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
