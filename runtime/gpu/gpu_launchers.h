// Launchers for the CUDA kernels behind the GPU OpKernels (gpu_kernels.cu).
// Each enqueues one kernel on `stream` and returns the launch error (never
// waits). Pointers are device memory unless stated; T is float or double.
// Shapes were validated by the caller; counts may be zero (no launch).
#ifndef STEPFLOW_RUNTIME_GPU_GPU_LAUNCHERS_H_
#define STEPFLOW_RUNTIME_GPU_GPU_LAUNCHERS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace stepflow {
namespace gpu {

enum class BinaryOp { kAdd, kSub, kMul, kDiv };
enum class UnaryOp { kNeg, kSquare, kRelu };

// How an operand of a broadcasting binary op is indexed for output i.
enum class Operand {
  kFull,    // x[i]: same shape as the output.
  kScalar,  // x[0].
  kRow,     // x[i % row]: a vector along the output's last dimension.
};

template <typename T>
cudaError_t LaunchBinary(cudaStream_t stream, BinaryOp op, const T* x,
                         Operand x_mode, const T* y, Operand y_mode, T* out,
                         int64_t n, int64_t row);

// General NumPy broadcasting for up to kMaxBroadcastRank output dims:
// out[i] = x[sum_d c_d * x_strides[d]] op y[sum_d c_d * y_strides[d]] where
// c is i's coordinate in out_dims (row-major); a broadcast dim has stride 0.
constexpr int kMaxBroadcastRank = 8;
struct BroadcastIndexing {
  int rank = 0;
  int64_t out_dims[kMaxBroadcastRank] = {};
  int64_t x_strides[kMaxBroadcastRank] = {};
  int64_t y_strides[kMaxBroadcastRank] = {};
};

template <typename T>
cudaError_t LaunchBroadcastBinary(cudaStream_t stream, BinaryOp op, const T* x,
                                  const T* y, T* out, int64_t n,
                                  const BroadcastIndexing& indexing);

template <typename T>
cudaError_t LaunchUnary(cudaStream_t stream, UnaryOp op, const T* x, T* out,
                        int64_t n);

// out = features > 0 ? gradients : 0.
template <typename T>
cudaError_t LaunchReluGrad(cudaStream_t stream, const T* gradients,
                           const T* features, T* out, int64_t n);

// in viewed as [outer, r, inner]; out[o, i] = scale * sum_k in[o, k, i]
// (accumulated in double).
template <typename T>
cudaError_t LaunchReduce(cudaStream_t stream, const T* in, T* out,
                         int64_t outer, int64_t r, int64_t inner, double scale);

// Row-wise softmax of a [rows, cols] matrix.
template <typename T>
cudaError_t LaunchSoftmax(cudaStream_t stream, const T* logits, T* out,
                          int64_t rows, int64_t cols);

// loss[r] = -sum_c labels * log_softmax(logits); backprop = softmax - labels.
template <typename T>
cudaError_t LaunchSoftmaxXent(cudaStream_t stream, const T* logits,
                              const T* labels, T* loss, T* backprop,
                              int64_t rows, int64_t cols);

// var -= alpha[0] * delta.
template <typename T>
cudaError_t LaunchApplyGradientDescent(cudaStream_t stream, T* var,
                                       const T* alpha, const T* delta,
                                       int64_t n);

// out = static_cast<Dst>(in).
template <typename Src, typename Dst>
cudaError_t LaunchCast(cudaStream_t stream, const Src* in, Dst* out, int64_t n);

}  // namespace gpu
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GPU_GPU_LAUNCHERS_H_
