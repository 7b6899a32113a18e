#include "runtime/common/cpu_device.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/common/intra_op_scheduler.h"
#include "runtime/framework/device_name_utils.h"

namespace stepflow {

namespace {

// A CpuAllocator that owns the device budget it charges.
class DeviceCpuAllocator : public CpuAllocator {
 public:
  explicit DeviceCpuAllocator(std::unique_ptr<MemoryBudget> budget)
      : CpuAllocator(budget.get()), budget_(std::move(budget)) {}

 private:
  std::unique_ptr<MemoryBudget> budget_;
};

}  // namespace

CpuDevice::CpuDevice(Env* env, const DeviceAttributes& attributes,
                     const CpuDeviceOptions& options)
    : CpuDevice(env, MakeKernelEnv(env, options), attributes, options) {}

CpuDevice::CpuDevice(Env* env, std::unique_ptr<KernelEnv> kernel_env,
                     const DeviceAttributes& attributes,
                     const CpuDeviceOptions& options)
    : Device(kernel_env != nullptr ? &kernel_env->env : env, attributes),
      kernel_env_(std::move(kernel_env)),
      allocator_(new DeviceCpuAllocator(std::make_unique<MemoryBudget>(
          attributes.name(), options.per_device_memory_limit,
          options.process_memory, options.allocation_faults))) {}

CpuDevice::~CpuDevice() { allocator_->ReleaseOwner(); }

std::unique_ptr<CpuDevice::KernelEnv> CpuDevice::MakeKernelEnv(
    Env* env, const CpuDeviceOptions& options) {
  if (options.intra_op_parallelism_threads <= 0 || env == nullptr ||
      env->scheduler == nullptr) {
    return nullptr;
  }
  auto kernel_env = std::make_unique<KernelEnv>();
  kernel_env->env = *env;
  kernel_env->scheduler = std::make_unique<IntraOpScheduler>(
      env->scheduler, options.intra_op_parallelism_threads);
  kernel_env->env.scheduler = kernel_env->scheduler.get();
  return kernel_env;
}

int64_t CpuDeviceMemoryLimit(const CpuDeviceOptions& options) {
  return options.per_device_memory_limit > 0 ? options.per_device_memory_limit
                                             : kCpuDeviceMemoryLimit;
}

absl::Status AddCpuDevices(Env* env, int count, const std::string& name_prefix,
                           std::vector<std::unique_ptr<Device>>* out) {
  return AddCpuDevices(env, count, name_prefix, CpuDeviceOptions(), out);
}

absl::Status AddCpuDevices(Env* env, int count, const std::string& name_prefix,
                           const CpuDeviceOptions& options,
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
        CpuDeviceMemoryLimit(options), env->random->NewNonZero64(),
        absl::StrCat("device: ", i, ", name: host CPU"));
    out->push_back(std::make_unique<CpuDevice>(env, attrs, options));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
