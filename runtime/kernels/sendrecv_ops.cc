// _Send/_Recv (and the _HostSend/_HostRecv variants, identical on CPU):
// cross-partition transfers through the step's Rendezvous.
//
// Key: SendRecvKey (runtime/framework/rendezvous.h) from the node's
// send_device, send_device_incarnation, recv_device and tensor_name attrs,
// so each loop iteration uses its own key; the root-frame key is parsed
// once at construction. _Send never blocks. _Recv is asynchronous: it
// completes when the value arrives, with the rendezvous' error (abort,
// cancellation via the step's CancellationManager), or marks its output
// dead when a dead value was sent. Dead inputs never reach _Send (the
// executor sends them itself).
#include <string>

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, SendRecvKey::FromNodeDef(def(), &key_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(
        ctx, ctx->rendezvous() != nullptr,
        NodeInternal(ctx, "Op ", type_string(), " requires a rendezvous"));
    Rendezvous::ParsedKey key;
    OP_REQUIRES_OK(ctx, key_.Get(ctx->frame_iter(), &key));
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    OP_REQUIRES_OK(ctx,
                   AttachDef(ctx->rendezvous()->Send(key, args, ctx->input(0),
                                                     /*is_dead=*/false),
                             name()));
  }
  bool IsExpensive() const override { return false; }

 private:
  SendRecvKey key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, SendRecvKey::FromNodeDef(def(), &key_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
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
        [ctx, done = std::move(done), node](
            const absl::Status& s, const Rendezvous::Args&,
            const Rendezvous::Args&, const Tensor& val, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(AttachDef(s, node));
          } else if (is_dead) {
            *ctx->is_output_dead() = true;
          } else {
            ctx->set_output(0, val);
          }
          done();
        });
  }

 private:
  SendRecvKey key_;
};

REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_HostSend").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_CPU), RecvOp);
REGISTER_KERNEL_BUILDER(Name("_HostRecv").Device(DEVICE_CPU), RecvOp);

}  // namespace
}  // namespace stepflow
