// Pooling ops and their gradients: MaxPool(V2), AvgPool, MaxPool3D,
// AvgPool3D, MaxPoolWithArgmax and the gradient ops TensorFlow's gradient
// code emits for them (MaxPoolGrad(V2), AvgPoolGrad, MaxPool3DGrad,
// AvgPool3DGrad, the second-order MaxPoolGradGrad family and the argmax
// forms). Signatures match TensorFlow's OpDefs, attr order included.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"
#include "runtime/framework/pooling_shape_fns.h"

namespace stepflow {
namespace {

constexpr char kMaxPoolTypes[] =
    "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
    "uint16, qint8} = DT_FLOAT";
// realnumbertype with a default (MaxPoolGrad, MaxPoolGradV2).
constexpr char kMaxPoolGradTypesDefault[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64} = DT_FLOAT";
constexpr char kFloatTypes[] = "T: {half, bfloat16, float, double}";
constexpr char kSpatialPadding[] = "padding: {'SAME', 'VALID'}";
constexpr char kFormat2D[] = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr char kFormat3D[] = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'";

}  // namespace

REGISTER_OP("MaxPool")
    .Attr(kMaxPoolTypes)
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")
    .SetShapeFn(shape_inference::MaxPoolShape);

REGISTER_OP("MaxPoolV2")
    .Attr(kMaxPoolTypes)
    .Attr(kSpatialPadding)
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .SetShapeFn(shape_inference::MaxPoolV2Shape);

REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kSpatialPadding)
    .Attr(kFormat2D)
    .Attr(kFloatTypes)
    .SetShapeFn(shape_inference::AvgPoolShape);

REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kSpatialPadding)
    .Attr(kFormat3D)
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(shape_inference::Pool3DShape);

REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kSpatialPadding)
    .Attr(kFormat3D)
    .Attr(kFloatTypes)
    .SetShapeFn(shape_inference::Pool3DShape);

REGISTER_OP("MaxPoolWithArgmax")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("Targmax: {int32, int64} = DT_INT64")
    .Attr(kSpatialPadding)
    .Attr("include_batch_in_index: bool = false")
    .Input("input: T")
    .Output("output: T")
    .Output("argmax: Targmax")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MaxPoolWithArgmaxShape);

REGISTER_OP("MaxPoolGrad")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kFormat2D)
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr(kMaxPoolGradTypesDefault)
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    });

REGISTER_OP("MaxPoolGradV2")
    .Attr(kSpatialPadding)
    .Attr(kFormat2D)
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .Attr(kMaxPoolGradTypesDefault)
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    });

REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kSpatialPadding)
    .Attr(kFormat2D)
    .Attr(kFloatTypes)
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::ShapeFromInputTensorRank4(c, 0);
    });

REGISTER_OP("MaxPool3DGrad")
    .Input("orig_input: TInput")
    .Input("orig_output: TInput")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kSpatialPadding)
    .Attr(kFormat3D)
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 5);
    });

REGISTER_OP("AvgPool3DGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kSpatialPadding)
    .Attr(kFormat3D)
    .Attr(kFloatTypes)
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::ShapeFromInputTensorRank5(c, 0);
    });

REGISTER_OP("MaxPoolGradGrad")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kSpatialPadding)
    .Attr(kFormat2D)
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MaxPoolGradGradShape);

REGISTER_OP("MaxPoolGradGradV2")
    .Attr(kSpatialPadding)
    .Attr(kFormat2D)
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MaxPoolGradGradV2Shape);

REGISTER_OP("MaxPool3DGradGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kSpatialPadding)
    .Attr(kFormat3D)
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MaxPool3DGradGradShape);

REGISTER_OP("MaxPoolGradWithArgmax")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kSpatialPadding)
    .Attr("include_batch_in_index: bool = false")
    .Attr("Targmax: {int32, int64}")
    .Input("input: T")
    .Input("grad: T")
    .Input("argmax: Targmax")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    });

REGISTER_OP("MaxPoolGradGradWithArgmax")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kSpatialPadding)
    .Attr("include_batch_in_index: bool = false")
    .Attr("Targmax: {int32, int64}")
    .Input("input: T")
    .Input("grad: T")
    .Input("argmax: Targmax")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    });

}  // namespace stepflow
