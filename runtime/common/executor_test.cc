#include "runtime/common/executor.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "proto/step_stats.pb.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "runtime/common/step_stats_collector.h"
#include "runtime/common/test_graph_builders.h"
#include "runtime/env/real/random.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace {

// ---------------------------------------------------------------------------
// Test-only ops and kernels.

// How many times each node's kernel ran.
absl::Mutex g_count_mu;
std::map<std::string, int>& RunCounts() {
  static auto* counts = new std::map<std::string, int>;
  return *counts;
}
void CountRun(const std::string& node) {
  absl::MutexLock l(&g_count_mu);
  ++RunCounts()[node];
}
int RunCount(const std::string& node) {
  absl::MutexLock l(&g_count_mu);
  auto it = RunCounts().find(node);
  return it == RunCounts().end() ? 0 : it->second;
}
void ResetRunCounts() {
  absl::MutexLock l(&g_count_mu);
  RunCounts().clear();
}

REGISTER_OP("ExecTestCount").Input("in: T").Output("out: T").Attr("T: type");
REGISTER_OP("ExecTestTouch");
REGISTER_OP("ExecTestFail").Input("in: T").Output("out: T").Attr("T: type");
REGISTER_OP("ExecTestNoOutput").Output("out: float");
REGISTER_OP("ExecTestRefAsValue").Output("out: Ref(float)");
REGISTER_OP("ExecTestVar").Output("ref: Ref(float)").Attr("initialized: bool");
REGISTER_OP("ExecTestHold").Output("out: float");
REGISTER_OP("ExecTestHoldCheap").Output("out: float");
REGISTER_OP("ExecTestNoKernel").Output("out: float");
REGISTER_OP("ExecTestExpensive").Input("in: float").Output("out: float");
REGISTER_OP("ExecTestAddOne").Input("in: float").Output("out: float");
REGISTER_OP("ExecTestAddOneAtOnce").Input("in: float").Output("out: float");
REGISTER_OP("ExecTestWhere")
    .Input("in: float")
    .Output("out: float")
    .Attr("expensive: bool");

// True while a scheduled closure runs (see FlaggingScheduler).
bool g_in_closure = false;
// Nodes of ExecTestWhere that ran outside any scheduled closure: on the
// thread that called Executor::Run.
std::set<std::string>& RanOnCaller() {
  static auto* nodes = new std::set<std::string>;
  return *nodes;
}

// Forwards its input; records whether it ran on Run's calling thread.
class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("expensive", &expensive_));
  }
  void Compute(OpKernelContext* ctx) override {
    CountRun(name());
    if (!g_in_closure) RanOnCaller().insert(name());
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return expensive_; }

 private:
  bool expensive_ = false;
};
REGISTER_KERNEL_BUILDER(Name("ExecTestWhere").Device(DEVICE_CPU), WhereOp);

// Forwards its input and counts.
class CountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    CountRun(name());
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestCount").Device(DEVICE_CPU), CountOp);

class TouchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override { CountRun(name()); }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestTouch").Device(DEVICE_CPU), TouchOp);

class FailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    CountRun(name());
    ctx->SetStatus(absl::InvalidArgumentError("kernel failed on purpose"));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestFail").Device(DEVICE_CPU), FailOp);

class NoOutputOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};
REGISTER_KERNEL_BUILDER(Name("ExecTestNoOutput").Device(DEVICE_CPU),
                        NoOutputOp);

// Produces a plain value where a reference was promised.
class RefAsValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(1));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestRefAsValue").Device(DEVICE_CPU),
                        RefAsValueOp);

// A variable-like kernel: outputs a reference to its own tensor.
class VarOp : public OpKernel {
 public:
  explicit VarOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool initialized = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("initialized", &initialized));
    if (initialized) var_ = Tensor::Scalar<float>(7);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output_ref(0, &mu_, &var_);
  }

 private:
  absl::Mutex mu_;
  Tensor var_;
};
REGISTER_KERNEL_BUILDER(Name("ExecTestVar").Device(DEVICE_CPU), VarOp);

// An async kernel that completes only when the test says so.
struct HeldKernel {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
};
absl::Mutex g_held_mu;
std::vector<HeldKernel>& Held() {
  static auto* held = new std::vector<HeldKernel>;
  return *held;
}
class HoldOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CountRun(name());
    absl::MutexLock l(&g_held_mu);
    Held().push_back(HeldKernel{ctx, std::move(done)});
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestHold").Device(DEVICE_CPU), HoldOp);
// The same, declared inexpensive (may run on Executor::Run's caller).
class CheapHoldOp : public HoldOp {
 public:
  using HoldOp::HoldOp;
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestHoldCheap").Device(DEVICE_CPU),
                        CheapHoldOp);
// Completes every held kernel with output 5.
void ReleaseHeld() {
  std::vector<HeldKernel> held;
  {
    absl::MutexLock l(&g_held_mu);
    held.swap(Held());
  }
  for (HeldKernel& h : held) {
    h.ctx->set_output(0, Tensor::Scalar<float>(5));
    h.done();
  }
}

// in + 1, declared expensive (always scheduled).
class ExpensiveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestExpensive").Device(DEVICE_CPU),
                        ExpensiveOp);

// in + 1, inexpensive: runs inline.
class AddOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestAddOne").Device(DEVICE_CPU), AddOneOp);

// in + 1 as an async kernel that calls `done` before ComputeAsync returns.
class AddOneAtOnceOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ctx->set_output(0, Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
    done();
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestAddOneAtOnce").Device(DEVICE_CPU),
                        AddOneAtOnceOp);

// ControlTrigger does nothing; the executor gives it its meaning. Supplied
// here through create_kernel (not the global registry).
class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

absl::Status CreateTestKernel(Device* device, const NodeDef& ndef,
                              std::unique_ptr<OpKernel>* kernel) {
  if (ndef.op() == "ControlTrigger") {
    const OpDef* op_def = nullptr;
    absl::Status s = OpRegistry::Global()->LookUp(ndef.op(), &op_def);
    if (!s.ok()) return s;
    OpKernelConstruction construction(device, &ndef, op_def, {}, {});
    *kernel = std::make_unique<ControlTriggerOp>(&construction);
    return construction.status();
  }
  return CreateOpKernel(device->device_type(), device, ndef, kernel);
}

// ---------------------------------------------------------------------------
// GraphDef helpers.

using test_graph::AddArg;
using test_graph::AddConst;
using test_graph::AddNode;
using test_graph::AddRetval;
using test_graph::AddTyped;

void AddTransferAttrs(NodeDef* n, const std::string& tensor_name,
                      const Device* from, const Device* to) {
  AddNodeAttr("tensor_name", tensor_name, n);
  AddNodeAttr("send_device", from->name(), n);
  AddNodeAttr("send_device_incarnation",
              static_cast<int64_t>(from->incarnation()), n);
  AddNodeAttr("recv_device", to->name(), n);
}

