// CpuDevice: the host CPU as a Device, and the factory that creates a
// task's CPU devices.
//
// Every CPU device runs kernels inline on the calling (scheduler) thread;
// intra-op parallelism is a kernel detail behind the Env's Scheduler. With
// CpuDeviceOptions::intra_op_parallelism_threads set, the device's env()
// is a copy of the Env whose Scheduler reports that many threads
// (IntraOpScheduler), so its kernels cut their work into at most that many
// blocks.
// Incarnations come from env->random, so a seeded Random pins them.
//
// Memory: each CPU device allocates its kernels' tensors from its own
// CpuAllocator ("cpu"), charged to the device's MemoryBudget (the
// per-device limit, if any) and through it to the process's (borrowed,
// optional): a tensor over either is ResourceExhausted, never an abort.
//
// Thread-safety: as Device.
#ifndef STEPFLOW_RUNTIME_COMMON_CPU_DEVICE_H_
#define STEPFLOW_RUNTIME_COMMON_CPU_DEVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/common/device.h"
#include "runtime/env/env.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/memory_budget.h"

namespace stepflow {

// Nominal memory limit reported for each CPU device (ListDevices).
inline constexpr int64_t kCpuDeviceMemoryLimit = 256LL << 20;  // 256 MiB

// How a task's CPU devices get their memory.
struct CpuDeviceOptions {
  // The process's budget every device's allocations also count against
  // (borrowed; must outlive the devices and every tensor they allocated);
  // null: none.
  MemoryBudget* process_memory = nullptr;
  // Bytes each device may hold at once; <= 0: no per-device limit.
  int64_t per_device_memory_limit = 0;
  // Injected allocation failures for every device budget (borrowed; must
  // outlive the devices); null in production.
  AllocationFaults* allocation_faults = nullptr;
  // ConfigProto.intra_op_parallelism_threads: the most blocks a kernel
  // cuts its work into; 0 (or less): the Env Scheduler's NumThreads().
  int intra_op_parallelism_threads = 0;
};

class CpuDevice : public Device {
 public:
  // No memory limit of its own beyond `options`.
  CpuDevice(Env* env, const DeviceAttributes& attributes,
            const CpuDeviceOptions& options = CpuDeviceOptions());

  ~CpuDevice() override;

  Allocator* GetAllocator() override { return allocator_; }

 private:
  // The Env the kernels see when it differs from the given one.
  struct KernelEnv {
    Env env;
    std::unique_ptr<Scheduler> scheduler;
  };
  // Null when `options` leave `env` as it is.
  static std::unique_ptr<KernelEnv> MakeKernelEnv(
      Env* env, const CpuDeviceOptions& options);
  CpuDevice(Env* env, std::unique_ptr<KernelEnv> kernel_env,
            const DeviceAttributes& attributes,
            const CpuDeviceOptions& options);

  const std::unique_ptr<KernelEnv> kernel_env_;
  // Tensors may outlive the device (fetched outputs): the allocator and
  // the device budget it owns live until the last of them is freed.
  CpuAllocator* const allocator_;
};

// Appends `count` CPU devices named "<name_prefix>/device:CPU:<i>" to
// `*out`, each with a fresh non-zero incarnation drawn from env->random.
// `name_prefix` must be a fully specified task name
// ("/job:localhost/replica:0/task:0"). InvalidArgument for a negative
// count, a bad prefix, or an Env without a Random.
absl::Status AddCpuDevices(Env* env, int count, const std::string& name_prefix,
                           std::vector<std::unique_ptr<Device>>* out);
// The same with memory limits; each device reports its limit (else the
// nominal kCpuDeviceMemoryLimit) as its memory_limit attribute.
absl::Status AddCpuDevices(Env* env, int count, const std::string& name_prefix,
                           const CpuDeviceOptions& options,
                           std::vector<std::unique_ptr<Device>>* out);

// The memory_limit a CPU device with `options` reports.
int64_t CpuDeviceMemoryLimit(const CpuDeviceOptions& options);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_CPU_DEVICE_H_
