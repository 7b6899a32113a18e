// ExecutorImpl and NewLocalExecutor: the executor that executor.h
// promises, put together from the immutable per-graph state and the
// per-step state over the propagator the graph needs.
#include "runtime/common/executor.h"

#include <memory>
#include <utility>

#include "runtime/common/executor_state.h"
#include "runtime/common/immutable_executor_state.h"
#include "runtime/common/propagator_state.h"
#include "runtime/common/simple_propagator_state.h"
#include "runtime/env/notification.h"

namespace stepflow {
namespace {

// The kernel factory of `params`: create_shared_kernel if set, else
// create_kernel, else the device type's registered kernel.
ImmutableExecutorState::KernelFactory KernelFactoryFor(
    const LocalExecutorParams& params) {
  if (params.create_shared_kernel) return params.create_shared_kernel;
  return [device = params.device, create_kernel = params.create_kernel](
             const NodeDef& def, std::shared_ptr<OpKernel>* kernel) {
    std::unique_ptr<OpKernel> owned;
    absl::Status s = create_kernel
                         ? create_kernel(def, &owned)
                         : CreateOpKernelBorrowingDef(device->device_type(),
                                                      device, def, &owned);
    *kernel = std::move(owned);
    return s;
  };
}

// An executor whose steps propagate with PropagatorStateType: chosen once,
// by NewLocalExecutor, from the graph.
template <class PropagatorStateType>
class ExecutorImpl : public Executor {
 public:
  explicit ExecutorImpl(std::unique_ptr<const ImmutableExecutorState> state)
      : immutable_(std::move(state)) {}

  void RunAsync(const Args& args, DoneCallback done) override {
    StartStepAsync<PropagatorStateType>(*immutable_, args, std::move(done));
  }

  absl::Status Run(const Args& args) override {
    // Shared with the callback: the thread that finishes the step may
    // still be inside Notify when WaitFor returns here.
    struct Result {
      Notification done;
      absl::Status status;
    };
    auto result = std::make_shared<Result>();
    RunStepOnCaller<PropagatorStateType>(*immutable_, args,
                                         [result](const absl::Status& s) {
                                           result->status = s;
                                           result->done.Notify();
                                         });
    immutable_->env()->scheduler->WaitFor(&result->done);
    return result->status;
  }

 private:
  const std::unique_ptr<const ImmutableExecutorState> immutable_;
};

}  // namespace

absl::Status NewLocalExecutor(const LocalExecutorParams& params,
                              std::unique_ptr<const Graph> graph,
                              std::unique_ptr<Executor>* executor) {
  if (graph == nullptr) {
    return absl::InvalidArgumentError("NewLocalExecutor needs a graph");
  }
  if (params.device == nullptr) {
    return absl::InvalidArgumentError("NewLocalExecutor needs a device");
  }
  auto state = std::make_unique<ImmutableExecutorState>(
      params.device, params.env != nullptr ? params.env : params.device->env(),
      KernelFactoryFor(params), std::move(graph));
  state->set_function_library(params.function_library);
  absl::Status s = state->Initialize();
  if (!s.ok()) return s;
  if (state->requires_control_flow_support()) {
    *executor =
        std::make_unique<ExecutorImpl<PropagatorState>>(std::move(state));
  } else {
    *executor =
        std::make_unique<ExecutorImpl<SimplePropagatorState>>(std::move(state));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