NodeDef* AddSend(GraphDef* g, const std::string& name, const std::string& input,
                 DataType t, const std::string& tensor_name,
                 const Device* from, const Device* to) {
  NodeDef* n = AddTyped(g, name, "_Send", {input}, t);
  AddTransferAttrs(n, tensor_name, from, to);
  return n;
}

NodeDef* AddRecv(GraphDef* g, const std::string& name, DataType t,
                 const std::string& tensor_name, const Device* from,
                 const Device* to) {
  NodeDef* n = AddNode(g, name, "_Recv");
  AddNodeAttr("tensor_type", t, n);
  AddTransferAttrs(n, tensor_name, from, to);
  return n;
}

// ---------------------------------------------------------------------------
// Fixture: two CPU devices on a deterministic single-threaded scheduler.

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest() : random_(1234) {
    env_.clock = sched_.clock();
    env_.scheduler = &sched_;
    env_.random = &random_;
    absl::Status s = AddCpuDevices(&env_, 2, "/job:localhost/replica:0/task:0",
                                   &devices_);
    EXPECT_TRUE(s.ok()) << s;
    ResetRunCounts();
  }

  Device* cpu0() { return devices_[0].get(); }
  Device* cpu1() { return devices_[1].get(); }

  absl::Status Build(const GraphDef& def, Device* device,
                     std::unique_ptr<Executor>* executor) {
    auto graph = std::make_unique<Graph>();
    GraphConstructorOptions opts;
    opts.allow_internal_ops = true;
    absl::Status s = ConvertGraphDefToGraph(opts, def, graph.get());
    if (!s.ok()) return s;
    LocalExecutorParams params;
    params.device = device;
    params.env = &env_;
    params.create_kernel = [device](const NodeDef& ndef,
                                    std::unique_ptr<OpKernel>* kernel) {
      return CreateTestKernel(device, ndef, kernel);
    };
    return NewLocalExecutor(params, std::move(graph), executor);
  }

  std::unique_ptr<Executor> BuildOrDie(const GraphDef& def,
                                       Device* device = nullptr) {
    std::unique_ptr<Executor> executor;
    absl::Status s = Build(def, device ? device : cpu0(), &executor);
    EXPECT_TRUE(s.ok()) << s;
    return executor;
  }

  // What a step's `done` reported: how many times, and the last status.
  struct DoneRecord {
    int calls = 0;
    absl::Status status;
  };
  // Starts one step and returns without running the scheduler; the step's
  // `done` fills `*done` (which must outlive the step).
  void Start(Executor* executor, const Executor::Args& args, DoneRecord* done) {
    executor->RunAsync(args, [done](const absl::Status& s) {
      ++done->calls;
      done->status = s;
    });
  }

  // Runs one step to completion on the inline scheduler.
  absl::Status Run(Executor* executor, const Executor::Args& args) {
    if (executor == nullptr) return absl::InternalError("no executor");
    Notification n;
    absl::Status status;
    int calls = 0;
    executor->RunAsync(args, [&](const absl::Status& s) {
      status = s;
      ++calls;
      n.Notify();
    });
    sched_.WaitFor(&n);
    sched_.RunUntilIdle();
    EXPECT_EQ(calls, 1);
    return status;
  }

  // Runs one step with Executor::Run (starting on this thread) and returns
  // its retvals in *out; RanOnCaller() then lists the ExecTestWhere nodes
  // that ran on this thread rather than in a scheduled closure.
  absl::Status RunOnCaller(Executor* executor, const DataTypeVector& ret_types,
                           std::vector<Tensor>* out) {
    RanOnCaller().clear();
    FunctionCallFrame frame({}, ret_types);
    Executor::Args args;
    args.call_frame = &frame;
    absl::Status s = executor->Run(args);
    if (!s.ok()) return s;
    return frame.ConsumeRetvals(out);
  }

  // Runs with a call frame; returns the retvals in *out.
  absl::Status RunWithFrame(Executor* executor, const DataTypeVector& arg_types,
                            const std::vector<Tensor>& args,
                            const DataTypeVector& ret_types,
                            std::vector<Tensor>* out,
                            Executor::Args exec_args = Executor::Args()) {
    FunctionCallFrame frame(arg_types, ret_types);
    absl::Status s = frame.SetArgs(args);
    if (!s.ok()) return s;
    exec_args.call_frame = &frame;
    s = Run(executor, exec_args);
    if (!s.ok()) return s;
    return frame.ConsumeRetvals(out);
  }

  // The test scheduler, marking the closures it runs (g_in_closure).
  class FlaggingScheduler : public test::InlineScheduler {
   public:
    void Schedule(Closure fn) override {
      test::InlineScheduler::Schedule([fn = std::move(fn)] {
        g_in_closure = true;
        fn();
        g_in_closure = false;
      });
    }
  };

  FlaggingScheduler sched_;
  SeededRandom random_;
  Env env_;
  std::vector<std::unique_ptr<Device>> devices_;
};

TEST_F(ExecutorTest, Chain) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddTyped(&g, "b", "Identity", {"a"}, DT_FLOAT);
  AddTyped(&g, "c", "Add", {"b", "a"}, DT_FLOAT);
  AddRetval(&g, "r", "c", DT_FLOAT, 0);
  auto ex = BuildOrDie(g);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunWithFrame(ex.get(), {}, {}, {DT_FLOAT}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 4.0f);
  // Steps are independent: run again.
  ASSERT_TRUE(RunWithFrame(ex.get(), {}, {}, {DT_FLOAT}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 4.0f);
}

// An async kernel whose `done` runs before ComputeAsync returns is finished
// in place: its successors run inline, so a chain of them takes as many
// scheduler closures as a chain of synchronous kernels.
TEST_F(ExecutorTest, AsyncKernelDoneAtOnceRunsSuccessorsInline) {
  int closures[2] = {0, 0};
  const char* ops[2] = {"ExecTestAddOne", "ExecTestAddOneAtOnce"};
  for (int i = 0; i < 2; ++i) {
    GraphDef g;
    AddConst(&g, "a", Tensor::Scalar<float>(2));
    AddNode(&g, "x", ops[i], {"a"});
    AddNode(&g, "y", ops[i], {"x"});
    AddNode(&g, "z", ops[i], {"y"});
    AddRetval(&g, "r", "z", DT_FLOAT, 0);
    auto ex = BuildOrDie(g);
    FunctionCallFrame frame({}, {DT_FLOAT});
    Executor::Args args;
    args.call_frame = &frame;
    DoneRecord done;
    Start(ex.get(), args, &done);
    closures[i] = sched_.RunUntilIdle();
    ASSERT_EQ(done.calls, 1) << ops[i];
    EXPECT_TRUE(done.status.ok()) << done.status;
    std::vector<Tensor> out;
    ASSERT_TRUE(frame.ConsumeRetvals(&out).ok());
    EXPECT_EQ(out[0].scalar<float>(), 5.0f) << ops[i];
  }
  EXPECT_GT(closures[0], 0);
  EXPECT_EQ(closures[1], closures[0]);
}

