// CUDA kernels for the GPU OpKernels; see gpu_launchers.h.
#include <cuda_runtime.h>

#include "runtime/gpu/gpu_launchers.h"

namespace stepflow {
namespace gpu {
namespace {

constexpr int kThreads = 256;

int Blocks(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b > 65535 * 32) b = 65535 * 32;  // Grid-stride loops cover the rest.
  return static_cast<int>(b < 1 ? 1 : b);
}

__device__ __forceinline__ int64_t Index(Operand mode, int64_t i, int64_t row) {
  return mode == Operand::kFull ? i : (mode == Operand::kScalar ? 0 : i % row);
}

template <typename T>
__device__ __forceinline__ T Apply(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    default:
      return a / b;
  }
}

template <typename T>
__global__ void BroadcastBinaryKernel(BinaryOp op, const T* x, const T* y,
                                      T* out, int64_t n, BroadcastIndexing ix) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, xo = 0, yo = 0;
    for (int d = ix.rank - 1; d >= 0; --d) {
      const int64_t c = rest % ix.out_dims[d];
      rest /= ix.out_dims[d];
      xo += c * ix.x_strides[d];
      yo += c * ix.y_strides[d];
    }
    out[i] = Apply(op, x[xo], y[yo]);
  }
}

template <typename T>
__global__ void BinaryKernel(BinaryOp op, const T* x, Operand xm, const T* y,
                             Operand ym, T* out, int64_t n, int64_t row) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = Apply(op, x[Index(xm, i, row)], y[Index(ym, i, row)]);
  }
}

template <typename T>
__global__ void UnaryKernel(UnaryOp op, const T* x, T* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T a = x[i];
    out[i] = op == UnaryOp::kNeg      ? -a
             : op == UnaryOp::kSquare ? a * a
                                      : (a > T(0) ? a : T(0));
  }
}

template <typename T>
__global__ void ReluGradKernel(const T* g, const T* f, T* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = f[i] > T(0) ? g[i] : T(0);
  }
}

template <typename T>
__global__ void ReduceKernel(const T* in, T* out, int64_t outer, int64_t r,
                             int64_t inner, double scale) {
  const int64_t n = outer * inner;
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       j < n; j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = j / inner;
    const int64_t i = j % inner;
    const T* p = in + o * r * inner + i;
    double acc = 0;
    for (int64_t k = 0; k < r; ++k) acc += static_cast<double>(p[k * inner]);
    out[j] = static_cast<T>(acc * scale);
  }
}

// One thread per row: rows are batch entries, cols are classes (small).
template <typename T>
__global__ void SoftmaxKernel(const T* logits, T* out, int64_t rows,
                              int64_t cols) {
  for (int64_t rr = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       rr < rows; rr += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* l = logits + rr * cols;
    T* o = out + rr * cols;
    T mx = l[0];
    for (int64_t c = 1; c < cols; ++c) mx = l[c] > mx ? l[c] : mx;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += exp(static_cast<double>(l[c] - mx));
    for (int64_t c = 0; c < cols; ++c) {
      o[c] = static_cast<T>(exp(static_cast<double>(l[c] - mx)) / sum);
    }
  }
}

template <typename T>
__global__ void XentKernel(const T* logits, const T* labels, T* loss,
                           T* backprop, int64_t rows, int64_t cols) {
  for (int64_t rr = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       rr < rows; rr += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* l = logits + rr * cols;
    const T* y = labels + rr * cols;
    T* bp = backprop + rr * cols;
    T mx = l[0];
    for (int64_t c = 1; c < cols; ++c) mx = l[c] > mx ? l[c] : mx;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += exp(static_cast<double>(l[c] - mx));
    const double log_sum = log(sum);
    double acc = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double shifted = static_cast<double>(l[c] - mx);
      acc -= static_cast<double>(y[c]) * (shifted - log_sum);
      bp[c] = static_cast<T>(exp(shifted) / sum - static_cast<double>(y[c]));
    }
    loss[rr] = static_cast<T>(acc);
  }
}

template <typename T>
__global__ void ApplyGdKernel(T* var, const T* alpha, const T* delta,
                              int64_t n) {
  const T a = alpha[0];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    var[i] -= a * delta[i];
  }
}

