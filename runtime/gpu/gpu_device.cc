#include "runtime/gpu/gpu_device.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/common/device_factory.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/gpu/gpu_kernel_defs.h"

namespace stepflow {

absl::Status CudaStatus(cudaError_t err, const std::string& what,
                        const std::string& device) {
  if (err == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed on ", device, ": ",
                                          cudaGetErrorName(err), " (",
                                          cudaGetErrorString(err), ")"));
}

namespace {

class CudaSubAllocator : public SubAllocator {
 public:
  explicit CudaSubAllocator(int ordinal) : ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    cudaSetDevice(ordinal_);
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // Clear the sticky-free error for later checks.
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t) override {
    cudaSetDevice(ordinal_);
    cudaFree(ptr);
  }

 private:
  const int ordinal_;
};

class CudaHostSubAllocator : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t) override { cudaFreeHost(ptr); }
};

// Heap-allocated state for a host callback: the closure and where to run it.
struct HostCallback {
  Scheduler* scheduler;
  std::function<void()> fn;
};

// Runs on a CUDA driver thread: may not call CUDA; only hands the closure
// to the Scheduler.
void CUDART_CB RunHostCallback(void* arg) {
  std::unique_ptr<HostCallback> cb(static_cast<HostCallback*>(arg));
  cb->scheduler->Schedule(std::move(cb->fn));
}

}  // namespace

GpuDevice::GpuDevice(Env* env, const DeviceAttributes& attributes, int ordinal)
    : Device(env, attributes), ordinal_(ordinal) {}

absl::Status GpuDevice::Create(Env* env, const DeviceAttributes& attributes,
                               int ordinal, std::unique_ptr<GpuDevice>* out) {
  std::unique_ptr<GpuDevice> d(new GpuDevice(env, attributes, ordinal));
  absl::Status s = d->Init();
  if (!s.ok()) return s;
  *out = std::move(d);
  return absl::OkStatus();
}

absl::Status GpuDevice::Init() {
  const std::string& dev = name();
  absl::Status s = CudaStatus(cudaSetDevice(ordinal_), "cudaSetDevice", dev);
  for (cudaStream_t* st : {&compute_, &h2d_, &d2h_}) {
    if (s.ok()) {
      s = CudaStatus(cudaStreamCreateWithFlags(st, cudaStreamNonBlocking),
                     "cudaStreamCreate", dev);
    }
  }
  if (!s.ok()) return s;
  if (cublasCreate(&blas_) != CUBLAS_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat("cublasCreate failed on ", dev));
  }
  if (cublasSetStream(blas_, compute_) != CUBLAS_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat("cublasSetStream failed on ", dev));
  }
  size_t free_bytes = 0, total_bytes = 0;
  s = CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo",
                 dev);
  if (!s.ok()) return s;
  pool_ = std::make_shared<PoolAllocator>(
      absl::StrCat("GPU_", ordinal_, "_pool"),
      std::make_unique<CudaSubAllocator>(ordinal_),
      static_cast<int64_t>(free_bytes / 10 * 9));
  host_pool_ = std::make_shared<PoolAllocator>(
      absl::StrCat("GPU_", ordinal_, "_pinned_host_pool"),
      std::make_unique<CudaHostSubAllocator>(), int64_t{0});
  return absl::OkStatus();
}

GpuDevice::~GpuDevice() {
  cudaSetDevice(ordinal_);
  // Teardown drains the hardware queues before the pool frees memory that
  // queued kernels may still use (cudaFree would synchronise anyway).
  for (cudaStream_t st : {compute_, h2d_, d2h_}) {
    if (st != nullptr) cudaStreamSynchronize(st);
  }
  pool_.reset();  // Freed once no tensor uses it any more.
  host_pool_.reset();
  if (blas_ != nullptr) cublasDestroy(blas_);
  for (cudaStream_t st : {compute_, h2d_, d2h_}) {
    if (st != nullptr) cudaStreamDestroy(st);
  }
}

void GpuDevice::Compute(OpKernel* op_kernel, OpKernelContext* context) {
  cudaError_t err = cudaSetDevice(ordinal_);
  if (err != cudaSuccess) {
    context->SetStatus(CudaStatus(err, "cudaSetDevice", name()));
    return;
  }
  op_kernel->Compute(context);
  err = cudaGetLastError();
  if (err != cudaSuccess) {
    context->SetStatus(CudaStatus(
        err,
        absl::StrCat("Kernel launch for ", FormatNodeName(op_kernel->name())),
        name()));
  }
}

void GpuDevice::ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                             AsyncOpKernel::DoneCallback done) {
  cudaError_t err = cudaSetDevice(ordinal_);
  if (err != cudaSuccess) {
    context->SetStatus(CudaStatus(err, "cudaSetDevice", name()));
    done();
    return;
  }
  op_kernel->ComputeAsync(context, std::move(done));
}

