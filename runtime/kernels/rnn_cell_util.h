// Helpers shared by the recurrent cell kernels (LSTMBlockCell, GRUBlockCell
// and their gradients): float working copies of inputs of either cell
// dtype (half is widened; all arithmetic runs in float), the fused
// "concatenate two row blocks and multiply" product over Gemm, and the
// shape checks the cells make.
//
// Thread-safety: stateless functions. Errors: InvalidArgument naming the
// node (shape checks only); the products assume checked shapes.
#ifndef STEPFLOW_RUNTIME_KERNELS_RNN_CELL_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_RNN_CELL_UTIL_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// The elements of a float or half tensor as floats (row-major).
std::vector<float> ToFloatVector(const Tensor& t);

// A float view of a float or half tensor: a float tensor is read in place
// (it must outlive the view), a half one through a widened copy.
class FloatInput {
 public:
  explicit FloatInput(const Tensor& t)
      : copy_(t.dtype() == DT_FLOAT ? std::vector<float>() : ToFloatVector(t)),
        data_(t.dtype() == DT_FLOAT ? t.base<float>() : copy_.data()) {}
  FloatInput(const FloatInput&) = delete;
  FloatInput& operator=(const FloatInput&) = delete;
  const float* data() const { return data_; }

 private:
  std::vector<float> copy_;
  const float* data_;
};

// Writes `values` (t's element count of them) into t, narrowing to half
// when t is half.
void FromFloatVector(const std::vector<float>& values, Tensor* t);

// out[rows, n] = [a | b] * w (+ bias when non-null), where a is
// [rows, ka], b is [rows, kb] and w is [(ka + kb), n]; all row-major.
void ConcatMatMul(const float* a, int64_t ka, const float* b, int64_t kb,
                  const float* w, const float* bias, int64_t rows, int64_t n,
                  float* out);

// out[rows, k] = g[rows, n] * w^T, for w stored [k, n].
void MatMulTransposed(const float* g, const float* w, int64_t rows, int64_t n,
                      int64_t k, float* out);

// out[k, n] += a^T * g, for a [rows, k] and g [rows, n].
void AddTransposedProduct(const float* a, const float* g, int64_t rows,
                          int64_t k, int64_t n, float* out);

// InvalidArgument naming the node unless `t` is [rows, cols]
// ("<what> must be [rows,cols] but is [..]").
absl::Status RequireMatrix(const OpKernel& op, const Tensor& t, int64_t rows,
                           int64_t cols, const char* what);

// InvalidArgument naming the node unless `t` has rank `rank`
// ("<what> must be <rank>D").
absl::Status RequireRank(const OpKernel& op, const Tensor& t, int rank,
                         const char* what);

// InvalidArgument naming the node unless dimension `d` of `t` is `want`
// ("<what> != <want_name>: <got> vs. <want>").
absl::Status RequireDim(const OpKernel& op, const Tensor& t, int d,
                        int64_t want, const char* what, const char* want_name);

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RNN_CELL_UTIL_H_
