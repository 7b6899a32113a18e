// Test-only helpers shared by the executor's tests (executor_test,
// executor_step_args_test, executor_loop_test, immutable_executor_state_test
// and the propagator tests): test ops and kernels, NodeDef builders for
// transfers and while loops, building executors and immutable states from
// GraphDefs, and the two-CPU fixture on the inline scheduler.
//
// Linking this library registers the ExecTest* ops and their CPU kernels
// (alwayslink). Their bookkeeping (run counts, held and parked kernels) is
// process-global and guarded by a mutex; ResetTestKernels() clears it.
#ifndef STEPFLOW_RUNTIME_COMMON_EXECUTOR_TESTUTIL_H_
#define STEPFLOW_RUNTIME_COMMON_EXECUTOR_TESTUTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/common/device.h"
#include "runtime/common/executor.h"
#include "runtime/common/immutable_executor_state.h"
#include "runtime/common/test_graph_builders.h"
#include "runtime/env/env.h"
#include "runtime/env/real/random.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/graph/graph.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace test {

using test_graph::AddArg;
using test_graph::AddConst;
using test_graph::AddNode;
using test_graph::AddRetval;
using test_graph::AddTyped;

// ---------------------------------------------------------------------------
// Test ops, with CPU kernels unless noted:
//  * ExecTestCount(in: T) -> T: forwards; counts its runs and records its
//    frame and iteration. Inexpensive.
//  * ExecTestTouch(): counts its runs.
//  * ExecTestFail(in: T) -> T: counts, then fails with InvalidArgument
//    "kernel failed on purpose".
//  * ExecTestFailAt(in: int32, at: int) -> int32: fails when in == at.
//  * ExecTestNoOutput() -> float: leaves its output unset.
//  * ExecTestRefAsValue() -> Ref(float): produces a value instead.
//  * ExecTestVar(initialized: bool) -> Ref(float): a reference to its own
//    tensor, 7 if initialized.
//  * ExecTestHold() -> float: async; completes (with 5) at ReleaseHeld().
//    ExecTestHoldCheap: the same, inexpensive.
//  * ExecTestPark(in: T) -> T: async, inexpensive; forwards its input at
//    ReleaseOldestParked().
//  * ExecTestExpensive(in: float) -> float: in + 1, expensive.
//  * ExecTestAddOne(in: float) -> float: in + 1, inexpensive.
//  * ExecTestAddOneAtOnce(in: float) -> float: in + 1, async, calling
//    `done` before ComputeAsync returns.
//  * ExecTestWhere(in: float, expensive: bool) -> float: forwards; records
//    whether it ran outside every scheduled closure (RanOnCaller()).
//  * ExecTestNoKernel() -> float: no kernel at all.

// Runs of `node` (ExecTestCount, Touch, Fail, Hold, Where) since the last
// reset.
int RunCount(const std::string& node);
// The frames and iterations ExecTestCount ran in, in order.
std::vector<FrameAndIter> SeenFrames();
// Completes every held ExecTestHold kernel with output 5.
void ReleaseHeld();
// Completes the oldest parked ExecTestPark kernel; false if none.
bool ReleaseOldestParked();
// The frames and iterations of the parked kernels, oldest first.
std::vector<FrameAndIter> ParkedFrames();
// ExecTestWhere nodes that ran while no FlaggingScheduler closure was
// running: on the thread that called Executor::Run.
std::set<std::string> RanOnCaller();
// Forgets counts, frames, the caller's nodes, and held and parked kernels.
void ResetTestKernels();

// The inline scheduler, marking the closures it runs (see RanOnCaller).
class FlaggingScheduler : public InlineScheduler {
 public:
  void Schedule(Closure fn) override;
};

// Registered kernels, plus a ControlTrigger kernel supplied here (through
// LocalExecutorParams::create_kernel, not the global registry).
absl::Status CreateTestKernel(Device* device, const NodeDef& ndef,
                              std::unique_ptr<OpKernel>* kernel);

// ---------------------------------------------------------------------------
// NodeDef builders.

NodeDef* AddSend(GraphDef* g, const std::string& name, const std::string& input,
                 DataType t, const std::string& tensor_name, const Device* from,
                 const Device* to);
