// DeviceAllocator: the allocator a tensor arriving at a worker from outside
// (a client's feed, a value received from another task) is decoded with, so
// the device memory budgets bound everything a worker holds, not only what
// its kernels allocate.
//
// AllocatorForDevice(device_mgr, device) is `device`'s allocator when the
// device is one of `device_mgr`'s, else the allocator of its first device
// (by name), else cpu_allocator() (no devices, or a null `device_mgr`: no
// budget applies). Never null.
//
// Thread-safety: thread-safe (DeviceMgr is immutable).
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_DEVICE_ALLOCATOR_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_DEVICE_ALLOCATOR_H_

#include "absl/strings/string_view.h"
#include "runtime/common/device_mgr.h"
#include "runtime/framework/allocator.h"

namespace stepflow {

Allocator* AllocatorForDevice(const DeviceMgr* device_mgr,
                              absl::string_view device);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_DEVICE_ALLOCATOR_H_
