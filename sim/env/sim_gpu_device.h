// The simulator's GPU: a device of type "GPU" ("/device:GPU:<n>") that
// runs the CPU kernels' math on host memory and charges virtual time for
// it, so CPU/GPU placement and partitioning (the Send/Recv pairs between
// CPU and GPU partitions) are exercised on every simulated seed without
// hardware.
//
// Kernels: linking //sim:sim_gpu_device registers exactly the real GPU
// KernelDefs (runtime/gpu/gpu_kernel_defs.h) for device type "GPU", so
// the placer makes the same choices as with CUDA. Each registered kernel
// wraps the op's CPU kernel; the wrapper is asynchronous and finishes
// SimGpuKernelLatencyNanos after the CPU kernel does (ScheduleAfter on the
// Env's scheduler, i.e. virtual time). Never link this together with
// //runtime/gpu:gpu_runtime (both register "GPU" kernels).
//
// Tracing: a SimGpuDevice is a TracedCpuDevice with GPU attributes, so its
// kernels appear in the trace as SIM_KERNEL_START/DONE with device "GPU:n".
//
// Ownership/threads: as TracedCpuDevice (one simulator thread).
#ifndef STEPFLOW_SIM_SIM_GPU_DEVICE_H_
#define STEPFLOW_SIM_SIM_GPU_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"
#include "runtime/framework/op_kernel.h"
#include "sim/env/event_loop.h"
#include "sim/trace/traced_device.h"

namespace stepflow {

// Nominal memory limit reported for a simulated GPU.
inline constexpr int64_t kSimGpuMemoryLimit = int64_t{16} << 30;

class SimGpuDevice : public TracedCpuDevice {
 public:
  using TracedCpuDevice::TracedCpuDevice;
};

// Virtual time a GPU kernel takes: a launch cost plus its input bytes at
// device-memory bandwidth; MatMul adds its flops at a fixed rate; _Send and
// _Recv of device-memory dtypes pay a PCIe-like copy instead (the bytes on
// the _Send side), of host-memory dtypes nothing. Call before the kernel
// runs (inputs only).
int64_t SimGpuKernelLatencyNanos(const OpKernel& kernel,
                                 const OpKernelContext& context);

// A DirectSession on traced devices: config.device_count["CPU"] CPUs
// (default 1) then config.device_count["GPU"] simulated GPUs (default 1),
// incarnations drawn from options.env->random in that order. InvalidArgument
// for a missing env/loop, fewer than 1 CPU or a negative GPU count.
absl::Status NewSimGpuDirectSession(const SessionOptions& options,
                                    SimEventLoop* loop, const std::string& task,
                                    std::unique_ptr<Session>* session);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SIM_GPU_DEVICE_H_
