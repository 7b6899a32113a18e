// Cholesky(input): the lower-triangular L with L * L^H = input for each
// Hermitian positive-definite matrix, read from its lower triangle only
// (Eigen's LLT, as TensorFlow). The strict upper triangle of the output is
// zero. A matrix that is not positive definite is not an error (as in
// TensorFlow 2.21's CPU kernel): its lower triangle comes out NaN.
#include <limits>

#include "Eigen/Cholesky"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

template <typename T>
class CholeskyOp : public OpKernel {
 public:
  explicit CholeskyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    linalg::MatrixBatch mb;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, in, 0, true, &mb));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (mb.rows == 0) return;
    using Real = typename Eigen::NumTraits<T>::Real;
    for (int64_t b = 0; b < mb.batch; ++b) {
      const linalg::Matrix<T> m =
          linalg::LoadMatrix<T, T>(in, b, mb.rows, mb.cols);
      Eigen::LLT<linalg::Matrix<T>, Eigen::Lower> llt(m);
      linalg::Matrix<T> l;
      if (llt.info() == Eigen::Success) {
        l = llt.matrixL();
      } else {
        l = linalg::Matrix<T>::Zero(mb.rows, mb.cols);
        l.template triangularView<Eigen::Lower>().setConstant(
            T(std::numeric_limits<Real>::quiet_NaN()));
      }
      linalg::StoreMatrix<T>(l, out, b);
    }
  }
};

#define SF_REGISTER_CHOLESKY(T)                                   \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("Cholesky").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      CholeskyOp<T>);
SF_REGISTER_CHOLESKY(float)
SF_REGISTER_CHOLESKY(double)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_CHOLESKY)
#undef SF_REGISTER_CHOLESKY

}  // namespace
}  // namespace stepflow
