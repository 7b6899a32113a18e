// GpuDevice: one CUDA device as a stepflow Device ("/device:GPU:<n>"), and
// the factory that discovers a task's GPUs.
//
// Streams: one compute stream (every kernel and cuBLAS call), one
// host-to-device and one device-to-host copy stream. Ordering between them
// uses CUDA events: a copy first waits for the compute stream (so pooled
// memory reused by the copy is no longer read or written by earlier
// kernels), and the compute stream waits for an H2D copy before any kernel
// that reads its result.
//
// Kernels: a synchronous GPU kernel enqueues its work on the compute stream
// and returns; its outputs are valid in stream order, which is all that
// later GPU kernels need. Values leave the device only through GPU _Send
// (CopyDeviceToHost): its completion is reported with cudaLaunchHostFunc,
// whose host callback only hands a closure to the Env's Scheduler, so every
// continuation re-enters the runtime through the injected Scheduler. Nothing
// here creates threads or blocks waiting for the GPU (the destructor, which
// drains the streams before freeing memory, is the one exception).
//
// Memory: device tensors (GpuTypeInDeviceMemory dtypes) come from a
// PoolAllocator over cudaMalloc with a limit of 90% of the memory free when
// the device is created; other dtypes are ordinary host tensors. Copies
// stage through a second pool of pinned host memory (cudaHostAlloc), so
// cudaMemcpyAsync never blocks the calling thread (pageable copies would
// wait for the stream); a staging chunk goes back to its pool from the
// copy's completion callback. Both pools are shared with the tensors that
// use them, so a tensor outliving the device still frees correctly.
//
// Errors: CUDA/cuBLAS failures become Internal statuses naming the call and
// the device; allocation failures ResourceExhausted with the pool's stats.
//
// Thread-safety: as Device; cuBLAS calls are serialised by blas_mu().
#ifndef STEPFLOW_RUNTIME_GPU_GPU_DEVICE_H_
#define STEPFLOW_RUNTIME_GPU_GPU_DEVICE_H_

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/common/device.h"
#include "runtime/common/session_options.h"
#include "runtime/gpu/pool_allocator.h"

namespace stepflow {

// Internal "<what> failed on <device>: <cuda error string>" unless `err`
// is cudaSuccess.
absl::Status CudaStatus(cudaError_t err, const std::string& what,
                        const std::string& device);

class GpuDevice : public Device {
 public:
  // Opens CUDA device `ordinal`: streams, cuBLAS handle, pool.
  static absl::Status Create(Env* env, const DeviceAttributes& attributes,
                             int ordinal, std::unique_ptr<GpuDevice>* out);
  ~GpuDevice() override;

  int ordinal() const { return ordinal_; }
  cudaStream_t compute_stream() const { return compute_; }

  // Makes this device current on the calling thread, then runs the kernel;
  // a launch error left by it becomes the kernel's status.
  void Compute(OpKernel* op_kernel, OpKernelContext* context) override;
  void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                    AsyncOpKernel::DoneCallback done) override;

  // A tensor for a kernel output or temporary: device memory from the pool
  // for device dtypes (contents undefined), a zeroed host tensor otherwise.
  absl::Status AllocateTensor(DataType dtype, const TensorShape& shape,
                              Tensor* out);

  // Enqueues a copy of host tensor `host` into a new device tensor `*out`
  // (H2D stream, after the compute stream's pending work; the compute
  // stream waits for the copy). `host` is staged into pinned memory before
  // this returns, so the caller may drop or reuse it at once. Host-memory
  // dtypes: `*out` = `host`.
  absl::Status CopyHostToDevice(const Tensor& host, Tensor* out);

  // Enqueues a device-to-device copy on the compute stream.
  absl::Status CopyDeviceToDevice(const Tensor& src, Tensor* dst);

  // Copies device tensor `device` into host tensor `*host` (same dtype and
  // size) on the D2H stream, after everything already on the compute
  // stream. `done` runs through the Env's Scheduler once the bytes are on
  // the host, with any CUDA error. `device` and `host` stay referenced
  // until then.
  void CopyDeviceToHost(const Tensor& device, Tensor host,
                        std::function<void(absl::Status, Tensor)> done);

  // Runs `fn` through the Scheduler after all work now on the compute
  // stream has finished.
  void ThenExecute(std::function<void(absl::Status)> fn);

  cublasHandle_t blas() const { return blas_; }
  absl::Mutex* blas_mu() const { return &blas_mu_; }

  PoolAllocatorStats allocator_stats() const { return pool_->stats(); }
  // The device pool's statistics, for step stats (Device contract).
  bool GetAllocatorMemoryUsed(AllocatorMemoryUsed* used) const override;
  PoolAllocatorStats host_allocator_stats() const {
    return host_pool_->stats();
  }

 private:
  GpuDevice(Env* env, const DeviceAttributes& attributes, int ordinal);
  absl::Status Init();
  // Makes `waiter` wait for everything now enqueued on `signaller`.
  absl::Status StreamWait(cudaStream_t waiter, cudaStream_t signaller);
  // Enqueues `fn` on `stream`; it runs through the Scheduler.
  void EnqueueCallback(cudaStream_t stream, std::function<void()> fn);

  const int ordinal_;
  cudaStream_t compute_ = nullptr;
  cudaStream_t h2d_ = nullptr;
  cudaStream_t d2h_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  mutable absl::Mutex blas_mu_;
  std::shared_ptr<PoolAllocator> pool_;       // Device memory.
  std::shared_ptr<PoolAllocator> host_pool_;  // Pinned staging memory.
};

// Appends one GpuDevice per visible CUDA device (at most `max_count`; -1 for
// all) named "<name_prefix>/device:GPU:<i>". No CUDA driver or no device:
// adds nothing and returns OK. Incarnations come from env->random.
absl::Status AddGpuDevices(Env* env, int max_count,
                           const std::string& name_prefix,
                           std::vector<std::unique_ptr<Device>>* out);

// The number of usable CUDA devices (0 when the driver is missing or too
// old; the error is swallowed).
int VisibleGpuCount();

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GPU_GPU_DEVICE_H_
