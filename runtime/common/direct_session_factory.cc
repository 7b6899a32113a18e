// Registers DirectSession as the factory for the empty target.
#include <memory>

#include "runtime/common/cpu_device.h"
#include "runtime/common/device_factory.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/direct_session.h"
#include "runtime/common/session_factory.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace {

class DirectSessionFactory : public SessionFactory {
 public:
  bool AcceptsOptions(const SessionOptions& options) override {
    return options.target.empty();
  }

  absl::Status NewSession(const SessionOptions& options,
                          std::unique_ptr<Session>* out) override {
    int num_cpus = 1;
    auto it = options.config.device_count().find("CPU");
    if (it != options.config.device_count().end()) {
      if (it->second < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "device_count[\"CPU\"] must be at least 1, got ", it->second));
      }
      num_cpus = it->second;
    }
    CpuDeviceOptions cpu;
    cpu.process_memory = options.process_memory;
    cpu.per_device_memory_limit =
        options.config.memory_options().per_device_memory_limit_bytes();
    if (cpu.per_device_memory_limit < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory_options.per_device_memory_limit_bytes must be "
                       "at least 0, got ",
                       cpu.per_device_memory_limit));
    }
    // 0: the Env's thread count, as TensorFlow's 0 means the core count.
    cpu.intra_op_parallelism_threads =
        options.config.intra_op_parallelism_threads();
    if (cpu.intra_op_parallelism_threads < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("intra_op_parallelism_threads must be at least 0, got ",
                       cpu.intra_op_parallelism_threads));
    }
    std::vector<std::unique_ptr<Device>> devices;
    SF_RETURN_IF_ERROR(AddCpuDevices(options.env, num_cpus,
                                     "/job:localhost/replica:0/task:0", cpu,
                                     &devices));
    // GPUs and other device types whose libraries are linked in.
    SF_RETURN_IF_ERROR(AddRegisteredDevices(
        options, "/job:localhost/replica:0/task:0", &devices));
    auto device_mgr = std::make_unique<DeviceMgr>(std::move(devices));
    *out = std::make_unique<DirectSession>(options, std::move(device_mgr));
    return absl::OkStatus();
  }
};

const bool registered =
    SessionFactory::Register("DIRECT_SESSION", new DirectSessionFactory);

}  // namespace
}  // namespace stepflow
