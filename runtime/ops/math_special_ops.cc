// Special functions of two or three arguments (NumPy broadcasting for the
// binary ones): the regularized incomplete gamma functions Igamma/Igammac
// and IgammaGradA (d Igamma / d a), Hurwitz Zeta, Polygamma and the
// regularized incomplete beta function Betainc. Signatures match
// TensorFlow's OpDefs.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/elementwise_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"

namespace stepflow {

#define SF_SPECIAL_OP(NAME, A, B, TYPES) \
  REGISTER_OP(NAME)                      \
      .Input(A ": T")                    \
      .Input(B ": T")                    \
      .Output("z: T")                    \
      .Attr(TYPES)                       \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
SF_SPECIAL_OP("Igamma", "a", "x", "T: {bfloat16, half, float, double}");
SF_SPECIAL_OP("Igammac", "a", "x", "T: {bfloat16, half, float, double}");
SF_SPECIAL_OP("IgammaGradA", "a", "x", "T: {float, double}");
SF_SPECIAL_OP("Zeta", "x", "q", "T: {float, double}");
SF_SPECIAL_OP("Polygamma", "a", "x", "T: {float, double}");
#undef SF_SPECIAL_OP

// The derivative of a Gamma(alpha, 1) sample with respect to alpha.
REGISTER_OP("RandomGammaGrad")
    .Input("alpha: T")
    .Input("sample: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

// a, b and x are scalars or share one shape.
REGISTER_OP("Betainc")
    .Input("a: T")
    .Input("b: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_inference::BetaincShape);

}  // namespace stepflow
