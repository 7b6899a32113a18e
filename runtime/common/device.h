// Device: a place where kernels run, as the executor sees it. Extends
// DeviceBase (what kernels see) with the hooks the executor calls to run a
// kernel, so a device type can wrap execution (streams, profiling) without
// the executor knowing.
//
// Ownership: a Device owns its ResourceMgr (variables and other per-device
// state live there, keyed by container); the Env is borrowed and must
// outlive the device. Devices are owned by a DeviceMgr.
//
// Thread-safety: Compute/ComputeAsync are called concurrently for different
// kernels and steps; attributes() is immutable after construction.
#ifndef STEPFLOW_RUNTIME_COMMON_DEVICE_H_
#define STEPFLOW_RUNTIME_COMMON_DEVICE_H_

#include <cstdint>
#include <string>

#include "proto/device_attributes.pb.h"
#include "proto/step_stats.pb.h"
#include "runtime/env/env.h"
#include "runtime/framework/device_base.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource_mgr.h"

namespace stepflow {

class Device : public DeviceBase {
 public:
  // `attributes.name()` should be a fully specified device name.
  Device(Env* env, const DeviceAttributes& attributes);
  ~Device() override;

  const DeviceAttributes& attributes() const override { return attributes_; }
  ResourceMgr* resource_manager() override { return &resource_manager_; }

  // The parsed form of name() (all components set for a well-formed name).
  const DeviceNameUtils::ParsedName& parsed_name() const {
    return parsed_name_;
  }

  // Runs a synchronous kernel. Default: op_kernel->Compute(context).
  virtual void Compute(OpKernel* op_kernel, OpKernelContext* context);
  // Starts an asynchronous kernel; `done` runs exactly once when it
  // finishes. Default: op_kernel->ComputeAsync(context, done).
  virtual void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                            AsyncOpKernel::DoneCallback done);

  // The device allocator's memory use, recorded into each traced kernel's
  // NodeExecStats.memory (RunOptions FULL_TRACE). False (the default): the
  // device has no allocator of its own (CPU memory is the process heap).
  virtual bool GetAllocatorMemoryUsed(AllocatorMemoryUsed* used) const {
    (void)used;
    return false;
  }

  // "<name> (<type>, incarnation 0x..., memory_limit N)".
  std::string DebugString() const;

  // Assembles the attributes of a device.
  static DeviceAttributes BuildDeviceAttributes(
      const std::string& name, const std::string& device_type,
      int64_t memory_limit, uint64_t incarnation,
      const std::string& physical_device_desc = "");

  // The canonical full name for (task prefix, type, id):
  // FullName("/job:localhost/replica:0/task:0", "CPU", 1) ==
  // "/job:localhost/replica:0/task:0/device:CPU:1".
  static std::string FullName(const std::string& task_prefix,
                              const std::string& device_type, int id);

 private:
  const DeviceAttributes attributes_;
  DeviceNameUtils::ParsedName parsed_name_;
  ResourceMgr resource_manager_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_DEVICE_H_