absl::Status GpuDevice::AllocateTensor(DataType dtype, const TensorShape& shape,
                                       Tensor* out) {
  if (!GpuTypeInDeviceMemory(dtype)) {
    *out = Tensor(dtype, shape);
    return absl::OkStatus();
  }
  const int64_t n = shape.num_elements();
  const size_t bytes = static_cast<size_t>(n) * DataTypeSize(dtype);
  std::shared_ptr<PoolAllocator> pool = pool_;
  void* p = pool->Allocate(bytes);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "OOM when allocating tensor with shape ", shape.DebugString(),
        " and type ", DataTypeString(dtype), " on ", name(), " by allocator ",
        pool->name(), " (", pool->stats().DebugString(), ")"));
  }
  *out = Tensor(shape, new TensorBuffer(dtype, n, p, [pool](void* ptr) {
                  pool->Deallocate(ptr);
                }));
  return absl::OkStatus();
}

absl::Status GpuDevice::StreamWait(cudaStream_t waiter,
                                   cudaStream_t signaller) {
  cudaEvent_t ev;
  absl::Status s =
      CudaStatus(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming),
                 "cudaEventCreate", name());
  if (!s.ok()) return s;
  s = CudaStatus(cudaEventRecord(ev, signaller), "cudaEventRecord", name());
  if (s.ok()) {
    s = CudaStatus(cudaStreamWaitEvent(waiter, ev, 0), "cudaStreamWaitEvent",
                   name());
  }
  // Legal while the wait is pending: CUDA releases the event afterwards.
  cudaEventDestroy(ev);
  return s;
}

void GpuDevice::EnqueueCallback(cudaStream_t stream, std::function<void()> fn) {
  auto* cb = new HostCallback{env()->scheduler, std::move(fn)};
  cudaError_t err = cudaLaunchHostFunc(stream, RunHostCallback, cb);
  if (err != cudaSuccess) {
    // Could not enqueue (the context is broken): run it now through the
    // Scheduler; it reports the sticky error it finds.
    std::unique_ptr<HostCallback> owned(cb);
    env()->scheduler->Schedule(std::move(owned->fn));
  }
}

absl::Status GpuDevice::CopyHostToDevice(const Tensor& host, Tensor* out) {
  absl::Status s = AllocateTensor(host.dtype(), host.shape(), out);
  if (!s.ok() || !GpuTypeInDeviceMemory(host.dtype())) {
    if (s.ok()) *out = host;
    return s;
  }
  const size_t bytes = host.TotalBytes();
  if (bytes == 0) return absl::OkStatus();
  std::shared_ptr<PoolAllocator> staging_pool = host_pool_;
  void* staging = staging_pool->Allocate(bytes);
  if (staging == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "OOM allocating ", bytes, " bytes of pinned staging memory for ",
        name(), " (", staging_pool->stats().DebugString(), ")"));
  }
  std::memcpy(staging, host.raw_data(), bytes);
  s = StreamWait(h2d_, compute_);
  if (s.ok()) {
    s = CudaStatus(cudaMemcpyAsync(out->raw_data(), staging, bytes,
                                   cudaMemcpyHostToDevice, h2d_),
                   "cudaMemcpyAsync(H2D)", name());
  }
  if (!s.ok()) {
    staging_pool->Deallocate(staging);
    return s;
  }
  EnqueueCallback(
      h2d_, [staging_pool, staging]() { staging_pool->Deallocate(staging); });
  return StreamWait(compute_, h2d_);
}

absl::Status GpuDevice::CopyDeviceToDevice(const Tensor& src, Tensor* dst) {
  if (src.TotalBytes() != dst->TotalBytes()) {
    return absl::InternalError(absl::StrCat("device copy of ", src.TotalBytes(),
                                            " bytes into ", dst->TotalBytes()));
  }
  if (src.TotalBytes() == 0) return absl::OkStatus();
  return CudaStatus(
      cudaMemcpyAsync(dst->raw_data(), src.raw_data(), src.TotalBytes(),
                      cudaMemcpyDeviceToDevice, compute_),
      "cudaMemcpyAsync(D2D)", name());
}

