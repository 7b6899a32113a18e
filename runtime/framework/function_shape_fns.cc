#include "runtime/framework/function_shape_fns.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status ArgShape(InferenceContext* c) {
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("T", &dtype));
  if (dtype == DT_RESOURCE) {
    const AttrValue* dtypes = c->GetAttr("_handle_dtypes");
    const AttrValue* shapes = c->GetAttr("_handle_shapes");
    if (dtypes == nullptr || shapes == nullptr) {
      c->set_output(0, c->UnknownShape());
      return absl::OkStatus();
    }
    if (dtypes->list().type_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid \"_handle_dtypes\" attribute value for _Arg node: ",
          shapes->DebugString()));
    }
    if (shapes->list().shape_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid \"_handle_shapes\" attribute value for _Arg node: ",
          shapes->DebugString()));
    }
    ShapeHandle s;
    SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(shapes->list().shape(0), &s));
    // TensorFlow gives the handle itself the variable's shape too.
    c->set_output(0, s);
    c->set_output_handle_shapes_and_types(
        0, {ShapeAndType{s, static_cast<DataType>(dtypes->list().type(0))}});
    return absl::OkStatus();
  }
  const AttrValue* shapes = c->GetAttr("_output_shapes");
  if (shapes == nullptr || !shapes->has_list()) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  if (shapes->list().shape_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid \"_output_shapes\" attribute value for _Arg node: ",
        shapes->DebugString()));
  }
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(shapes->list().shape(0), &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
