// Bitwise ops on integers: BitwiseAnd/Or/Xor, Invert, LeftShift,
// RightShift (NumPy broadcasting) and PopulationCount. Signatures match
// TensorFlow's OpDefs.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"

namespace stepflow {
namespace {

constexpr char kIntTypes[] =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";

}  // namespace

REGISTER_OP("Invert").Input("x: T").Output("y: T").Attr(kIntTypes).SetShapeFn(
    shape_inference::UnchangedShape);

REGISTER_OP("PopulationCount")
    .Input("x: T")
    .Output("y: uint8")
    .Attr(kIntTypes)
    .SetShapeFn(shape_inference::UnchangedShape);

#define SF_BITWISE_OP(NAME) \
  REGISTER_OP(NAME)         \
      .Input("x: T")        \
      .Input("y: T")        \
      .Output("z: T")       \
      .Attr(kIntTypes)      \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
SF_BITWISE_OP("BitwiseAnd").SetIsCommutative();
SF_BITWISE_OP("BitwiseOr").SetIsCommutative();
SF_BITWISE_OP("BitwiseXor").SetIsCommutative();
SF_BITWISE_OP("LeftShift");
SF_BITWISE_OP("RightShift");
#undef SF_BITWISE_OP

}  // namespace stepflow