NodeDef* AddWhere(GraphDef* g, const std::string& name, const std::string& in,
                  bool expensive) {
  NodeDef* n = AddNode(g, name, "ExecTestWhere", {in});
  AddNodeAttr("expensive", expensive, n);
  return n;
}

TEST_F(ExecutorTest, RunExecutesASerialStepOnTheCallerWithoutClosures) {
  // One expensive node at a time is still the caller's: it is the step's
  // only worker, so running it here adds no parallelism.
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddWhere(&g, "w0", "a", /*expensive=*/false);
  AddWhere(&g, "e", "w0", /*expensive=*/true);
  AddWhere(&g, "w1", "e", /*expensive=*/false);
  AddRetval(&g, "r", "w1", DT_FLOAT, 0);
  auto ex = BuildOrDie(g);
  const int64_t before = sched_.closures_run();
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOnCaller(ex.get(), {DT_FLOAT}, &out).ok());
  EXPECT_EQ(sched_.closures_run(), before);
  EXPECT_EQ(sched_.NumQueued(), 0u);
  EXPECT_EQ(RanOnCaller(), (std::set<std::string>{"w0", "e", "w1"}));
  EXPECT_EQ(out[0].scalar<float>(), 2.0f);
}

TEST_F(ExecutorTest, RunHandsEverythingOverOnceANodeIsScheduled) {
  // After w0, two expensive nodes and a cheap one are ready: the expensive
  // ones go to the scheduler, and then the caller must not run the cheap
  // one alongside them either.
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddWhere(&g, "w0", "a", /*expensive=*/false);
  AddWhere(&g, "e1", "w0", /*expensive=*/true);
  AddWhere(&g, "e2", "w0", /*expensive=*/true);
  AddWhere(&g, "c", "w0", /*expensive=*/false);
  AddTyped(&g, "sum", "Add", {"e1", "e2"}, DT_FLOAT);
  AddTyped(&g, "total", "Add", {"sum", "c"}, DT_FLOAT);
  AddRetval(&g, "r", "total", DT_FLOAT, 0);
  auto ex = BuildOrDie(g);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOnCaller(ex.get(), {DT_FLOAT}, &out).ok());
  EXPECT_EQ(RanOnCaller(), (std::set<std::string>{"w0"}));
  EXPECT_EQ(RunCount("e1"), 1);
  EXPECT_EQ(RunCount("e2"), 1);
  EXPECT_EQ(RunCount("c"), 1);
  EXPECT_EQ(out[0].scalar<float>(), 6.0f);
}

TEST_F(ExecutorTest, RunHandsOverAfterAnAsyncKernelIsLeftPending) {
  // The cheap async "hold" does not complete at once: the caller hands "w",
  // queued behind it, to the scheduler and waits. A scheduled closure
  // completes the hold later.
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddNode(&g, "hold", "ExecTestHoldCheap");
  AddWhere(&g, "w", "a", /*expensive=*/false);
  AddRetval(&g, "r", "hold", DT_FLOAT, 0);
  AddRetval(&g, "r2", "w", DT_FLOAT, 1);
  auto ex = BuildOrDie(g);
  sched_.Schedule([] { ReleaseHeld(); });
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOnCaller(ex.get(), {DT_FLOAT, DT_FLOAT}, &out).ok());
  EXPECT_TRUE(RanOnCaller().empty());
  EXPECT_EQ(RunCount("hold"), 1);
  EXPECT_EQ(out[0].scalar<float>(), 5.0f);
  EXPECT_EQ(out[1].scalar<float>(), 2.0f);
}

TEST_F(ExecutorTest, RunReturnsTheStepError) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddTyped(&g, "bad", "ExecTestFail", {"a"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  absl::Status s = ex->Run(Executor::Args());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("bad"), std::string::npos) << s;
  EXPECT_EQ(sched_.NumQueued(), 0u);
}

TEST_F(ExecutorTest, RunAsyncRunsNothingInlineAndDoneIsScheduled) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddTyped(&g, "count", "ExecTestCount", {"a"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  int calls = 0;
  ex->RunAsync(Executor::Args(), [&](const absl::Status& s) {
    EXPECT_TRUE(s.ok()) << s;
    ++calls;
  });
  EXPECT_EQ(RunCount("count"), 0);
  EXPECT_EQ(calls, 0);
  EXPECT_GT(sched_.NumQueued(), 0u);
  sched_.RunUntilIdle();
  EXPECT_EQ(RunCount("count"), 1);
  EXPECT_EQ(calls, 1);
}

TEST_F(ExecutorTest, DiamondWithArgs) {
  GraphDef g;
  AddArg(&g, "x", DT_FLOAT, 0);
  AddTyped(&g, "left", "Identity", {"x"}, DT_FLOAT);
  AddTyped(&g, "right", "Add", {"x", "x"}, DT_FLOAT);
  AddTyped(&g, "join", "Add", {"left", "right"}, DT_FLOAT);
  AddRetval(&g, "r", "join", DT_FLOAT, 0);
  AddRetval(&g, "r2", "left", DT_FLOAT, 1);
  auto ex = BuildOrDie(g);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunWithFrame(ex.get(), {DT_FLOAT}, {Tensor::Scalar<float>(3)},
                           {DT_FLOAT, DT_FLOAT}, &out)
                  .ok());
  EXPECT_EQ(out[0].scalar<float>(), 9.0f);
  EXPECT_EQ(out[1].scalar<float>(), 3.0f);
}

TEST_F(ExecutorTest, FanOutFanIn) {
  GraphDef g;
  AddConst(&g, "c", Tensor::Vector<int32_t>({1, 2}));
  std::vector<std::string> branches;
  for (int i = 0; i < 10; ++i) {
    branches.push_back(absl::StrCat("id", i));
    AddTyped(&g, branches.back(), "Identity", {"c"}, DT_INT32);
  }
  NodeDef* sum = AddTyped(&g, "sum", "AddN", branches, DT_INT32);
  AddNodeAttr("N", 10, sum);
  AddRetval(&g, "r", "sum", DT_INT32, 0);
  auto ex = BuildOrDie(g);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunWithFrame(ex.get(), {}, {}, {DT_INT32}, &out).ok());
  ASSERT_EQ(out[0].NumElements(), 2);
  EXPECT_EQ(out[0].flat<int32_t>()(0), 10);
  EXPECT_EQ(out[0].flat<int32_t>()(1), 20);
}

