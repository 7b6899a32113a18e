// Linear algebra on batches of matrices (the last two dimensions; leading
// dimensions are the batch): MatrixInverse, Cholesky, MatrixSolve,
// MatrixTriangularSolve, Qr, Svd, MatrixDeterminant, LogMatrixDeterminant;
// and Einsum. Signatures match TensorFlow's OpDefs.
#include "runtime/framework/linalg_shape_fns.h"
#include "runtime/framework/op.h"

namespace stepflow {
namespace {

constexpr char kLinalgTypes[] =
    "T: {double, float, half, complex64, complex128}";

}  // namespace

REGISTER_OP("MatrixInverse")
    .Input("input: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(shape_inference::BatchUnchangedSquareShape);

REGISTER_OP("Cholesky")
    .Input("input: T")
    .Output("output: T")
    .Attr(kLinalgTypes)
    .SetShapeFn(shape_inference::BatchUnchangedSquareShape);

REGISTER_OP("MatrixSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(shape_inference::MatrixSolveShape);

REGISTER_OP("MatrixTriangularSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("lower: bool = true")
    .Attr("adjoint: bool = false")
    .Attr("T: {bfloat16, double, float, half, complex64, complex128}")
    .SetShapeFn(shape_inference::MatrixTriangularSolveShape);

REGISTER_OP("Qr")
    .Input("input: T")
    .Output("q: T")
    .Output("r: T")
    .Attr("full_matrices: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(shape_inference::QrShape);

REGISTER_OP("Svd")
    .Input("input: T")
    .Output("s: T")
    .Output("u: T")
    .Output("v: T")
    .Attr("compute_uv: bool = true")
    .Attr("full_matrices: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(shape_inference::SvdShape);

REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(shape_inference::MatrixDeterminantShape);

REGISTER_OP("LogMatrixDeterminant")
    .Input("input: T")
    .Output("sign: T")
    .Output("log_abs_determinant: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(shape_inference::LogMatrixDeterminantShape);

REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(shape_inference::EinsumShape);

}  // namespace stepflow
