// Element-wise unary math ops (Abs, Sign, Floor, Ceil, Round, Rint, Sqrt,
// Rsqrt, Exp, Expm1, Log, Log1p, Tanh, Sigmoid, Reciprocal, Inv, the
// trigonometric and hyperbolic functions and their inverses, Erf, Erfc,
// Lgamma, Digamma, IsFinite/IsNan/IsInf) and the gradient helpers
// TensorFlow's gradient code emits for them (SqrtGrad, RsqrtGrad, TanhGrad,
// SigmoidGrad, ReciprocalGrad, InvGrad). Signatures match TensorFlow's
// OpDefs.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"

namespace stepflow {
namespace {

// TensorFlow's UNARY(): real and complex, signed integers.
constexpr char kUnaryTypes[] =
    "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
    "complex64, complex128}";
// UNARY_COMPLEX(): floating and complex only.
constexpr char kUnaryComplexTypes[] =
    "T: {bfloat16, half, float, double, complex64, complex128}";
constexpr char kFloatTypes[] = "T: {bfloat16, half, float, double}";

}  // namespace

#define SF_UNARY_OP(NAME, TYPES)                                         \
  REGISTER_OP(NAME).Input("x: T").Output("y: T").Attr(TYPES).SetShapeFn( \
      shape_inference::UnchangedShape)
// UNARY_GRADIENT_COMPLEX(): z = dy * f'(x), written in terms of y = f(x).
#define SF_UNARY_GRAD_OP(NAME)  \
  REGISTER_OP(NAME)             \
      .Input("y: T")            \
      .Input("dy: T")           \
      .Output("z: T")           \
      .Attr(kUnaryComplexTypes) \
      .SetShapeFn(shape_inference::MergeBothInputsShapeFn)

SF_UNARY_OP("Abs",
            "T: {bfloat16, half, float, double, int8, int16, int32, int64}");
SF_UNARY_OP("Sign", kUnaryTypes);
SF_UNARY_OP("Floor", kFloatTypes);
SF_UNARY_OP("Ceil", kFloatTypes);
SF_UNARY_OP("Round", kUnaryTypes);
SF_UNARY_OP("Sqrt", kUnaryComplexTypes);
SF_UNARY_OP("Rsqrt", kUnaryComplexTypes);
SF_UNARY_OP("Exp", kUnaryComplexTypes);
SF_UNARY_OP("Log", kUnaryComplexTypes);
SF_UNARY_OP("Log1p", kUnaryComplexTypes);
SF_UNARY_OP("Tanh", kUnaryComplexTypes);
SF_UNARY_OP("Sigmoid", kUnaryComplexTypes);
SF_UNARY_OP("Reciprocal", kUnaryTypes);
SF_UNARY_OP("Inv", kUnaryTypes);

SF_UNARY_OP("Rint", kFloatTypes);
SF_UNARY_OP("Expm1", kUnaryComplexTypes);
SF_UNARY_OP("Sin", kUnaryComplexTypes);
SF_UNARY_OP("Cos", kUnaryComplexTypes);
SF_UNARY_OP("Tan", kUnaryComplexTypes);
SF_UNARY_OP("Asin", kUnaryComplexTypes);
SF_UNARY_OP("Acos", kUnaryComplexTypes);
SF_UNARY_OP("Atan", kUnaryComplexTypes);
SF_UNARY_OP("Sinh", kUnaryComplexTypes);
SF_UNARY_OP("Cosh", kUnaryComplexTypes);
SF_UNARY_OP("Asinh", kUnaryComplexTypes);
SF_UNARY_OP("Acosh", kUnaryComplexTypes);
SF_UNARY_OP("Atanh", kUnaryComplexTypes);
SF_UNARY_OP("Erf", kFloatTypes);
SF_UNARY_OP("Erfc", kFloatTypes);
SF_UNARY_OP("Lgamma", kFloatTypes);
SF_UNARY_OP("Digamma", kFloatTypes);

REGISTER_OP("IsFinite")
    .Input("x: T")
    .Output("y: bool")
    .Attr(kFloatTypes)
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("IsNan")
    .Input("x: T")
    .Output("y: bool")
    .Attr(kFloatTypes)
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("IsInf")
    .Input("x: T")
    .Output("y: bool")
    .Attr(kFloatTypes)
    .SetShapeFn(shape_inference::UnchangedShape);

SF_UNARY_GRAD_OP("SqrtGrad");
SF_UNARY_GRAD_OP("RsqrtGrad");
SF_UNARY_GRAD_OP("TanhGrad");
SF_UNARY_GRAD_OP("SigmoidGrad");
SF_UNARY_GRAD_OP("ReciprocalGrad");
SF_UNARY_GRAD_OP("InvGrad");

#undef SF_UNARY_OP
#undef SF_UNARY_GRAD_OP

}  // namespace stepflow