// x, pred -> Switch; false branch counted, true branch doubled; Merge.
GraphDef SwitchMergeGraph() {
  GraphDef g;
  AddArg(&g, "x", DT_FLOAT, 0);
  AddArg(&g, "p", DT_BOOL, 1);
  AddTyped(&g, "s", "Switch", {"x", "p"}, DT_FLOAT);
  AddTyped(&g, "f", "ExecTestCount", {"s:0"}, DT_FLOAT);
  AddTyped(&g, "t", "Add", {"s:1", "s:1"}, DT_FLOAT);
  NodeDef* m = AddTyped(&g, "m", "Merge", {"f", "t"}, DT_FLOAT);
  AddNodeAttr("N", 2, m);
  AddRetval(&g, "r0", "m:0", DT_FLOAT, 0);
  AddRetval(&g, "r1", "m:1", DT_INT32, 1);
  // Control from the true branch: dead when it is not taken.
  AddNode(&g, "after_t", "ExecTestTouch", {"^t"});
  // ControlTrigger turns a dead control into a live one.
  AddNode(&g, "ct", "ControlTrigger", {"^t"});
  AddNode(&g, "after_ct", "ExecTestTouch", {"^ct"});
  // A Merge whose only input is the true branch output.
  NodeDef* md = AddTyped(&g, "m_true_only", "Merge", {"s:1"}, DT_FLOAT);
  AddNodeAttr("N", 1, md);
  AddTyped(&g, "after_m_true_only", "ExecTestCount", {"m_true_only"},
           DT_FLOAT);
  // Dead data input to a non-Merge node with a live second input.
  AddTyped(&g, "mixed", "Add", {"s:1", "x"}, DT_FLOAT);
  AddTyped(&g, "after_mixed", "ExecTestCount", {"mixed"}, DT_FLOAT);
  return g;
}

TEST_F(ExecutorTest, SwitchMergeTrueBranch) {
  auto ex = BuildOrDie(SwitchMergeGraph());
  std::vector<Tensor> out;
  ASSERT_TRUE(RunWithFrame(ex.get(), {DT_FLOAT, DT_BOOL},
                           {Tensor::Scalar<float>(3), Tensor::Scalar<bool>(true)},
                           {DT_FLOAT, DT_INT32}, &out)
                  .ok());
  EXPECT_EQ(out[0].scalar<float>(), 6.0f);
  EXPECT_EQ(out[1].scalar<int32_t>(), 1);
  EXPECT_EQ(RunCount("f"), 0);  // Dead: did not run.
  EXPECT_EQ(RunCount("after_t"), 1);
  EXPECT_EQ(RunCount("after_ct"), 1);
  EXPECT_EQ(RunCount("after_m_true_only"), 1);
  EXPECT_EQ(RunCount("after_mixed"), 1);
}

TEST_F(ExecutorTest, SwitchMergeFalseBranch) {
  auto ex = BuildOrDie(SwitchMergeGraph());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunWithFrame(ex.get(), {DT_FLOAT, DT_BOOL},
                   {Tensor::Scalar<float>(3), Tensor::Scalar<bool>(false)},
                   {DT_FLOAT, DT_INT32}, &out)
          .ok());
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
  EXPECT_EQ(out[1].scalar<int32_t>(), 0);
  EXPECT_EQ(RunCount("f"), 1);
  EXPECT_EQ(RunCount("after_t"), 0);   // Dead control.
  EXPECT_EQ(RunCount("after_ct"), 1);  // Through ControlTrigger.
  EXPECT_EQ(RunCount("after_m_true_only"), 0);  // All Merge inputs dead.
  EXPECT_EQ(RunCount("after_mixed"), 0);        // Any dead input kills.
}

TEST_F(ExecutorTest, KernelErrorIsReturnedAndAbortsRendezvous) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddTyped(&g, "bad", "ExecTestFail", {"a"}, DT_FLOAT);
  AddTyped(&g, "after_bad", "ExecTestCount", {"bad"}, DT_FLOAT);
  AddNode(&g, "ctrl_after_bad", "ExecTestTouch", {"^bad"});
  auto ex = BuildOrDie(g);
  auto* rendez = new IntraProcessRendezvous;
  Executor::Args args;
  args.rendezvous = rendez;
  absl::Status s = Run(ex.get(), args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "kernel failed on purpose")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node bad}}")) << s;
  EXPECT_EQ(RunCount("bad"), 1);
  EXPECT_EQ(RunCount("after_bad"), 0);
  EXPECT_EQ(RunCount("ctrl_after_bad"), 0);
  // The rendezvous was aborted with the root cause.
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(Rendezvous::ParseKey(
                  Rendezvous::CreateKey(cpu0()->name(), 1, cpu1()->name(), "k",
                                        FrameAndIter()),
                  &key)
                  .ok());
  absl::Status send = rendez->Send(key, Rendezvous::Args(), Tensor(), false);
  EXPECT_EQ(send.code(), absl::StatusCode::kInvalidArgument);
  rendez->Unref();
}

TEST_F(ExecutorTest, MissingOutputIsInternal) {
  GraphDef g;
  AddNode(&g, "lazy", "ExecTestNoOutput");
  AddTyped(&g, "after", "ExecTestCount", {"lazy"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  absl::Status s = Run(ex.get(), Executor::Args());
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "{{node lazy}} did not produce output 0"))
      << s;
  EXPECT_EQ(RunCount("after"), 0);
}

TEST_F(ExecutorTest, ValueForRefOutputIsInternal) {
  GraphDef g;
  AddNode(&g, "refish", "ExecTestRefAsValue");
  auto ex = BuildOrDie(g);
  absl::Status s = Run(ex.get(), Executor::Args());
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node refish}}")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "float_ref")) << s;
}

TEST_F(ExecutorTest, RefInputsAreDereferenced) {
  GraphDef g;
  NodeDef* v = AddNode(&g, "v", "ExecTestVar");
  AddNodeAttr("initialized", true, v);
  AddTyped(&g, "read", "Identity", {"v"}, DT_FLOAT);
  AddRetval(&g, "r", "read", DT_FLOAT, 0);
  auto ex = BuildOrDie(g);
  std::vector<Tensor> out;
  absl::Status s = RunWithFrame(ex.get(), {}, {}, {DT_FLOAT}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 7.0f);
}

TEST_F(ExecutorTest, UninitializedRefIsFailedPrecondition) {
  GraphDef g;
  NodeDef* v = AddNode(&g, "v", "ExecTestVar");
  AddNodeAttr("initialized", false, v);
  AddTyped(&g, "read", "Identity", {"v"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  absl::Status s = Run(ex.get(), Executor::Args());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "Attempting to use uninitialized value v"))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node read}}")) << s;
}

