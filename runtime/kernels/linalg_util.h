// Shared pieces of the batched linear-algebra kernels (MatrixInverse,
// Cholesky, MatrixSolve, MatrixTriangularSolve, Qr, Svd, the
// determinants): inputs are batches of matrices in their last two
// dimensions, computed one matrix at a time with Eigen on row-major maps.
//
// Errors (InvalidArgument naming the node): rank below 2, non-square where
// an op needs square matrices. Kernels do not run concurrently on one
// context; helpers are stateless.
#ifndef STEPFLOW_RUNTIME_KERNELS_LINALG_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_LINALG_UTIL_H_

#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace linalg {

// The type Eigen computes in: float for half, T otherwise.
template <typename T>
using ComputeType = std::conditional_t<std::is_same<T, half>::value, float, T>;

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;

// A batch of matrices: `batch` matrices of rows x cols, and the shape of
// the leading (batch) dimensions.
struct MatrixBatch {
  int64_t batch = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  TensorShape batch_shape;
};

// Reads t's batch layout. InvalidArgument (naming the node) when t has
// rank < 2 ("Input tensor <index> must have rank >= 2") or, with `square`,
// when its matrices are not square.
absl::Status GetMatrixBatch(const OpKernel& kernel, const Tensor& t, int index,
                            bool square, MatrixBatch* out);

// batch_shape + {rows, cols}.
TensorShape BatchMatrixShape(const TensorShape& batch_shape, int64_t rows,
                             int64_t cols);

// Matrix b of t (a batch of rows x cols) converted to C.
template <typename C, typename T>
Matrix<C> LoadMatrix(const Tensor& t, int64_t b, int64_t rows, int64_t cols) {
  ConstMatrixMap<T> m(t.base<T>() + b * rows * cols, rows, cols);
  return m.template cast<C>();
}

// Writes m (converted to T) as matrix b of t.
template <typename T, typename Derived>
void StoreMatrix(const Eigen::MatrixBase<Derived>& m, Tensor* t, int64_t b) {
  const int64_t rows = m.rows(), cols = m.cols();
  MatrixMap<T>(t->base<T>() + b * rows * cols, rows, cols) =
      m.template cast<T>();
}

}  // namespace linalg
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_LINALG_UTIL_H_
