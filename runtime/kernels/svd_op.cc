// Svd(input; compute_uv, full_matrices): input = U * diag(s) * V^H for each
// M x N matrix, with the singular values s (P = min(M, N), descending) by
// Eigen's BDCSVD, TensorFlow's algorithm, so the signs of U's and V's
// columns agree. U is M x P and V is N x P, or M x M and N x N with
// `full_matrices`. Without `compute_uv`, u and v are placeholder scalars
// (TensorFlow leaves their value unspecified; stepflow writes 0). Complex
// inputs give real singular values stored in T.
#include <algorithm>

#include "Eigen/SVD"
#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace {

template <typename T>
class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compute_uv", &compute_uv_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("full_matrices", &full_matrices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    linalg::MatrixBatch mb;
    OP_REQUIRES_OK(ctx, linalg::GetMatrixBatch(*this, in, 0, false, &mb));
    const int64_t p = std::min(mb.rows, mb.cols);
    TensorShape s_shape = mb.batch_shape;
    s_shape.AddDim(p);
    const int64_t u_cols = full_matrices_ ? mb.rows : p;
    const int64_t v_cols = full_matrices_ ? mb.cols : p;
    Tensor *s = nullptr, *u = nullptr, *v = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s_shape, &s));
    if (compute_uv_) {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(
                   1, linalg::BatchMatrixShape(mb.batch_shape, mb.rows, u_cols),
                   &u));
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(
                   2, linalg::BatchMatrixShape(mb.batch_shape, mb.cols, v_cols),
                   &v));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &u));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({}), &v));
    }
    using M = linalg::Matrix<T>;
    for (int64_t b = 0; b < mb.batch; ++b) {
      if (p == 0) {
        if (compute_uv_) {
          linalg::StoreMatrix<T>(M::Identity(mb.rows, u_cols), u, b);
          linalg::StoreMatrix<T>(M::Identity(mb.cols, v_cols), v, b);
        }
        continue;
      }
      const unsigned options =
          !compute_uv_     ? 0
          : full_matrices_ ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                           : (Eigen::ComputeThinU | Eigen::ComputeThinV);
      Eigen::BDCSVD<M> svd(linalg::LoadMatrix<T, T>(in, b, mb.rows, mb.cols),
                           options);
      T* sp = s->base<T>() + b * p;
      for (int64_t i = 0; i < p; ++i) sp[i] = T(svd.singularValues()(i));
      if (compute_uv_) {
        linalg::StoreMatrix<T>(svd.matrixU(), u, b);
        linalg::StoreMatrix<T>(svd.matrixV(), v, b);
      }
    }
  }

 private:
  bool compute_uv_ = true;
  bool full_matrices_ = false;
};

#define SF_REGISTER_SVD(T) \
  REGISTER_KERNEL_BUILDER( \
      Name("Svd").Device(DEVICE_CPU).TypeConstraint<T>("T"), SvdOp<T>);
SF_REGISTER_SVD(float)
SF_REGISTER_SVD(double)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_SVD)
#undef SF_REGISTER_SVD

}  // namespace
}  // namespace stepflow