TEST_F(ExecutorTest, DoneWaitsForInFlightKernelsAfterError) {
  // `hold` starts and stays in flight; then the Recv gets its value and
  // `bad` fails. The step must not finish before `hold` does.
  GraphDef g;
  AddNode(&g, "hold", "ExecTestHold");
  AddTyped(&g, "after_hold", "ExecTestCount", {"hold"}, DT_FLOAT);
  AddRecv(&g, "recv", DT_FLOAT, "trigger", cpu0(), cpu1());
  AddTyped(&g, "bad", "ExecTestFail", {"recv"}, DT_FLOAT);
  auto ex = BuildOrDie(g, cpu1());
  auto* rendez = new IntraProcessRendezvous;
  Executor::Args args;
  args.rendezvous = rendez;
  DoneRecord done;
  Start(ex.get(), args, &done);
  sched_.RunUntilIdle();
  ASSERT_EQ(RunCount("hold"), 1);
  ASSERT_EQ(RunCount("bad"), 0);
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(Rendezvous::ParseKey(
                  Rendezvous::CreateKey(cpu0()->name(), cpu0()->incarnation(),
                                        cpu1()->name(), "trigger",
                                        FrameAndIter()),
                  &key)
                  .ok());
  ASSERT_TRUE(
      rendez->Send(key, Rendezvous::Args(), Tensor::Scalar<float>(1), false)
          .ok());
  sched_.RunUntilIdle();
  ASSERT_EQ(RunCount("bad"), 1);
  EXPECT_EQ(done.calls, 0);  // The held kernel is still running.
  ReleaseHeld();
  sched_.RunUntilIdle();
  EXPECT_EQ(done.calls, 1);
  EXPECT_EQ(done.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunCount("after_hold"), 0);  // Nothing new starts after an error.
  rendez->Unref();
}

