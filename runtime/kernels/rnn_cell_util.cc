#include "runtime/kernels/rnn_cell_util.h"

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {

std::vector<float> ToFloatVector(const Tensor& t) {
  const int64_t n = t.NumElements();
  std::vector<float> out(n);
  if (t.dtype() == DT_HALF) {
    const half* p = t.base<half>();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
  } else {
    const float* p = t.base<float>();
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  }
  return out;
}

void FromFloatVector(const std::vector<float>& values, Tensor* t) {
  const int64_t n = t->NumElements();
  if (t->dtype() == DT_HALF) {
    half* p = t->base<half>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<half>(values[i]);
  } else {
    float* p = t->base<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = values[i];
  }
}

void ConcatMatMul(const float* a, int64_t ka, const float* b, int64_t kb,
                  const float* w, const float* bias, int64_t rows, int64_t n,
                  float* out) {
  const int64_t k = ka + kb;
  std::vector<float> ab(rows * k);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < ka; ++j) ab[r * k + j] = a[r * ka + j];
    for (int64_t j = 0; j < kb; ++j) ab[r * k + ka + j] = b[r * kb + j];
  }
  Gemm(DenseGemmArgs<float>(ab.data(), k, GemmOp::kNoTrans, w, n,
                            GemmOp::kNoTrans, out, rows, n, k));
  if (bias == nullptr) return;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) out[r * n + j] += bias[j];
  }
}

void MatMulTransposed(const float* g, const float* w, int64_t rows, int64_t n,
                      int64_t k, float* out) {
  Gemm(DenseGemmArgs<float>(g, n, GemmOp::kNoTrans, w, n, GemmOp::kTrans, out,
                            rows, k, n));
}

void AddTransposedProduct(const float* a, const float* g, int64_t rows,
                          int64_t k, int64_t n, float* out) {
  std::vector<float> product(k * n);
  Gemm(DenseGemmArgs<float>(a, k, GemmOp::kTrans, g, n, GemmOp::kNoTrans,
                            product.data(), k, n, rows));
  for (int64_t e = 0; e < k * n; ++e) out[e] += product[e];
}

absl::Status RequireMatrix(const OpKernel& op, const Tensor& t, int64_t rows,
                           int64_t cols, const char* what) {
  if (t.dims() == 2 && t.dim_size(0) == rows && t.dim_size(1) == cols) {
    return absl::OkStatus();
  }
  return NodeInvalidArgument(op, what, " must be [", rows, ",", cols,
                             "] but is ", t.shape().DebugString());
}

absl::Status RequireRank(const OpKernel& op, const Tensor& t, int rank,
                         const char* what) {
  if (t.dims() == rank) return absl::OkStatus();
  return NodeInvalidArgument(op, what, " must be ", rank, "D");
}

absl::Status RequireDim(const OpKernel& op, const Tensor& t, int d,
                        int64_t want, const char* what, const char* want_name) {
  if (t.dim_size(d) == want) return absl::OkStatus();
  return NodeInvalidArgument(op, what, " != ", want_name, ": ", t.dim_size(d),
                             " vs. ", want);
}

}  // namespace stepflow
