// GPU _Send/_Recv: the CPU<->GPU transfer points. The rendezvous always
// carries host tensors, so values of device-memory dtypes are copied:
//   _Send on a GPU: D2H copy (after the compute stream's pending work), then
//     Rendezvous::Send from the Scheduler closure the copy's completion
//     schedules; the kernel is asynchronous and finishes then.
//   _Recv on a GPU: receives the host tensor, enqueues the H2D copy (the
//     compute stream waits for it) and finishes; later kernels see the value
//     in stream order.
// Host-memory dtypes (int32 shapes, indices, ...) pass through unchanged.
// Keys: SendRecvKey, as the CPU kernels (runtime/kernels/sendrecv_ops.cc).
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/gpu_kernel_defs.h"
#include "runtime/gpu/gpu_ops.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

absl::Status GetGpu(OpKernelContext* ctx, GpuDevice** out) {
  *out = dynamic_cast<GpuDevice*>(ctx->device());
  if (*out == nullptr) {
    return NodeInternal(
        ctx, ctx->op_kernel().type_string(),
        " on a device that is not a CUDA GPU: ", ctx->device()->name());
  }
  return absl::OkStatus();
}

class GpuSendOp : public AsyncOpKernel {
 public:
  explicit GpuSendOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, SendRecvKey::FromNodeDef(def(), &key_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, GetGpu(ctx, &gpu), done);
    OP_REQUIRES_ASYNC(
        ctx, ctx->rendezvous() != nullptr,
        NodeInternal(ctx, "Op ", type_string(), " requires a rendezvous"),
        done);
    Rendezvous::ParsedKey key;
    OP_REQUIRES_OK_ASYNC(ctx, key_.Get(ctx->frame_iter(), &key), done);
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    const Tensor& val = ctx->input(0);
    if (!GpuTypeInDeviceMemory(val.dtype())) {
      ctx->SetStatus(AttachDef(
          ctx->rendezvous()->Send(key, args, val, /*is_dead=*/false), name()));
      done();
      return;
    }
    Tensor host(val.dtype(), val.shape());
    const std::string node = name();
    gpu->CopyDeviceToHost(val, host,
                          [ctx, key, args, node, done = std::move(done)](
                              absl::Status s, Tensor copied) {
                            if (s.ok()) {
                              s = ctx->rendezvous()->Send(key, args, copied,
                                                          /*is_dead=*/false);
                            }
                            if (!s.ok()) ctx->SetStatus(AttachDef(s, node));
                            done();
                          });
  }

 private:
  SendRecvKey key_;
};

class GpuRecvOp : public AsyncOpKernel {
 public:
  explicit GpuRecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, SendRecvKey::FromNodeDef(def(), &key_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, GetGpu(ctx, &gpu), done);
    OP_REQUIRES_ASYNC(
        ctx, ctx->rendezvous() != nullptr,
        NodeInternal(ctx, "Op ", type_string(), " requires a rendezvous"),
        done);
    Rendezvous::ParsedKey key;
    OP_REQUIRES_OK_ASYNC(ctx, key_.Get(ctx->frame_iter(), &key), done);
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    const std::string node = name();
    ctx->rendezvous()->RecvAsync(
        key, args,
        [ctx, gpu, node, done = std::move(done)](
            const absl::Status& s, const Rendezvous::Args&,
            const Rendezvous::Args&, const Tensor& val, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(AttachDef(s, node));
          } else if (is_dead) {
            *ctx->is_output_dead() = true;
          } else if (!GpuTypeInDeviceMemory(val.dtype())) {
            ctx->set_output(0, val);
          } else {
            // The receiving thread may not have this device current.
            cudaSetDevice(gpu->ordinal());
            Tensor on_device;
            absl::Status cs = gpu->CopyHostToDevice(val, &on_device);
            if (cs.ok()) {
              ctx->set_output(0, on_device);
            } else {
              ctx->SetStatus(AttachDef(cs, node));
            }
          }
          done();
        });
  }

 private:
  SendRecvKey key_;
};

}  // namespace

KernelFactory GpuTransferKernelFactory(const std::string& op) {
  if (op == "_Send") {
    return
        [](OpKernelConstruction* c) -> OpKernel* { return new GpuSendOp(c); };
  }
  if (op == "_Recv") {
    return
        [](OpKernelConstruction* c) -> OpKernel* { return new GpuRecvOp(c); };
  }
  return KernelFactory();
}

}  // namespace stepflow
