// MatrixInverse(input; adjoint): the inverse of each square matrix (of its
// adjoint when `adjoint`), by LU decomposition with partial pivoting
// (Eigen's PartialPivLU, as TensorFlow). A zero (or NaN) pivot is
// InvalidArgument "Input is not invertible." naming the node; LU cannot
// prove invertibility beyond that, so nearly singular inputs give large
// values. half is computed in float.
#include "Eigen/LU"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  using C = linalg::ComputeType<T>;

  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    linalg::MatrixBatch mb;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, in, 0, true, &mb));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (mb.rows == 0) return;
    for (int64_t b = 0; b < mb.batch; ++b) {
      linalg::Matrix<C> m = linalg::LoadMatrix<C, T>(in, b, mb.rows, mb.cols);
      if (adjoint_) m = m.adjoint().eval();
      Eigen::PartialPivLU<linalg::Matrix<C>> lu(m);
      const auto min_abs_pivot = lu.matrixLU().diagonal().cwiseAbs().minCoeff();
      OP_REQUIRES(ctx, min_abs_pivot > 0,
                  NodeInvalidArgument(ctx, "Input is not invertible."));
      linalg::StoreMatrix<T>(lu.inverse(), out, b);
    }
  }

 private:
  bool adjoint_ = false;
};

#define SF_REGISTER_INVERSE(T)                                         \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("MatrixInverse").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MatrixInverseOp<T>);
SF_REGISTER_INVERSE(float)
SF_REGISTER_INVERSE(double)
SF_REGISTER_INVERSE(half)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_INVERSE)
#undef SF_REGISTER_INVERSE

}  // namespace
}  // namespace stepflow
