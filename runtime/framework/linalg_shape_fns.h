// Shape functions of the linear-algebra ops: batched square-matrix
// factorisations and solves, determinants, QR/SVD, Einsum and the
// MatrixDiag/MatrixDiagPart/MatrixSetDiag families (TensorFlow's
// linalg_ops.cc and array_ops.cc functions of the same ops). Each follows
// ShapeInferenceFn's contract (op.h): the output shapes and the
// InvalidArgument refusals TensorFlow gives for the same inputs.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_LINALG_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_LINALG_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// Cholesky, MatrixInverse: [..., n, n] in and out.
absl::Status BatchUnchangedSquareShape(InferenceContext* c);
// MatrixDeterminant: [..., n, n] -> [...].
absl::Status MatrixDeterminantShape(InferenceContext* c);
// LogMatrixDeterminant: sign and log|det|, both [...].
absl::Status LogMatrixDeterminantShape(InferenceContext* c);
// MatrixSolve: [..., m, m] and [..., m, k] -> [..., m, k].
absl::Status MatrixSolveShape(InferenceContext* c);
// MatrixTriangularSolve: the batch shapes broadcast.
absl::Status MatrixTriangularSolveShape(InferenceContext* c);
absl::Status QrShape(InferenceContext* c);
absl::Status SvdShape(InferenceContext* c);
absl::Status EinsumShape(InferenceContext* c);

absl::Status MatrixDiagShape(InferenceContext* c);
absl::Status MatrixDiagPartShape(InferenceContext* c);
absl::Status MatrixSetDiagShape(InferenceContext* c);
// The V2 and V3 forms (V3 adds only the "align" attr).
absl::Status MatrixDiagV2Shape(InferenceContext* c);
absl::Status MatrixDiagPartV2Shape(InferenceContext* c);
absl::Status MatrixSetDiagV2Shape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_LINALG_SHAPE_FNS_H_