TEST_F(ExecutorTest, AsyncKernelCompletesLater) {
  GraphDef g;
  AddNode(&g, "hold", "ExecTestHold");
  AddTyped(&g, "plus", "Add", {"hold", "hold"}, DT_FLOAT);
  AddRetval(&g, "r", "plus", DT_FLOAT, 0);
  auto ex = BuildOrDie(g);
  FunctionCallFrame frame({}, {DT_FLOAT});
  Executor::Args args;
  args.call_frame = &frame;
  DoneRecord done;
  Start(ex.get(), args, &done);
  sched_.RunUntilIdle();
  EXPECT_EQ(done.calls, 0);
  ReleaseHeld();
  sched_.RunUntilIdle();
  EXPECT_EQ(done.calls, 1);
  EXPECT_TRUE(done.status.ok()) << done.status;
  std::vector<Tensor> out;
  ASSERT_TRUE(frame.ConsumeRetvals(&out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 10.0f);
}

// Two executors (one per device) exchanging values through a shared
// rendezvous; the _Recv is asynchronous.
class TwoDeviceTest : public ExecutorTest {
 protected:
  // cpu0: x(arg) -> Switch(x, p) -> s:1 -> _Send. cpu1: _Recv -> Count ->
  // Add(recv, recv) -> retval; plus a dead-tolerant ControlTrigger path.
  void BuildPair() {
    GraphDef g0;
    AddArg(&g0, "x", DT_FLOAT, 0);
    AddArg(&g0, "p", DT_BOOL, 1);
    AddTyped(&g0, "s", "Switch", {"x", "p"}, DT_FLOAT);
    AddSend(&g0, "send", "s:1", DT_FLOAT, "edge_1_s", cpu0(), cpu1());
    sender_ = BuildOrDie(g0, cpu0());

    GraphDef g1;
    AddRecv(&g1, "recv", DT_FLOAT, "edge_1_s", cpu0(), cpu1());
    AddTyped(&g1, "count", "ExecTestCount", {"recv"}, DT_FLOAT);
    AddTyped(&g1, "twice", "Add", {"count", "count"}, DT_FLOAT);
    NodeDef* m = AddTyped(&g1, "m", "Merge", {"twice"}, DT_FLOAT);
    AddNodeAttr("N", 1, m);
    AddNode(&g1, "ct", "ControlTrigger", {"^m"});
    AddNode(&g1, "after_ct", "ExecTestTouch", {"^ct"});
    receiver_ = BuildOrDie(g1, cpu1());
  }

  // Runs both executors in the given order; returns their statuses.
  void RunPair(bool pred, bool receiver_first, absl::Status* s0,
               absl::Status* s1, FunctionCallFrame* frame,
               CancellationManager* cm = nullptr) {
    auto* rendez = new IntraProcessRendezvous;
    Executor::Args args;
    args.rendezvous = rendez;
    args.call_frame = frame;
    args.cancellation_manager = cm;
    ASSERT_TRUE(frame
                    ->SetArgs({Tensor::Scalar<float>(4),
                               Tensor::Scalar<bool>(pred)})
                    .ok());
    Notification n0, n1;
    auto run = [&](Executor* ex, absl::Status* s, Notification* n) {
      ex->RunAsync(args, [s, n](const absl::Status& st) {
        *s = st;
        n->Notify();
      });
    };
    if (receiver_first) {
      run(receiver_.get(), s1, &n1);
      sched_.RunUntilIdle();  // The Recv is now waiting.
      run(sender_.get(), s0, &n0);
    } else {
      run(sender_.get(), s0, &n0);
      sched_.RunUntilIdle();  // The value is now waiting.
      run(receiver_.get(), s1, &n1);
    }
    sched_.WaitFor(&n0);
    sched_.WaitFor(&n1);
    EXPECT_EQ(rendez->NumPendingForTest(), 0u);
    rendez->Unref();
  }

  std::unique_ptr<Executor> sender_;
  std::unique_ptr<Executor> receiver_;
};

TEST_F(TwoDeviceTest, LiveValueEitherOrder) {
  BuildPair();
  for (bool receiver_first : {false, true}) {
    ResetRunCounts();
    FunctionCallFrame frame({DT_FLOAT, DT_BOOL}, {});
    absl::Status s0, s1;
    RunPair(/*pred=*/true, receiver_first, &s0, &s1, &frame);
    EXPECT_TRUE(s0.ok()) << s0;
    EXPECT_TRUE(s1.ok()) << s1;
    EXPECT_EQ(RunCount("count"), 1) << receiver_first;
    EXPECT_EQ(RunCount("after_ct"), 1);
  }
}

TEST_F(TwoDeviceTest, DeadValueCrossesDevices) {
  BuildPair();
  for (bool receiver_first : {false, true}) {
    ResetRunCounts();
    FunctionCallFrame frame({DT_FLOAT, DT_BOOL}, {});
    absl::Status s0, s1;
    RunPair(/*pred=*/false, receiver_first, &s0, &s1, &frame);
    EXPECT_TRUE(s0.ok()) << s0;
    EXPECT_TRUE(s1.ok()) << s1;
    EXPECT_EQ(RunCount("count"), 0) << receiver_first;  // Dead on arrival.
    EXPECT_EQ(RunCount("after_ct"), 1);
  }
}

TEST_F(TwoDeviceTest, RecvResultReachesRetval) {
  GraphDef g0;
  AddConst(&g0, "c", Tensor::Vector<float>({1, 2, 3}));
  AddSend(&g0, "send", "c", DT_FLOAT, "edge_7_c", cpu0(), cpu1());
  auto sender = BuildOrDie(g0, cpu0());
  GraphDef g1;
  AddRecv(&g1, "recv", DT_FLOAT, "edge_7_c", cpu0(), cpu1());
  AddRetval(&g1, "r", "recv", DT_FLOAT, 0);
  auto receiver = BuildOrDie(g1, cpu1());

  auto* rendez = new IntraProcessRendezvous;
  FunctionCallFrame frame({}, {DT_FLOAT});
  Executor::Args args;
  args.rendezvous = rendez;
  args.call_frame = &frame;
  Notification n0, n1;
  absl::Status s0, s1;
  receiver->RunAsync(args, [&](const absl::Status& s) {
    s1 = s;
    n1.Notify();
  });
  sender->RunAsync(args, [&](const absl::Status& s) {
    s0 = s;
    n0.Notify();
  });
  sched_.WaitFor(&n0);
  sched_.WaitFor(&n1);
  ASSERT_TRUE(s0.ok()) << s0;
  ASSERT_TRUE(s1.ok()) << s1;
  std::vector<Tensor> out;
  ASSERT_TRUE(frame.ConsumeRetvals(&out).ok());
  ASSERT_EQ(out[0].NumElements(), 3);
  EXPECT_EQ(out[0].flat<float>()(2), 3.0f);
  rendez->Unref();
}

TEST_F(TwoDeviceTest, ErrorOnOneDeviceIsRootCauseOnBoth) {
  GraphDef g0;
  AddConst(&g0, "c", Tensor::Scalar<float>(1));
  AddTyped(&g0, "bad", "ExecTestFail", {"c"}, DT_FLOAT);
  AddSend(&g0, "send", "bad", DT_FLOAT, "edge_2_bad", cpu0(), cpu1());
  auto sender = BuildOrDie(g0, cpu0());
  GraphDef g1;
  AddRecv(&g1, "recv", DT_FLOAT, "edge_2_bad", cpu0(), cpu1());
  AddTyped(&g1, "count", "ExecTestCount", {"recv"}, DT_FLOAT);
  auto receiver = BuildOrDie(g1, cpu1());

  auto* rendez = new IntraProcessRendezvous;
  CancellationManager cm;
  Executor::Args args;
  args.rendezvous = rendez;
  args.cancellation_manager = &cm;
  Notification n0, n1;
  absl::Status s0, s1;
  receiver->RunAsync(args, [&](const absl::Status& s) {
    s1 = s;
    n1.Notify();
  });
  sched_.RunUntilIdle();  // Recv waiting.
  sender->RunAsync(args, [&](const absl::Status& s) {
    s0 = s;
    n0.Notify();
  });
  sched_.WaitFor(&n0);
  sched_.WaitFor(&n1);
  EXPECT_EQ(s0.code(), absl::StatusCode::kInvalidArgument) << s0;
  EXPECT_EQ(s1.code(), absl::StatusCode::kInvalidArgument) << s1;
  EXPECT_TRUE(absl::StrContains(s1.message(), "kernel failed on purpose"))
      << s1;
  EXPECT_EQ(RunCount("count"), 0);
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
  rendez->Unref();
}

TEST_F(ExecutorTest, CancellationEndsStepWithCancelled) {
  GraphDef g;
  AddRecv(&g, "recv", DT_FLOAT, "never_sent", cpu0(), cpu1());
  AddTyped(&g, "count", "ExecTestCount", {"recv"}, DT_FLOAT);
  auto ex = BuildOrDie(g, cpu1());
  auto* rendez = new IntraProcessRendezvous;
  CancellationManager cm;
  Executor::Args args;
  args.rendezvous = rendez;
  args.cancellation_manager = &cm;
  DoneRecord done;
  Start(ex.get(), args, &done);
  sched_.RunUntilIdle();
  EXPECT_EQ(done.calls, 0);  // Stuck in the Recv.
  EXPECT_EQ(rendez->NumPendingForTest(), 1u);
  cm.StartCancel();
  sched_.RunUntilIdle();
  EXPECT_EQ(done.calls, 1);
  EXPECT_EQ(done.status.code(), absl::StatusCode::kCancelled) << done.status;
  EXPECT_EQ(RunCount("count"), 0);
  EXPECT_EQ(rendez->NumPendingForTest(), 0u);
  // The rendezvous was aborted with Cancelled.
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(Rendezvous::ParseKey(
                  Rendezvous::CreateKey(cpu0()->name(), 1, cpu1()->name(), "k",
                                        FrameAndIter()),
                  &key)
                  .ok());
  EXPECT_EQ(rendez->Send(key, Rendezvous::Args(), Tensor(), false).code(),
            absl::StatusCode::kCancelled);
  rendez->Unref();
}

TEST_F(ExecutorTest, CancellationByTimer) {
  GraphDef g;
  AddRecv(&g, "recv", DT_FLOAT, "never_sent", cpu0(), cpu1());
  auto ex = BuildOrDie(g, cpu1());
  auto* rendez = new IntraProcessRendezvous;
  CancellationManager cm;
  Executor::Args args;
  args.rendezvous = rendez;
  args.cancellation_manager = &cm;
  sched_.ScheduleAfter(1000000, [&cm] { cm.StartCancel(); });
  absl::Status s = Run(ex.get(), args);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  rendez->Unref();
}

TEST_F(ExecutorTest, AlreadyCancelledRunsNothing) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddTyped(&g, "count", "ExecTestCount", {"a"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  CancellationManager cm;
  cm.StartCancel();
  Executor::Args args;
  args.cancellation_manager = &cm;
  absl::Status s = Run(ex.get(), args);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(RunCount("count"), 0);
}

TEST_F(ExecutorTest, SuccessfulStepDeregistersCancellation) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  auto ex = BuildOrDie(g);
  CancellationManager cm;
  Executor::Args args;
  args.cancellation_manager = &cm;
  ASSERT_TRUE(Run(ex.get(), args).ok());
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
  cm.StartCancel();  // Must not touch the finished step.
}

TEST_F(ExecutorTest, StepStats) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Vector<float>({1, 2}));
  AddTyped(&g, "b", "Identity", {"a"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  StepStatsCollector collector;
  Executor::Args args;
  args.stats_collector = &collector;
  const int64_t now = sched_.clock()->NowNanos();
  ASSERT_TRUE(Run(ex.get(), args).ok());
  StepStats ss;
  collector.Finalize(&ss);
  ASSERT_EQ(ss.dev_stats_size(), 1);
  const DeviceStepStats& dev = ss.dev_stats(0);
  EXPECT_EQ(dev.device(), cpu0()->name());
  ASSERT_EQ(dev.node_stats_size(), 2);  // Op nodes only.
  std::map<std::string, const NodeExecStats*> by_name;
  for (const NodeExecStats& n : dev.node_stats()) by_name[n.node_name()] = &n;
  ASSERT_EQ(by_name.count("a"), 1u);
  ASSERT_EQ(by_name.count("b"), 1u);
  const NodeExecStats& b = *by_name["b"];
  EXPECT_EQ(b.timeline_label(), "b = Identity(a)");
  EXPECT_EQ(b.all_start_nanos(), now);
  EXPECT_EQ(b.all_start_micros(), now / 1000);
  EXPECT_GE(b.all_end_rel_nanos(), b.op_end_rel_nanos());
  ASSERT_EQ(b.output_size(), 1);
  EXPECT_EQ(b.output(0).slot(), 0);
  EXPECT_EQ(b.output(0).tensor_description().dtype(), DT_FLOAT);
  ASSERT_EQ(b.output(0).tensor_description().shape().dim_size(), 1);
  EXPECT_EQ(b.output(0).tensor_description().shape().dim(0).size(), 2);
  EXPECT_EQ(by_name["a"]->timeline_label(), "a = Const()");
}

TEST_F(ExecutorTest, NoOpsOrderTheirControlSuccessorsAndAreTraced) {
  // NoOps skip their kernel call when untraced; they must still gate their
  // control successors, and still appear in step stats when traced.
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  AddNode(&g, "gate", "NoOp", {"^a"});
  AddNode(&g, "gate2", "NoOp", {"^gate"});
  AddTyped(&g, "count", "ExecTestCount", {"a", "^gate2"}, DT_FLOAT);
  auto ex = BuildOrDie(g);
  ASSERT_TRUE(Run(ex.get(), Executor::Args()).ok());
  EXPECT_EQ(RunCount("count"), 1);
  StepStatsCollector collector;
  Executor::Args args;
  args.stats_collector = &collector;
  ASSERT_TRUE(Run(ex.get(), args).ok());
  EXPECT_EQ(RunCount("count"), 2);
  StepStats ss;
  collector.Finalize(&ss);
  ASSERT_EQ(ss.dev_stats_size(), 1);
  std::set<std::string> traced;
  for (const NodeExecStats& n : ss.dev_stats(0).node_stats()) {
    traced.insert(n.node_name());
  }
  EXPECT_EQ(traced, (std::set<std::string>{"a", "gate", "gate2", "count"}));
}

// A device with an allocator of its own reports its memory use into every
// traced kernel's stats.
class AllocatorReportingDevice : public Device {
 public:
  using Device::Device;
  bool GetAllocatorMemoryUsed(AllocatorMemoryUsed* used) const override {
    used->set_allocator_name("test_pool");
    used->set_peak_bytes(4096);
    used->set_live_bytes(1024);
    return true;
  }
};

TEST_F(ExecutorTest, StepStatsCarryTheDevicesAllocatorMemory) {
  AllocatorReportingDevice device(
      &env_, Device::BuildDeviceAttributes(
                 "/job:localhost/replica:0/task:0/device:CPU:7", "CPU", 0, 7));
  GraphDef g;
  AddConst(&g, "a", Tensor::Vector<float>({1, 2}));
  AddTyped(&g, "b", "Identity", {"a"}, DT_FLOAT);
  std::unique_ptr<Executor> ex;
  ASSERT_TRUE(Build(g, &device, &ex).ok());
  StepStatsCollector collector;
  Executor::Args args;
  args.stats_collector = &collector;
  ASSERT_TRUE(Run(ex.get(), args).ok());
  StepStats ss;
  collector.Finalize(&ss);
  ASSERT_EQ(ss.dev_stats_size(), 1);
  for (const NodeExecStats& n : ss.dev_stats(0).node_stats()) {
    ASSERT_EQ(n.memory_size(), 1) << n.node_name();
    EXPECT_EQ(n.memory(0).allocator_name(), "test_pool");
    EXPECT_EQ(n.memory(0).peak_bytes(), 4096);
    EXPECT_EQ(n.memory(0).live_bytes(), 1024);
  }
  // CPU devices keep none.
  auto cpu_ex = BuildOrDie(g);
  StepStatsCollector cpu_collector;
  args.stats_collector = &cpu_collector;
  ASSERT_TRUE(Run(cpu_ex.get(), args).ok());
  cpu_collector.Finalize(&ss);
  EXPECT_EQ(ss.dev_stats(0).node_stats(0).memory_size(), 0);
}

TEST_F(ExecutorTest, StepStatsTimesFollowTheClock) {
  GraphDef g;
  AddNode(&g, "hold", "ExecTestHold");
  auto ex = BuildOrDie(g);
  StepStatsCollector collector;
  Executor::Args args;
  args.stats_collector = &collector;
  int calls = 0;
  ex->RunAsync(args, [&](const absl::Status&) { ++calls; });
  sched_.RunUntilIdle();
  sched_.AdvanceClock(5000000);  // 5ms while the kernel is running.
  ReleaseHeld();
  sched_.RunUntilIdle();
  ASSERT_EQ(calls, 1);
  StepStats ss;
  collector.Finalize(&ss);
  ASSERT_EQ(ss.dev_stats_size(), 1);
  ASSERT_EQ(ss.dev_stats(0).node_stats_size(), 1);
  const NodeExecStats& n = ss.dev_stats(0).node_stats(0);
  EXPECT_EQ(n.op_start_rel_nanos(), 0);
  EXPECT_EQ(n.op_end_rel_nanos(), 5000000);
  EXPECT_EQ(n.op_end_rel_micros(), 5000);
  EXPECT_EQ(n.all_end_rel_nanos(), 5000000);
}

TEST_F(ExecutorTest, KernelCreationErrorNamesNode) {
  GraphDef g;
  AddNode(&g, "nokernel", "ExecTestNoKernel");
  std::unique_ptr<Executor> ex;
  absl::Status s = Build(g, cpu0(), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "nokernel")) << s;
  EXPECT_EQ(ex, nullptr);
}

