#include "sim/trace/traced_device.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/direct_session.h"
#include "sim/trace/digest.h"
#include "sim/trace/tensor_digest.h"

namespace stepflow {
namespace {

std::string ShortDeviceName(const std::string& full) {
  const std::string marker = "/device:";
  const size_t pos = full.rfind(marker);
  return pos == std::string::npos ? full : full.substr(pos + marker.size());
}

}  // namespace

TracedCpuDevice::TracedCpuDevice(Env* env, const DeviceAttributes& attributes,
                                 SimEventLoop* loop, std::string task)
    : Device(env, attributes),
      loop_(loop),
      task_(std::move(task)),
      short_name_(ShortDeviceName(attributes.name())) {}

void TracedCpuDevice::RecordStart(OpKernel* op_kernel,
                                  OpKernelContext* context) {
  if (loop_->recorder() == nullptr) return;
  Fnv64 h;
  h.UpdateU64(static_cast<uint64_t>(context->num_inputs()));
  for (int i = 0; i < context->num_inputs(); ++i) {
    HashTensorInto(context->input(i), &h);
  }
  loop_->Trace(SIM_KERNEL_START, task_,
               {{"node", op_kernel->name()},
                {"op", op_kernel->type_string()},
                {"device", short_name_},
                {"step", context->step_id()}},
               h.value());
}

void TracedCpuDevice::RecordDone(OpKernel* op_kernel,
                                 OpKernelContext* context) {
  if (loop_->recorder() == nullptr) return;
  loop_->Trace(
      SIM_KERNEL_DONE, task_,
      {{"node", op_kernel->name()},
       {"op", op_kernel->type_string()},
       {"device", short_name_},
       {"step", context->step_id()},
       {"status", absl::StatusCodeToString(context->status().code())}});
}

void TracedCpuDevice::Compute(OpKernel* op_kernel, OpKernelContext* context) {
  RecordStart(op_kernel, context);
  op_kernel->Compute(context);
  RecordDone(op_kernel, context);
}

void TracedCpuDevice::ComputeAsync(AsyncOpKernel* op_kernel,
                                   OpKernelContext* context,
                                   AsyncOpKernel::DoneCallback done) {
  RecordStart(op_kernel, context);
  op_kernel->ComputeAsync(context,
                          [this, op_kernel, context, done = std::move(done)] {
                            RecordDone(op_kernel, context);
                            done();
                          });
}

void AddTracedCpuDevices(const SessionOptions& options, SimEventLoop* loop,
                         const std::string& task, int num_cpus,
                         std::vector<std::unique_ptr<Device>>* devices) {
  const std::string task_name = "/job:localhost/replica:0/task:0";
  for (int i = 0; i < num_cpus; ++i) {
    DeviceAttributes attrs = Device::BuildDeviceAttributes(
        Device::FullName(task_name, DEVICE_CPU, i), DEVICE_CPU,
        kCpuDeviceMemoryLimit, options.env->random->NewNonZero64(),
        absl::StrCat("device: ", i, ", name: traced simulated CPU"));
    devices->push_back(
        std::make_unique<TracedCpuDevice>(options.env, attrs, loop, task));
  }
}

absl::Status NewTracedDirectSession(const SessionOptions& options,
                                    SimEventLoop* loop, const std::string& task,
                                    std::unique_ptr<Session>* session) {
  if (options.env == nullptr || options.env->random == nullptr ||
      options.env->scheduler == nullptr || loop == nullptr) {
    return absl::InvalidArgumentError(
        "NewTracedDirectSession needs an Env (with scheduler and random) and "
        "a SimEventLoop");
  }
  int num_cpus = 1;
  auto it = options.config.device_count().find("CPU");
  if (it != options.config.device_count().end()) num_cpus = it->second;
  if (num_cpus < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device_count[\"CPU\"] must be at least 1, got ", num_cpus));
  }
  std::vector<std::unique_ptr<Device>> devices;
  AddTracedCpuDevices(options, loop, task, num_cpus, &devices);
  *session = std::make_unique<DirectSession>(
      options, std::make_unique<DeviceMgr>(std::move(devices)));
  return absl::OkStatus();
}

}  // namespace stepflow