void GpuDevice::CopyDeviceToHost(
    const Tensor& device, Tensor host,
    std::function<void(absl::Status, Tensor)> done) {
  absl::Status s;
  const size_t bytes = device.TotalBytes();
  if (bytes != host.TotalBytes()) {
    s = absl::InternalError(absl::StrCat("D2H copy of ", bytes, " bytes into ",
                                         host.TotalBytes(), " on ", name()));
  }
  if (s.ok() && bytes == 0) {
    env()->scheduler->Schedule(
        [host, done = std::move(done)]() { done(absl::OkStatus(), host); });
    return;
  }
  std::shared_ptr<PoolAllocator> staging_pool = host_pool_;
  void* staging = nullptr;
  if (s.ok()) {
    staging = staging_pool->Allocate(bytes);
    if (staging == nullptr) {
      s = absl::ResourceExhaustedError(
          absl::StrCat("OOM allocating ", bytes,
                       " bytes of pinned staging memory for ", name()));
    }
  }
  if (s.ok()) s = StreamWait(d2h_, compute_);
  if (s.ok()) {
    s = CudaStatus(cudaMemcpyAsync(staging, device.raw_data(), bytes,
                                   cudaMemcpyDeviceToHost, d2h_),
                   "cudaMemcpyAsync(D2H)", name());
  }
  if (!s.ok()) {
    if (staging != nullptr) staging_pool->Deallocate(staging);
    env()->scheduler->Schedule(
        [s, host, done = std::move(done)]() { done(s, host); });
    return;
  }
  const int ordinal = ordinal_;
  const std::string dev = name();
  EnqueueCallback(d2h_, [ordinal, dev, device, host, staging_pool, staging,
                         bytes, done = std::move(done)]() {
    // Asynchronous kernel faults surface here, at the first host sync point.
    cudaSetDevice(ordinal);
    absl::Status st = CudaStatus(cudaGetLastError(), "GPU work", dev);
    if (st.ok()) std::memcpy(host.raw_data(), staging, bytes);
    staging_pool->Deallocate(staging);
    done(st, host);
  });
}

void GpuDevice::ThenExecute(std::function<void(absl::Status)> fn) {
  const int ordinal = ordinal_;
  const std::string dev = name();
  EnqueueCallback(compute_, [ordinal, dev, fn = std::move(fn)]() {
    cudaSetDevice(ordinal);
    fn(CudaStatus(cudaGetLastError(), "GPU work", dev));
  });
}

int VisibleGpuCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // No driver / too old: treat as zero GPUs.
    return 0;
  }
  return count;
}

absl::Status AddGpuDevices(Env* env, int max_count,
                           const std::string& name_prefix,
                           std::vector<std::unique_ptr<Device>>* out) {
  if (env == nullptr || env->random == nullptr || env->scheduler == nullptr) {
    return absl::InvalidArgumentError(
        "AddGpuDevices needs an Env with a Random and a Scheduler");
  }
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(name_prefix, &parsed) ||
      !parsed.has_job || !parsed.has_replica || !parsed.has_task ||
      parsed.has_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Device name prefix must be a task name, got '", name_prefix, "'"));
  }
  int count = VisibleGpuCount();
  if (max_count >= 0 && max_count < count) count = max_count;
  const std::string task = DeviceNameUtils::TaskName(parsed);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop;
    absl::Status s =
        CudaStatus(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties",
                   absl::StrCat("GPU:", i));
    if (!s.ok()) return s;
    DeviceAttributes attrs = Device::BuildDeviceAttributes(
        Device::FullName(task, DEVICE_GPU, i), DEVICE_GPU,
        static_cast<int64_t>(prop.totalGlobalMem), env->random->NewNonZero64(),
        absl::StrCat("device: ", i, ", name: ", prop.name,
                     ", compute capability: ", prop.major, ".", prop.minor));
    std::unique_ptr<GpuDevice> dev;
    s = GpuDevice::Create(env, attrs, i, &dev);
    if (!s.ok()) return s;
    out->push_back(std::move(dev));
  }
  return absl::OkStatus();
}

namespace {

const bool kRegistered = RegisterDeviceFactory(
    DEVICE_GPU, [](const SessionOptions& options, const std::string& prefix,
                   std::vector<std::unique_ptr<Device>>* out) {
      int max_count = -1;
      auto it = options.config.device_count().find(DEVICE_GPU);
      if (it != options.config.device_count().end()) {
        if (it->second < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "device_count[\"GPU\"] must be >= 0, got ", it->second));
        }
        max_count = it->second;
      }
      return AddGpuDevices(options.env, max_count, prefix, out);
    });

}  // namespace
bool GpuDevice::GetAllocatorMemoryUsed(AllocatorMemoryUsed* used) const {
  const PoolAllocatorStats stats = pool_->stats();
  used->set_allocator_name(absl::StrCat(name(), " pool"));
  used->set_total_bytes(stats.bytes_reserved);
  used->set_peak_bytes(stats.peak_bytes_in_use);
  used->set_live_bytes(stats.bytes_in_use);
  used->set_allocator_bytes_in_use(stats.bytes_in_use);
  return true;
}

}  // namespace stepflow
