// While/StatelessWhile run unlowered: the loop variables (the node's
// inputs) go to `cond`; while its single result reads as true (as an If
// cond reads, function_call_util.h), `body` maps them to the next values;
// the node's outputs are the values for which cond was false. Iterations
// run one after another, each function call a step of its own on the
// device's function runtime; output_shapes and parallel_iterations are
// accepted and do not change the result. Nothing recurses on the stack:
// every call completes through the scheduler.
// Errors (all naming the node): InvalidArgument when cond does not return
// exactly one tensor or its result has no truth value, or when the
// signatures of cond and body disagree with T; the instantiations' and the
// functions' errors; Cancelled when the step is cancelled mid-loop.
#include <memory>
#include <utility>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/function_call_util.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class WhileOp : public AsyncOpKernel {
 public:
  explicit WhileOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    NameAttrList cond, body;
    OP_REQUIRES_OK(ctx, GetFunctionAttr(ctx, "cond", &cond));
    OP_REQUIRES_OK(ctx, GetFunctionAttr(ctx, "body", &body));
    cond_ = std::make_unique<FunctionHandleCache>(std::move(cond));
    body_ = std::make_unique<FunctionHandleCache>(std::move(body));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto loop = std::make_shared<Loop>();
    loop->ctx = ctx;
    loop->done = std::move(done);
    OP_REQUIRES_OK_ASYNC(ctx, cond_->Get(ctx, &loop->cond), loop->done);
    OP_REQUIRES_OK_ASYNC(ctx, body_->Get(ctx, &loop->body), loop->done);
    FunctionLibraryRuntime* runtime = ctx->function_library();
    const DataTypeVector& types = input_types();
    OP_REQUIRES_OK_ASYNC(ctx,
                         CheckTypes(ctx, "cond's arguments",
                                    runtime->ArgTypes(loop->cond), types),
                         loop->done);
    OP_REQUIRES_OK_ASYNC(ctx,
                         CheckTypes(ctx, "body's arguments",
                                    runtime->ArgTypes(loop->body), types),
                         loop->done);
    OP_REQUIRES_OK_ASYNC(
        ctx,
        CheckTypes(ctx, "body's results", runtime->RetTypes(loop->body), types),
        loop->done);
    loop->vars = InputsFrom(ctx, 0);
    EvalCond(std::move(loop));
  }

 private:
  struct Loop {
    OpKernelContext* ctx = nullptr;
    DoneCallback done;
    FunctionLibraryRuntime::Handle cond = -1;
    FunctionLibraryRuntime::Handle body = -1;
    std::vector<Tensor> vars;
    std::vector<Tensor> rets;
  };

  static void Finish(const std::shared_ptr<Loop>& loop, absl::Status s) {
    if (s.ok()) s = SetCallOutputs(loop->ctx, &loop->vars);
    if (!s.ok()) loop->ctx->SetStatus(s);
    loop->done();
  }

  static void EvalCond(std::shared_ptr<Loop> loop) {
    OpKernelContext* ctx = loop->ctx;
    CancellationManager* cm = ctx->cancellation_manager();
    if (cm != nullptr && cm->IsCancelled()) {
      Finish(loop, NodeError(absl::StatusCode::kCancelled, ctx->op_kernel(),
                             "The step was cancelled during the loop"));
      return;
    }
    loop->rets.clear();
    std::vector<Tensor> args = loop->vars;
    CallFunction(ctx, loop->cond, std::move(args), &loop->rets,
                 [loop](const absl::Status& s) {
                   if (!s.ok()) return Finish(loop, s);
                   if (loop->rets.size() != 1) {
                     return Finish(loop,
                                   NodeInvalidArgument(
                                       loop->ctx,
                                       "Expected a single scalar return value "
                                       "from the While's cond, got ",
                                       loop->rets.size(), " tensors"));
                   }
                   bool more = false;
                   absl::Status b = CondToBool(loop->ctx, loop->rets[0], &more);
                   if (!b.ok() || !more) return Finish(loop, b);
                   EvalBody(loop);
                 });
  }

  static void EvalBody(std::shared_ptr<Loop> loop) {
    loop->rets.clear();
    CallFunction(loop->ctx, loop->body, std::move(loop->vars), &loop->rets,
                 [loop](const absl::Status& s) {
                   if (!s.ok()) return Finish(loop, s);
                   loop->vars = std::move(loop->rets);
                   EvalCond(loop);
                 });
  }

  std::unique_ptr<FunctionHandleCache> cond_;
  std::unique_ptr<FunctionHandleCache> body_;
};

REGISTER_KERNEL_BUILDER(Name("While").Device(DEVICE_CPU), WhileOp);
REGISTER_KERNEL_BUILDER(Name("StatelessWhile").Device(DEVICE_CPU), WhileOp);

}  // namespace
}  // namespace stepflow
