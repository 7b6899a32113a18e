// More element-wise binary ops (NumPy broadcasting): integer/floor division
// and modulo, SquaredDifference, the remaining comparisons, logical ops,
// Select/SelectV2, and batched matrix products. Signatures match
// TensorFlow's OpDefs.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"

namespace stepflow {
namespace {

// TensorFlow's BINARY_MORE() and BINARY_FEWER() type sets.
constexpr char kBinaryMoreTypes[] =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "uint32, uint64, int64, complex64, complex128}";
constexpr char kBinaryFewerTypes[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";
constexpr char kModTypes[] = "T: {int32, int64, bfloat16, half, float, double}";
constexpr char kFloorModTypes[] =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, "
    "half, float, double}";
constexpr char kBatchMatMulTypes[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";

}  // namespace

REGISTER_OP("FloorDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("TruncateDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("FloorMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kFloorModTypes)
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Mod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kModTypes)
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("TruncateMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kModTypes)
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("DivNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, float, bfloat16, double, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("MulNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

#define SF_XLOGY_OP(NAME)                                                \
  REGISTER_OP(NAME)                                                      \
      .Input("x: T")                                                     \
      .Input("y: T")                                                     \
      .Output("z: T")                                                    \
      .Attr("T: {half, bfloat16, float, double, complex64, complex128}") \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
SF_XLOGY_OP("Xlogy");
SF_XLOGY_OP("Xdivy");
SF_XLOGY_OP("Xlog1py");
#undef SF_XLOGY_OP

// min and max are scalars or t's shape.
REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("SquaredDifference")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryFewerTypes)
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("NotEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .SetIsCommutative()
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn(shape_inference::EqualShape);

REGISTER_OP("LessEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("GreaterEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::SelectShape);

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::SelectV2Shape);

// grad_x/grad_y only mark products that compute gradients (TensorFlow's
// autodiff sets them); they do not change the result.
REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(kBatchMatMulTypes)
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulShape);

REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulV2Shape);

}  // namespace stepflow
