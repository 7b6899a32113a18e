// Qr(input; full_matrices): input = Q * R for each M x N matrix, by
// Householder reflections (Eigen's HouseholderQR, as TensorFlow, so the
// signs of Q's columns and R's rows agree). With P = min(M, N): Q is M x P
// and R is P x N, or Q is M x M and R is M x N with `full_matrices`. R is
// upper triangular. half is computed in float.
#include <algorithm>

#include "Eigen/QR"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

template <typename T>
class QrOp : public OpKernel {
 public:
  using C = linalg::ComputeType<T>;

  explicit QrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("full_matrices", &full_matrices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    linalg::MatrixBatch mb;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, in, 0, false, &mb));
    const int64_t p = std::min(mb.rows, mb.cols);
    const int64_t q_cols = full_matrices_ ? mb.rows : p;
    Tensor *q = nullptr, *r = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, linalg::BatchMatrixShape(mb.batch_shape, mb.rows, q_cols), &q));
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            1, linalg::BatchMatrixShape(mb.batch_shape, q_cols, mb.cols), &r));
    if (mb.rows == 0 || q->NumElements() == 0) return;
    for (int64_t b = 0; b < mb.batch; ++b) {
      if (mb.cols == 0) {
        linalg::StoreMatrix<T>(linalg::Matrix<C>::Identity(mb.rows, q_cols), q,
                               b);
        continue;
      }
      Eigen::HouseholderQR<linalg::Matrix<C>> qr(
          linalg::LoadMatrix<C, T>(in, b, mb.rows, mb.cols));
      const linalg::Matrix<C> rm =
          qr.matrixQR().topRows(q_cols).template triangularView<Eigen::Upper>();
      linalg::StoreMatrix<T>(rm, r, b);
      const linalg::Matrix<C> qm =
          qr.householderQ() * linalg::Matrix<C>::Identity(mb.rows, q_cols);
      linalg::StoreMatrix<T>(qm, q, b);
    }
  }

 private:
  bool full_matrices_ = false;
};

#define SF_REGISTER_QR(T)  \
  REGISTER_KERNEL_BUILDER( \
      Name("Qr").Device(DEVICE_CPU).TypeConstraint<T>("T"), QrOp<T>);
SF_REGISTER_QR(float)
SF_REGISTER_QR(double)
SF_REGISTER_QR(half)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_QR)
#undef SF_REGISTER_QR

}  // namespace
}  // namespace stepflow