TEST_F(ExecutorTest, CustomCreateKernelErrorIsAnnotated) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  auto graph = std::make_unique<Graph>();
  GraphConstructorOptions opts;
  ASSERT_TRUE(ConvertGraphDefToGraph(opts, g, graph.get()).ok());
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  params.create_kernel = [](const NodeDef&, std::unique_ptr<OpKernel>*) {
    return absl::ResourceExhaustedError("no room");
  };
  std::unique_ptr<Executor> ex;
  absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node a}}")) << s;
}

TEST_F(ExecutorTest, ExitOutsideALoopIsInvalidArgument) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  AddTyped(&g, "exit", "Exit", {"a"}, DT_FLOAT);
  std::unique_ptr<Executor> ex;
  absl::Status s = Build(g, cpu0(), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node exit}}")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "outside any loop frame")) << s;
}

TEST_F(ExecutorTest, InputsFromDifferentFramesAreInvalidArgument) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  NodeDef* e = AddTyped(&g, "enter", "Enter", {"a"}, DT_FLOAT);
  AddNodeAttr("frame_name", "loop", e);
  // `mix` reads a value inside frame "loop" and one from the root frame.
  AddTyped(&g, "mix", "Add", {"enter", "a"}, DT_FLOAT);
  std::unique_ptr<Executor> ex;
  absl::Status s = Build(g, cpu0(), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node mix}}")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "different frames")) << s;
}

