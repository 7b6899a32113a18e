#include "runtime/distributed/device_allocator.h"

#include <vector>

#include "runtime/framework/cpu_allocator.h"

namespace stepflow {

Allocator* AllocatorForDevice(const DeviceMgr* device_mgr,
                              absl::string_view device) {
  if (device_mgr == nullptr) return cpu_allocator();
  Device* found = nullptr;
  if (device_mgr->LookupDevice(device, &found).ok()) {
    return found->GetAllocator();
  }
  std::vector<Device*> devices = device_mgr->ListDevices();
  return devices.empty() ? cpu_allocator() : devices[0]->GetAllocator();
}

}  // namespace stepflow
