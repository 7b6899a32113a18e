#include "runtime/kernels/linalg_util.h"

namespace stepflow {
namespace linalg {

absl::Status GetMatrixBatch(const OpKernel& kernel, const Tensor& t, int index,
                            bool square, MatrixBatch* out) {
  const int rank = t.dims();
  if (rank < 2) {
    return NodeInvalidArgument(kernel, "Input tensor ", index,
                               " must have rank >= 2, got ", rank);
  }
  out->rows = t.dim_size(rank - 2);
  out->cols = t.dim_size(rank - 1);
  if (square && out->rows != out->cols) {
    return NodeInvalidArgument(kernel, "Input matrix must be square.");
  }
  out->batch_shape = TensorShape();
  out->batch = 1;
  for (int d = 0; d < rank - 2; ++d) {
    out->batch_shape.AddDim(t.dim_size(d));
    out->batch *= t.dim_size(d);
  }
  return absl::OkStatus();
}

TensorShape BatchMatrixShape(const TensorShape& batch_shape, int64_t rows,
                             int64_t cols) {
  TensorShape s = batch_shape;
  s.AddDim(rows);
  s.AddDim(cols);
  return s;
}

}  // namespace linalg
}  // namespace stepflow
