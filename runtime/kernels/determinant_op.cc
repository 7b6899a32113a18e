// MatrixDeterminant(input) and LogMatrixDeterminant(input) -> (sign,
// log_abs_determinant) for each square matrix, through one LU
// decomposition with partial pivoting (Eigen's PartialPivLU), as
// TensorFlow computes both: log|det| is the sum of the logs of |U_ii|, the
// sign the permutation's sign times the product of U_ii / |U_ii|, and the
// determinant sign * exp(log|det|). A singular matrix (or a non-finite
// log|det|) gives sign 0 and log|det| -inf (+inf when it overflowed), so a
// determinant of 0; the 0 x 0 matrix has determinant 1. Outputs drop the
// two matrix dimensions.
#include <cmath>
#include <limits>

#include "Eigen/LU"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

// sign and log|det| of m (square, at least 1 x 1).
template <typename T>
void SignAndLogDet(const linalg::Matrix<T>& m, T* sign,
                   typename Eigen::NumTraits<T>::Real* log_abs_det) {
  using Real = typename Eigen::NumTraits<T>::Real;
  *sign = T(1);
  *log_abs_det = Real(0);
  if (m.rows() > 0) {
    Eigen::PartialPivLU<linalg::Matrix<T>> lu(m);
    const auto diag = lu.matrixLU().diagonal().array().eval();
    const auto abs_diag = diag.cwiseAbs().eval();
    *sign = T(lu.permutationP().determinant());
    *log_abs_det = abs_diag.log().sum();
    *sign *= (diag / abs_diag.template cast<T>()).prod();
  }
  if (!std::isfinite(*log_abs_det)) {
    *sign = T(0);
    *log_abs_det = *log_abs_det > 0 ? std::numeric_limits<Real>::infinity()
                                    : -std::numeric_limits<Real>::infinity();
  }
}

// kLog selects LogMatrixDeterminant.
template <typename T, bool kLog>
class DeterminantOp : public OpKernel {
 public:
  explicit DeterminantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    linalg::MatrixBatch mb;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, in, 0, true, &mb));
    Tensor* first = nullptr;
    Tensor* second = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, mb.batch_shape, &first));
    if constexpr (kLog) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, mb.batch_shape, &second));
    }
    using Real = typename Eigen::NumTraits<T>::Real;
    for (int64_t b = 0; b < mb.batch; ++b) {
      T sign;
      Real log_abs_det;
      SignAndLogDet<T>(linalg::LoadMatrix<T, T>(in, b, mb.rows, mb.cols), &sign,
                       &log_abs_det);
      if constexpr (kLog) {
        first->base<T>()[b] = sign;
        second->base<T>()[b] = T(log_abs_det);
      } else {
        first->base<T>()[b] = sign * T(std::exp(log_abs_det));
      }
    }
  }
};

#define SF_REGISTER_DETERMINANT(T)                                            \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("MatrixDeterminant").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      DeterminantOp<T, false>);                                               \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("LogMatrixDeterminant").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DeterminantOp<T, true>);
SF_REGISTER_DETERMINANT(float)
SF_REGISTER_DETERMINANT(double)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_DETERMINANT)
#undef SF_REGISTER_DETERMINANT

}  // namespace
}  // namespace stepflow
