// DeviceFactory registry: how a session finds devices other than the host
// CPU (GPUs) without depending on the libraries that drive them.
//
// A device library (e.g. //runtime/gpu:gpu_runtime, alwayslink) registers a
// factory for its device type from a static initializer. Session creation
// calls AddRegisteredDevices, which runs every factory in device-type order
// (a sorted map, so the order never depends on link or hash order). A factory
// that finds no hardware adds nothing and returns OK; an error means the
// hardware exists but could not be set up, or the options are invalid.
//
// Thread-safety: registration and AddRegisteredDevices may run on any thread
// (guarded by a mutex); factories themselves must be thread-safe.
#ifndef STEPFLOW_RUNTIME_COMMON_DEVICE_FACTORY_H_
#define STEPFLOW_RUNTIME_COMMON_DEVICE_FACTORY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/common/device.h"
#include "runtime/common/session_options.h"

namespace stepflow {

// Appends this type's devices for a task named `name_prefix`
// ("/job:localhost/replica:0/task:0") to `*out`.
using DeviceFactoryFn = std::function<absl::Status(
    const SessionOptions& options, const std::string& name_prefix,
    std::vector<std::unique_ptr<Device>>* out)>;

// Registers `fn` for `device_type` (a later registration of the same type
// replaces the earlier one). Returns true so it can seed a static bool.
bool RegisterDeviceFactory(const std::string& device_type, DeviceFactoryFn fn);

// The device types with a registered factory, sorted.
std::vector<std::string> RegisteredDeviceTypes();

// Runs every registered factory in device-type order; stops at the first
// error, which names the device type.
absl::Status AddRegisteredDevices(const SessionOptions& options,
                                  const std::string& name_prefix,
                                  std::vector<std::unique_ptr<Device>>* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_DEVICE_FACTORY_H_