TEST_F(ExecutorTest, UnconnectedInputIsInvalidArgument) {
  auto graph = std::make_unique<Graph>();
  NodeDef def;
  def.set_name("lonely");
  def.set_op("Identity");
  def.add_input("missing");  // Listed, but no edge is ever added.
  AddNodeAttr("T", DT_FLOAT, &def);
  ASSERT_TRUE(graph->AddNode(def).ok());
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  std::unique_ptr<Executor> ex;
  absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node lonely}} input 0"))
      << s;
}

TEST_F(ExecutorTest, CycleIsInvalidArgument) {
  auto graph = std::make_unique<Graph>();
  NodeDef def;
  def.set_op("Identity");
  AddNodeAttr("T", DT_FLOAT, &def);
  def.add_input("");
  def.set_name("x");
  def.set_input(0, "y");
  Node* x = graph->AddNode(def).value();
  def.set_name("y");
  def.set_input(0, "x");
  Node* y = graph->AddNode(def).value();
  graph->AddEdge(x, 0, y, 0);
  graph->AddEdge(y, 0, x, 0);
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  std::unique_ptr<Executor> ex;
  absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "cycle")) << s;
}

TEST_F(ExecutorTest, EmptyGraphCompletes) {
  auto graph = std::make_unique<Graph>();
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  std::unique_ptr<Executor> ex;
  ASSERT_TRUE(NewLocalExecutor(params, std::move(graph), &ex).ok());
  EXPECT_TRUE(Run(ex.get(), Executor::Args()).ok());
}

// Many concurrent steps on a real thread pool.
TEST(ExecutorThreadPoolTest, ManyConcurrentSteps) {
  SystemClock clock;
  ThreadPoolScheduler sched(4, &clock);
  SeededRandom random(99);
  Env env;
  env.clock = &clock;
  env.scheduler = &sched;
  env.random = &random;
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(AddCpuDevices(&env, 2, "/job:localhost/replica:0/task:0",
                            &devices)
                  .ok());
  Device* d0 = devices[0].get();
  Device* d1 = devices[1].get();

  // cpu0: x -> 8 expensive branches (x+1) -> Add(x) -> AddN -> _Send, the
  // _Send also waiting (control edges) for a NoOp that waits for every
  // branch. cpu1: _Recv -> Identity -> _Retval. Result: 8 * (2x + 1).
  // cpu0's graph has no control flow, so its successors are counted down
  // without the frame lock, by branches finishing on different threads.
  GraphDef g0;
  AddArg(&g0, "x", DT_FLOAT, 0);
  std::vector<std::string> sums;
  std::vector<std::string> branches;
  for (int i = 0; i < 8; ++i) {
    const std::string e = absl::StrCat("e", i);
    AddNode(&g0, e, "ExecTestExpensive", {"x"});
    branches.push_back(absl::StrCat("^", e));
    sums.push_back(absl::StrCat("s", i));
    AddTyped(&g0, sums.back(), "Add", {e, "x"}, DT_FLOAT);
  }
  AddNode(&g0, "join", "NoOp", branches);
  NodeDef* total = AddTyped(&g0, "total", "AddN", sums, DT_FLOAT);
  AddNodeAttr("N", 8, total);
  NodeDef* send = AddSend(&g0, "send", "total", DT_FLOAT, "edge_total", d0, d1);
  send->add_input("^join");
  GraphDef g1;
  AddRecv(&g1, "recv", DT_FLOAT, "edge_total", d0, d1);
  AddTyped(&g1, "out", "Identity", {"recv"}, DT_FLOAT);
  AddRetval(&g1, "r", "out", DT_FLOAT, 0);

  auto build = [&](const GraphDef& def, Device* d) {
    auto graph = std::make_unique<Graph>();
    GraphConstructorOptions opts;
    opts.allow_internal_ops = true;
    EXPECT_TRUE(ConvertGraphDefToGraph(opts, def, graph.get()).ok());
    LocalExecutorParams params;
    params.device = d;
    params.env = &env;
    std::unique_ptr<Executor> ex;
    absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
    EXPECT_TRUE(s.ok()) << s;
    return ex;
  };
  auto ex0 = build(g0, d0);
  auto ex1 = build(g1, d1);
  ASSERT_NE(ex0, nullptr);
  ASSERT_NE(ex1, nullptr);

  constexpr int kSteps = 200;
  struct Step {
    std::unique_ptr<FunctionCallFrame> frame;
    IntraProcessRendezvous* rendez = nullptr;
    CancellationManager cm;
  };
  std::vector<Step> steps(kSteps);
  std::atomic<int> remaining{2 * kSteps};
  std::atomic<int> failures{0};
  Notification all_done;
  for (int i = 0; i < kSteps; ++i) {
    Step& st = steps[i];
    st.frame = std::make_unique<FunctionCallFrame>(DataTypeVector{DT_FLOAT},
                                                   DataTypeVector{DT_FLOAT});
    ASSERT_TRUE(st.frame->SetArgs({Tensor::Scalar<float>(i)}).ok());
    st.rendez = new IntraProcessRendezvous;
    Executor::Args args;
    args.step_id = i + 1;
    args.rendezvous = st.rendez;
    args.call_frame = st.frame.get();
    args.cancellation_manager = &st.cm;
    auto done = [&](const absl::Status& s) {
      if (!s.ok()) ++failures;
      if (--remaining == 0) all_done.Notify();
    };
    // Alternate which side starts first.
    if (i % 2 == 0) {
      ex0->RunAsync(args, done);
      ex1->RunAsync(args, done);
    } else {
      ex1->RunAsync(args, done);
      ex0->RunAsync(args, done);
    }
  }
  sched.WaitFor(&all_done);
  EXPECT_EQ(failures.load(), 0);
  for (int i = 0; i < kSteps; ++i) {
    std::vector<Tensor> out;
    ASSERT_TRUE(steps[i].frame->ConsumeRetvals(&out).ok()) << i;
    EXPECT_EQ(out[0].scalar<float>(), 8.0f * (2 * i + 1)) << i;
    EXPECT_EQ(steps[i].rendez->NumPendingForTest(), 0u);
    EXPECT_EQ(steps[i].cm.NumRegisteredCallbacks(), 0u);
    steps[i].rendez->Unref();
  }
}

}  // namespace
}  // namespace stepflow
