// MatrixSolve(matrix, rhs; adjoint): X with matrix * X = rhs (adjoint(matrix)
// * X = rhs when `adjoint`) for each pair of a square M x M matrix and an
// M x K right-hand side, by LU with partial pivoting (Eigen's PartialPivLU,
// as TensorFlow). The batch dimensions must be equal (no broadcasting).
// Errors, InvalidArgument naming the node: ranks below 2, different batch
// dimensions, a non-square matrix, row counts that differ, and a zero (or
// NaN) pivot ("Input matrix is not invertible.").
#include "Eigen/LU"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

template <typename T>
class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& r = ctx->input(1);
    linalg::MatrixBatch ma, mr;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, a, 0, false, &ma));
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, r, 1, false, &mr));
    OP_REQUIRES(
        ctx, ma.batch_shape == mr.batch_shape,
        NodeInvalidArgument(ctx,
                            "All input tensors must have the same outer "
                            "dimensions."));
    OP_REQUIRES(ctx, ma.rows == ma.cols,
                NodeInvalidArgument(ctx, "Input matrix must be square."));
    OP_REQUIRES(
        ctx, ma.rows == mr.rows,
        NodeInvalidArgument(ctx, "Input matrix and rhs are incompatible."));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, r.shape(), &out));
    if (ma.rows == 0 || mr.cols == 0) return;
    for (int64_t b = 0; b < ma.batch; ++b) {
      linalg::Matrix<T> m = linalg::LoadMatrix<T, T>(a, b, ma.rows, ma.cols);
      if (adjoint_) m = m.adjoint().eval();
      Eigen::PartialPivLU<linalg::Matrix<T>> lu(m);
      const auto min_abs_pivot = lu.matrixLU().diagonal().cwiseAbs().minCoeff();
      OP_REQUIRES(ctx, min_abs_pivot > 0,
                  NodeInvalidArgument(ctx, "Input matrix is not invertible."));
      const linalg::Matrix<T> rhs =
          linalg::LoadMatrix<T, T>(r, b, mr.rows, mr.cols);
      linalg::StoreMatrix<T>(lu.solve(rhs), out, b);
    }
  }

 private:
  bool adjoint_ = false;
};

#define SF_REGISTER_SOLVE(T)                                         \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("MatrixSolve").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MatrixSolveOp<T>);
SF_REGISTER_SOLVE(float)
SF_REGISTER_SOLVE(double)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_SOLVE)
#undef SF_REGISTER_SOLVE

}  // namespace
}  // namespace stepflow
