// TracedCpuDevice: a CPU device that records every kernel it runs into the
// simulator's trace, and NewTracedDirectSession, which builds the real
// DirectSession on such devices.
//
// Records (through SimEventLoop::Trace, so stamped with virtual time and the
// running event's sequence number):
//   SIM_KERNEL_START {node, op, device, step}, digest = FNV over the
//     digests of the kernel's inputs (sim/tensor_digest.h);
//   SIM_KERNEL_DONE  {node, op, device, step, status}, for async kernels
//     when their `done` runs.
// `device` is the short form ("CPU:1").
//
// NewTracedDirectSession mirrors the local session factory: one device per
// config.device_count["CPU"] (default 1), named
// /job:localhost/replica:0/task:0/device:CPU:<i>, incarnations drawn from
// options.env->random in device order — so a traced session draws exactly
// what NewSession({target ""}) would.
//
// Ownership: `loop` is borrowed and must outlive the devices/session.
// Thread-safety: as SimEventLoop (one thread).
#ifndef STEPFLOW_SIM_TRACED_DEVICE_H_
#define STEPFLOW_SIM_TRACED_DEVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/common/device.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"
#include "sim/env/event_loop.h"

namespace stepflow {

class TracedCpuDevice : public Device {
 public:
  TracedCpuDevice(Env* env, const DeviceAttributes& attributes,
                  SimEventLoop* loop, std::string task);

  void Compute(OpKernel* op_kernel, OpKernelContext* context) override;
  void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                    AsyncOpKernel::DoneCallback done) override;

 private:
  void RecordStart(OpKernel* op_kernel, OpKernelContext* context);
  void RecordDone(OpKernel* op_kernel, OpKernelContext* context);

  SimEventLoop* const loop_;
  const std::string task_;
  const std::string short_name_;
};

// Appends `num_cpus` TracedCpuDevices of /job:localhost/replica:0/task:0
// (CPU:0..num_cpus-1, incarnations from options.env->random) to `devices`.
// The Env and loop must be valid (callers check).
void AddTracedCpuDevices(const SessionOptions& options, SimEventLoop* loop,
                         const std::string& task, int num_cpus,
                         std::vector<std::unique_ptr<Device>>* devices);

// `task` names the session in trace records. InvalidArgument for missing
// env/loop or a device count < 1.
absl::Status NewTracedDirectSession(const SessionOptions& options,
                                    SimEventLoop* loop, const std::string& task,
                                    std::unique_ptr<Session>* session);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_TRACED_DEVICE_H_
