// The executor's execution model (executor.h): readiness, inline and
// scheduled nodes, Run on the caller's thread, Switch/Merge deadness,
// kernel errors, references, async kernels, and many steps at once on a
// thread pool. Step arguments (rendezvous, cancellation, step stats) are
// in executor_step_args_test.cc, loops in executor_loop_test.cc, graph
// checks in immutable_executor_state_test.cc.
#include "runtime/common/executor.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/graph.pb.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/executor_testutil.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/random.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace test {
namespace {

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
  AddTyped(&g, "after_m_true_only", "ExecTestCount", {"m_true_only"}, DT_FLOAT);
  // Dead data input to a non-Merge node with a live second input.
  AddTyped(&g, "mixed", "Add", {"s:1", "x"}, DT_FLOAT);
  AddTyped(&g, "after_mixed", "ExecTestCount", {"mixed"}, DT_FLOAT);
  return g;
}

TEST_F(ExecutorTest, SwitchMergeTrueBranch) {
  auto ex = BuildOrDie(SwitchMergeGraph());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunWithFrame(ex.get(), {DT_FLOAT, DT_BOOL},
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
  EXPECT_EQ(RunCount("after_t"), 0);            // Dead control.
  EXPECT_EQ(RunCount("after_ct"), 1);           // Through ControlTrigger.
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
  EXPECT_TRUE(
      absl::StrContains(s.message(), "{{node lazy}} did not produce output 0"))
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
  EXPECT_TRUE(
      absl::StrContains(s.message(), "Attempting to use uninitialized value v"))
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
  ASSERT_TRUE(
      Rendezvous::ParseKey(
          Rendezvous::CreateKey(cpu0()->name(), cpu0()->incarnation(),
                                cpu1()->name(), "trigger", FrameAndIter()),
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

// A kernel that throws std::bad_alloc (sync or async) fails the step with
// ResourceExhausted naming the node; its successors never run and the
// process lives to run the next step.
TEST_F(ExecutorTest, KernelBadAllocIsResourceExhaustedForTheNode) {
  for (const char* op : {"ExecTestThrowOom", "ExecTestThrowOomAsync"}) {
    GraphDef g;
    AddConst(&g, "a", Tensor::Scalar<float>(2));
    AddTyped(&g, "oom", op, {"a"}, DT_FLOAT);
    AddTyped(&g, "after_oom", "ExecTestCount", {"oom"}, DT_FLOAT);
    auto ex = BuildOrDie(g);
    for (int step = 0; step < 2; ++step) {
      absl::Status s = Run(ex.get(), Executor::Args());
      EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << op << s;
      EXPECT_TRUE(absl::StrContains(s.message(), "{{node oom}}")) << s;
      EXPECT_TRUE(absl::StrContains(s.message(), op)) << s;
    }
    EXPECT_EQ(RunCount("oom"), 2);
    EXPECT_EQ(RunCount("after_oom"), 0);
    ResetTestKernels();
  }
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
  ASSERT_TRUE(
      AddCpuDevices(&env, 2, "/job:localhost/replica:0/task:0", &devices).ok());
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
    std::unique_ptr<Executor> ex;
    absl::Status s = BuildExecutor(def, d, &env, &ex);
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
}  // namespace test
}  // namespace stepflow