NodeDef* AddRecv(GraphDef* g, const std::string& name, DataType t,
                 const std::string& tensor_name, const Device* from,
                 const Device* to);
NodeDef* AddEnter(GraphDef* g, const std::string& name,
                  const std::string& input, DataType t,
                  const std::string& frame, bool is_constant,
                  int parallel_iterations);

// While loops, TensorFlow style. One loop variable: <name>/enter ->
// <name>/merge (back edge from <name>/next); after Switch(cond):
// <name>/body = Identity(switch:1) and <name>/exit = Exit(switch:0).
struct LoopVar {
  std::string name;
  DataType t;
  std::string merge() const { return name + "/merge"; }
  std::string body() const { return name + "/body"; }
  std::string exit() const { return name + "/exit"; }
};
LoopVar AddLoopVar(GraphDef* g, const std::string& name,
                   const std::string& init, DataType t,
                   const std::string& frame, int parallel_iterations);
void AddLoopSwitch(GraphDef* g, const LoopVar& v, const std::string& cond);
void AddLoopNext(GraphDef* g, const LoopVar& v, const std::string& value);
// cond = LoopCond(Less(lhs, rhs)); returns cond's name.
std::string AddLessCond(GraphDef* g, const std::string& prefix,
                        const std::string& lhs, const std::string& rhs);
Tensor I32(int32_t v);
// while i < limit: i += 1 (body counted by ExecTestCount "count") in frame
// "loop". Returns i (retval 0).
GraphDef CounterLoop(int limit, int parallel_iterations);

// ---------------------------------------------------------------------------
// Building.

// `def` as a Graph; internal ops (_Arg, _Send, ...) allowed.
absl::Status GraphFromDef(const GraphDef& def, std::unique_ptr<Graph>* graph);
// An executor for `def` on `device` with `env`; `create_kernel` as in
// LocalExecutorParams (empty: the registered kernels).
absl::Status BuildExecutor(
    const GraphDef& def, Device* device, Env* env,
    std::unique_ptr<Executor>* executor,
    std::function<absl::Status(const NodeDef&, std::unique_ptr<OpKernel>*)>
        create_kernel = nullptr);
// The initialized immutable state for `def` on `device` with `env`
// (registered kernels).
absl::Status BuildImmutableState(
    const GraphDef& def, Device* device, Env* env,
    std::unique_ptr<ImmutableExecutorState>* state);

// ---------------------------------------------------------------------------
// Fixture: two CPU devices on a deterministic single-threaded scheduler
// (FlaggingScheduler); executors use CreateTestKernel.
class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest();

  Device* cpu0() { return devices_[0].get(); }
  Device* cpu1() { return devices_[1].get(); }

  absl::Status Build(const GraphDef& def, Device* device,
                     std::unique_ptr<Executor>* executor);
  std::unique_ptr<Executor> BuildOrDie(const GraphDef& def,
                                       Device* device = nullptr);

  // What a step's `done` reported: how many times, and the last status.
  struct DoneRecord {
    int calls = 0;
    absl::Status status;
  };
  // Starts one step and returns without running the scheduler; the step's
  // `done` fills `*done` (which must outlive the step).
  void Start(Executor* executor, const Executor::Args& args, DoneRecord* done);
  // Runs one step to completion on the inline scheduler.
  absl::Status Run(Executor* executor, const Executor::Args& args);
  // Runs one step with Executor::Run (starting on this thread) and returns
  // its retvals in *out; RanOnCaller() then lists the ExecTestWhere nodes
  // that ran on this thread rather than in a scheduled closure.
  absl::Status RunOnCaller(Executor* executor, const DataTypeVector& ret_types,
                           std::vector<Tensor>* out);
  // Runs with a call frame; returns the retvals in *out.
  absl::Status RunWithFrame(Executor* executor, const DataTypeVector& arg_types,
                            const std::vector<Tensor>& args,
                            const DataTypeVector& ret_types,
                            std::vector<Tensor>* out,
                            Executor::Args exec_args = Executor::Args());

  FlaggingScheduler sched_;
  SeededRandom random_;
  Env env_;
  std::vector<std::unique_ptr<Device>> devices_;
};

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_EXECUTOR_TESTUTIL_H_
