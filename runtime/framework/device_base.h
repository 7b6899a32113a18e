// DeviceBase: what a kernel may know about the device it runs on. The full
// Device (runtime/common/device.h) adds execution hooks.
//
// Ownership: a device owns its ResourceMgr; the Env is borrowed.
// GetAllocator's allocator is owned by the device (or is the process's
// cpu_allocator()) and lives as long as the device.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_DEVICE_BASE_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_DEVICE_BASE_H_

#include <string>

#include "proto/device_attributes.pb.h"
#include "runtime/env/env.h"
#include "runtime/framework/allocator.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/resource_mgr.h"

namespace stepflow {

// Device type names.
inline constexpr char DEVICE_CPU[] = "CPU";
inline constexpr char DEVICE_GPU[] = "GPU";

class DeviceBase {
 public:
  explicit DeviceBase(Env* env) : env_(env) {}
  virtual ~DeviceBase() = default;
  DeviceBase(const DeviceBase&) = delete;
  DeviceBase& operator=(const DeviceBase&) = delete;

  Env* env() const { return env_; }

  virtual const DeviceAttributes& attributes() const = 0;
  const std::string& name() const { return attributes().name(); }
  const std::string& device_type() const { return attributes().device_type(); }
  uint64_t incarnation() const { return attributes().incarnation(); }

  virtual ResourceMgr* resource_manager() = 0;

  // Where the tensors this device's kernels make come from (TensorFlow's
  // GetAllocator(AllocatorAttributes)); a budgeted allocator refuses what
  // would exceed the device's or the process's memory limit. Default: the
  // process's unbudgeted cpu_allocator(). Thread-safe.
  virtual Allocator* GetAllocator() { return cpu_allocator(); }

 private:
  Env* const env_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_DEVICE_BASE_H_
