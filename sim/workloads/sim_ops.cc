#include "sim/workloads/sim_ops.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {
namespace {

REGISTER_OP("SimDelay")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("delay_ns: int >= 0")
    .SetIsStateful();

class SimDelayOp : public AsyncOpKernel {
 public:
  explicit SimDelayOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delay_ns", &delay_ns_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Scheduler* scheduler = ctx->env()->scheduler;
    CancellationManager* cm = ctx->cancellation_manager();
    // Shared by the timer and the cancellation callback; whichever claims
    // `finished` first completes the kernel.
    struct State {
      std::atomic<bool> finished{false};
      std::atomic<Scheduler::TimerId> timer{0};
      CancellationToken token = 0;
    };
    auto state = std::make_shared<State>();
    auto finish = [ctx, done, state](const absl::Status& s) {
      if (state->finished.exchange(true)) return;
      if (s.ok()) {
        ctx->set_output(0, ctx->input(0));
      } else {
        ctx->SetStatus(s);
      }
      done();
    };
    const std::string node = FormatNodeName(name());
    if (cm != nullptr) {
      state->token = cm->get_cancellation_token();
      const bool registered =
          cm->RegisterCallback(state->token, [state, scheduler, finish, node] {
            // Only a timer that had not started may be abandoned; a running
            // one completes the kernel itself.
            if (scheduler->CancelTimer(state->timer.load())) {
              finish(absl::CancelledError(
                  absl::StrCat(node, " was cancelled while delaying")));
            }
          });
      if (!registered) {
        finish(absl::CancelledError(
            absl::StrCat(node, " was cancelled before it started")));
        return;
      }
    }
    state->timer.store(scheduler->ScheduleAfter(delay_ns_, [state, cm, finish] {
      if (cm != nullptr) cm->DeregisterCallback(state->token);
      finish(absl::OkStatus());
    }));
  }

 private:
  int64_t delay_ns_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("SimDelay").Device(DEVICE_CPU), SimDelayOp);

REGISTER_OP("SimFail")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("code: int")
    .SetIsStateful();

class SimFailOp : public OpKernel {
 public:
  explicit SimFailOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t code = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("code", &code));
    OP_REQUIRES(ctx, code > 0 && code <= 16,
                absl::InvalidArgumentError(
                    absl::StrCat(FormatNodeName(name()),
                                 ": SimFail code must be a non-OK "
                                 "status code (1..16), got ",
                                 code)));
    code_ = static_cast<absl::StatusCode>(code);
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::Status(
        code_, absl::StrCat(FormatNodeName(name()), " failed (injected)")));
  }

 private:
  absl::StatusCode code_ = absl::StatusCode::kInvalidArgument;
};

REGISTER_KERNEL_BUILDER(Name("SimFail").Device(DEVICE_CPU), SimFailOp);

}  // namespace
}  // namespace stepflow
