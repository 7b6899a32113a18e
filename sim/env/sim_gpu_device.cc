#include "sim/env/sim_gpu_device.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/direct_session.h"
#include "runtime/gpu/gpu_kernel_defs.h"

namespace stepflow {
namespace {

constexpr int64_t kLaunchNanos = 4000;         // Kernel launch.
constexpr int64_t kDeviceBytesPerNano = 1000;  // ~1 TB/s.
constexpr int64_t kCopyNanos = 8000;           // Transfer set-up.
constexpr int64_t kCopyBytesPerNano = 25;      // ~25 GB/s.
constexpr int64_t kFlopsPerNano = 20000;       // ~20 TFLOP/s.

// Runs the op's CPU kernel, then finishes after the simulated GPU latency.
class SimGpuKernel : public AsyncOpKernel {
 public:
  explicit SimGpuKernel(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    const KernelDef* def = nullptr;
    KernelFactory factory;
    absl::Status s = KernelRegistry::Global()->FindKernel(
        DEVICE_CPU, ctx->def(), &def, &factory);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    inner_.reset(factory(ctx));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (inner_ == nullptr) {
      ctx->SetStatus(absl::InternalError(
          absl::StrCat("No CPU kernel behind simulated GPU kernel ",
                       FormatNodeName(name()))));
      done();
      return;
    }
    const int64_t latency = SimGpuKernelLatencyNanos(*inner_, *ctx);
    Scheduler* scheduler = ctx->env()->scheduler;
    auto finish = [scheduler, latency, done = std::move(done)]() mutable {
      scheduler->ScheduleAfter(latency, std::move(done));
    };
    if (AsyncOpKernel* async = inner_->AsAsync()) {
      async->ComputeAsync(ctx, std::move(finish));
    } else {
      inner_->Compute(ctx);
      finish();
    }
  }

 private:
  std::unique_ptr<OpKernel> inner_;
};

int64_t InputBytes(const OpKernelContext& ctx) {
  int64_t bytes = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    bytes += static_cast<int64_t>(ctx.input(i).TotalBytes());
  }
  return bytes;
}

bool RegisterSimGpuKernels() {
  for (const KernelDef& def : GpuKernelDefs()) {
    KernelRegistry::Global()->Register(
        def, [](OpKernelConstruction* c) -> OpKernel* {
          return new SimGpuKernel(c);
        });
  }
  return true;
}

const bool kRegistered = RegisterSimGpuKernels();

}  // namespace

int64_t SimGpuKernelLatencyNanos(const OpKernel& kernel,
                                 const OpKernelContext& context) {
  const std::string& op = kernel.type_string();
  const int64_t bytes = InputBytes(context);
  if (op == "_Send" || op == "_Recv") {
    const DataType dtype =
        op == "_Send" ? kernel.input_type(0) : kernel.output_type(0);
    if (!GpuTypeInDeviceMemory(BaseType(dtype))) return 0;
    // The bytes are charged once, on the sending side (a _Recv has no
    // inputs); the receiving side pays the copy set-up.
    return kCopyNanos + bytes / kCopyBytesPerNano;
  }
  int64_t nanos = kLaunchNanos + bytes / kDeviceBytesPerNano;
  if (op == "MatMul" && context.num_inputs() == 2 &&
      context.input(0).dims() == 2 && context.input(1).dims() == 2) {
    const int64_t m = context.input(0).dim_size(0);
    const int64_t k = context.input(0).dim_size(1);
    const int64_t n = context.input(1).dim_size(1);
    nanos += 2 * m * n * k / kFlopsPerNano;
  }
  return nanos;
}

absl::Status NewSimGpuDirectSession(const SessionOptions& options,
                                    SimEventLoop* loop, const std::string& task,
                                    std::unique_ptr<Session>* session) {
  if (options.env == nullptr || options.env->random == nullptr ||
      options.env->scheduler == nullptr || loop == nullptr) {
    return absl::InvalidArgumentError(
        "NewSimGpuDirectSession needs an Env (with scheduler and random) and "
        "a SimEventLoop");
  }
  const auto& counts = options.config.device_count();
  const int num_cpus = counts.count("CPU") ? counts.at("CPU") : 1;
  const int num_gpus = counts.count("GPU") ? counts.at("GPU") : 1;
  if (num_cpus < 1 || num_gpus < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need device_count[\"CPU\"] >= 1 and device_count[\"GPU\"] >= 0, got ",
        num_cpus, " and ", num_gpus));
  }
  const std::string task_name = "/job:localhost/replica:0/task:0";
  std::vector<std::unique_ptr<Device>> devices;
  AddTracedCpuDevices(options, loop, task, num_cpus, &devices);
  for (int i = 0; i < num_gpus; ++i) {
    DeviceAttributes attrs = Device::BuildDeviceAttributes(
        Device::FullName(task_name, DEVICE_GPU, i), DEVICE_GPU,
        kSimGpuMemoryLimit, options.env->random->NewNonZero64(),
        absl::StrCat("device: ", i, ", name: simulated GPU"));
    devices.push_back(
        std::make_unique<SimGpuDevice>(options.env, attrs, loop, task));
  }
  *session = std::make_unique<DirectSession>(
      options, std::make_unique<DeviceMgr>(std::move(devices)));
  return absl::OkStatus();
}

}  // namespace stepflow
