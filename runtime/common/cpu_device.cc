#include "runtime/common/cpu_device.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/device_name_utils.h"

namespace stepflow {

absl::Status AddCpuDevices(Env* env, int count, const std::string& name_prefix,
                           std::vector<std::unique_ptr<Device>>* out) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Number of CPU devices must be >= 0, got ", count));
  }
  if (env == nullptr || env->random == nullptr) {
    return absl::InvalidArgumentError(
        "AddCpuDevices needs an Env with a Random (for incarnations)");
  }
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(name_prefix, &parsed) ||
      !parsed.has_job || !parsed.has_replica || !parsed.has_task ||
      parsed.has_type || parsed.has_id) {
    return absl::InvalidArgumentError(
        absl::StrCat("Device name prefix must be a task name like "
                     "/job:localhost/replica:0/task:0, got '",
                     name_prefix, "'"));
  }
  const std::string task = DeviceNameUtils::TaskName(parsed);
  for (int i = 0; i < count; ++i) {
    DeviceAttributes attrs = Device::BuildDeviceAttributes(
        Device::FullName(task, DEVICE_CPU, i), DEVICE_CPU,
        kCpuDeviceMemoryLimit, env->random->NewNonZero64(),
        absl::StrCat("device: ", i, ", name: host CPU"));
    out->push_back(std::make_unique<CpuDevice>(env, attrs));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