template <typename Src, typename Dst>
__global__ void CastKernel(const Src* in, Dst* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = static_cast<Dst>(in[i]);
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchBroadcastBinary(cudaStream_t stream, BinaryOp op, const T* x,
                                  const T* y, T* out, int64_t n,
                                  const BroadcastIndexing& indexing) {
  if (n <= 0) return cudaSuccess;
  BroadcastBinaryKernel<T>
      <<<Blocks(n), kThreads, 0, stream>>>(op, x, y, out, n, indexing);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchBinary(cudaStream_t stream, BinaryOp op, const T* x,
                         Operand x_mode, const T* y, Operand y_mode, T* out,
                         int64_t n, int64_t row) {
  if (n <= 0) return cudaSuccess;
  BinaryKernel<T><<<Blocks(n), kThreads, 0, stream>>>(
      op, x, x_mode, y, y_mode, out, n, row < 1 ? 1 : row);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchUnary(cudaStream_t stream, UnaryOp op, const T* x, T* out,
                        int64_t n) {
  if (n <= 0) return cudaSuccess;
  UnaryKernel<T><<<Blocks(n), kThreads, 0, stream>>>(op, x, out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchReluGrad(cudaStream_t stream, const T* gradients,
                           const T* features, T* out, int64_t n) {
  if (n <= 0) return cudaSuccess;
  ReluGradKernel<T>
      <<<Blocks(n), kThreads, 0, stream>>>(gradients, features, out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchReduce(cudaStream_t stream, const T* in, T* out,
                         int64_t outer, int64_t r, int64_t inner,
                         double scale) {
  const int64_t n = outer * inner;
  if (n <= 0) return cudaSuccess;
  ReduceKernel<T>
      <<<Blocks(n), kThreads, 0, stream>>>(in, out, outer, r, inner, scale);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchSoftmax(cudaStream_t stream, const T* logits, T* out,
                          int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  SoftmaxKernel<T>
      <<<Blocks(rows), kThreads, 0, stream>>>(logits, out, rows, cols);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchSoftmaxXent(cudaStream_t stream, const T* logits,
                              const T* labels, T* loss, T* backprop,
                              int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  XentKernel<T><<<Blocks(rows), kThreads, 0, stream>>>(logits, labels, loss,
                                                       backprop, rows, cols);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchApplyGradientDescent(cudaStream_t stream, T* var,
                                       const T* alpha, const T* delta,
                                       int64_t n) {
  if (n <= 0) return cudaSuccess;
  ApplyGdKernel<T><<<Blocks(n), kThreads, 0, stream>>>(var, alpha, delta, n);
  return cudaGetLastError();
}

template <typename Src, typename Dst>
cudaError_t LaunchCast(cudaStream_t stream, const Src* in, Dst* out,
                       int64_t n) {
  if (n <= 0) return cudaSuccess;
  CastKernel<Src, Dst><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

#define STEPFLOW_INSTANTIATE(T)                                                \
  template cudaError_t LaunchBroadcastBinary<T>(                               \
      cudaStream_t, BinaryOp, const T*, const T*, T*, int64_t,                 \
      const BroadcastIndexing&);                                               \
  template cudaError_t LaunchBinary<T>(cudaStream_t, BinaryOp, const T*,       \
                                       Operand, const T*, Operand, T*,         \
                                       int64_t, int64_t);                      \
  template cudaError_t LaunchUnary<T>(cudaStream_t, UnaryOp, const T*, T*,     \
                                      int64_t);                                \
  template cudaError_t LaunchReluGrad<T>(cudaStream_t, const T*, const T*, T*, \
                                         int64_t);                             \
  template cudaError_t LaunchReduce<T>(cudaStream_t, const T*, T*, int64_t,    \
                                       int64_t, int64_t, double);              \
  template cudaError_t LaunchSoftmax<T>(cudaStream_t, const T*, T*, int64_t,   \
                                        int64_t);                              \
  template cudaError_t LaunchSoftmaxXent<T>(cudaStream_t, const T*, const T*,  \
                                            T*, T*, int64_t, int64_t);         \
  template cudaError_t LaunchApplyGradientDescent<T>(                          \
      cudaStream_t, T*, const T*, const T*, int64_t);

STEPFLOW_INSTANTIATE(float)
STEPFLOW_INSTANTIATE(double)
#undef STEPFLOW_INSTANTIATE

template cudaError_t LaunchCast<float, double>(cudaStream_t, const float*,
                                               double*, int64_t);
template cudaError_t LaunchCast<double, float>(cudaStream_t, const double*,
                                               float*, int64_t);
template cudaError_t LaunchCast<float, float>(cudaStream_t, const float*,
                                              float*, int64_t);
template cudaError_t LaunchCast<double, double>(cudaStream_t, const double*,
                                                double*, int64_t);

}  // namespace gpu
}  // namespace stepflow
