// MatrixTriangularSolve(matrix, rhs; lower, adjoint): X with T * X = rhs
// (adjoint(T) * X = rhs when `adjoint`), where T is the lower (or upper)
// triangle of each square matrix; the other triangle is never read. Batch
// dimensions broadcast like NumPy. A zero on the diagonal is not an error:
// the substitution divides by it (IEEE inf/NaN), as in TensorFlow.
// Errors, InvalidArgument naming the node: ranks below 2, a non-square
// matrix, row counts that differ, batch dimensions that do not broadcast.
#include "runtime/kernels/bcast.h"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

template <typename T>
class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lower", &lower_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& r = ctx->input(1);
    linalg::MatrixBatch ma, mr;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, a, 0, false, &ma));
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, r, 1, false, &mr));
    OP_REQUIRES(ctx, ma.rows == ma.cols,
                NodeInvalidArgument(ctx, "Input matrix must be square."));
    OP_REQUIRES(
        ctx, ma.rows == mr.rows,
        NodeInvalidArgument(ctx, "Input matrix and rhs are incompatible."));
    BCast bcast(ma.batch_shape, mr.batch_shape);
    OP_REQUIRES(ctx, bcast.IsValid(),
                NodeInvalidArgument(ctx, "Incompatible batch dimensions: ",
                                    a.shape().DebugString(), " vs. ",
                                    r.shape().DebugString()));
    const TensorShape shape =
        linalg::BatchMatrixShape(bcast.output_shape(), mr.rows, mr.cols);
    OP_REQUIRES_OK(ctx,
                   CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    auto one = [&](int64_t ai, int64_t ri, int64_t oi) {
      const linalg::Matrix<T> m =
          linalg::LoadMatrix<T, T>(a, ai, ma.rows, ma.cols);
      const linalg::Matrix<T> rhs =
          linalg::LoadMatrix<T, T>(r, ri, mr.rows, mr.cols);
      linalg::Matrix<T> x;
      if (lower_) {
        const auto t = m.template triangularView<Eigen::Lower>();
        x = adjoint_ ? t.adjoint().solve(rhs).eval() : t.solve(rhs).eval();
      } else {
        const auto t = m.template triangularView<Eigen::Upper>();
        x = adjoint_ ? t.adjoint().solve(rhs).eval() : t.solve(rhs).eval();
      }
      linalg::StoreMatrix<T>(x, out, oi);
    };
    bcast.ForEachRow([&](int64_t ao, int64_t astep, int64_t ro, int64_t rstep,
                         int64_t oo, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        one(ao + i * astep, ro + i * rstep, oo + i);
      }
    });
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

#define SF_REGISTER_TRIANGULAR_SOLVE(T)                                        \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("MatrixTriangularSolve").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MatrixTriangularSolveOp<T>);
SF_REGISTER_TRIANGULAR_SOLVE(float)
SF_REGISTER_TRIANGULAR_SOLVE(double)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_TRIANGULAR_SOLVE)
#undef SF_REGISTER_TRIANGULAR_SOLVE

}  // namespace
}  // namespace stepflow
