// Executor loop frames (Enter/Merge/Switch/LoopCond/NextIteration/Exit), on
// the deterministic inline scheduler and on a real thread pool.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/graph.pb.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/executor.h"
#include "runtime/common/executor_testutil.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/random.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace test {
namespace {

// while i < n: acc += i; x *= 2; i += 1. Returns (i, acc, x).
GraphDef SumAndDoubleLoop(int n, int parallel_iterations) {
  GraphDef g;
  AddConst(&g, "zero", I32(0));
  AddConst(&g, "n", I32(n));
  AddConst(&g, "x0", Tensor::Scalar<float>(1));
  const std::string f = "while/while_context";
  LoopVar i = AddLoopVar(&g, "i", "zero", DT_INT32, f, parallel_iterations);
  LoopVar acc = AddLoopVar(&g, "acc", "zero", DT_INT32, f, parallel_iterations);
  LoopVar x = AddLoopVar(&g, "x", "x0", DT_FLOAT, f, parallel_iterations);
  AddEnter(&g, "n/enter", "n", DT_INT32, f, true, parallel_iterations);
  const std::string cond = AddLessCond(&g, "c", i.merge(), "n/enter");
  for (const LoopVar& v : {i, acc, x}) AddLoopSwitch(&g, v, cond);
  AddConst(&g, "one", I32(1), {"^" + i.body()});
  AddConst(&g, "two", Tensor::Scalar<float>(2), {"^" + i.body()});
  AddTyped(&g, "i_next", "Add", {i.body(), "one"}, DT_INT32);
  AddTyped(&g, "acc_next", "Add", {acc.body(), i.body()}, DT_INT32);
  AddTyped(&g, "x_next", "Mul", {x.body(), "two"}, DT_FLOAT);
  AddLoopNext(&g, i, "i_next");
  AddLoopNext(&g, acc, "acc_next");
  AddLoopNext(&g, x, "x_next");
  AddRetval(&g, "r_i", i.exit(), DT_INT32, 0);
  AddRetval(&g, "r_acc", acc.exit(), DT_INT32, 1);
  AddRetval(&g, "r_x", x.exit(), DT_FLOAT, 2);
  return g;
}

// for i < outer: for j < inner: count += 1. Returns (count, i). The inner
// body is counted by "inner_count".
GraphDef NestedLoop(int outer, int inner, int parallel_iterations) {
  GraphDef g;
  AddConst(&g, "zero", I32(0));
  AddConst(&g, "outer_n", I32(outer));
  LoopVar i =
      AddLoopVar(&g, "i", "zero", DT_INT32, "outer", parallel_iterations);
  LoopVar c =
      AddLoopVar(&g, "c", "zero", DT_INT32, "outer", parallel_iterations);
  AddEnter(&g, "outer_n/enter", "outer_n", DT_INT32, "outer", true,
           parallel_iterations);
  const std::string ocond = AddLessCond(&g, "oc", i.merge(), "outer_n/enter");
  AddLoopSwitch(&g, i, ocond);
  AddLoopSwitch(&g, c, ocond);
  // Inner loop, entered from the outer body.
  AddConst(&g, "inner_zero", I32(0), {"^" + i.body()});
  AddConst(&g, "inner_n", I32(inner), {"^" + i.body()});
  LoopVar j =
      AddLoopVar(&g, "j", "inner_zero", DT_INT32, "inner", parallel_iterations);
  LoopVar ic =
      AddLoopVar(&g, "ic", c.body(), DT_INT32, "inner", parallel_iterations);
  AddEnter(&g, "inner_n/enter", "inner_n", DT_INT32, "inner", true,
           parallel_iterations);
  const std::string icond = AddLessCond(&g, "icnd", j.merge(), "inner_n/enter");
  AddLoopSwitch(&g, j, icond);
  AddLoopSwitch(&g, ic, icond);
  AddConst(&g, "inner_one", I32(1), {"^" + j.body()});
  AddTyped(&g, "inner_count", "ExecTestCount", {ic.body()}, DT_INT32);
  AddTyped(&g, "j_next", "Add", {j.body(), "inner_one"}, DT_INT32);
  AddTyped(&g, "ic_next", "Add", {"inner_count", "inner_one"}, DT_INT32);
  AddLoopNext(&g, j, "j_next");
  AddLoopNext(&g, ic, "ic_next");
  // Back in the outer body.
  AddConst(&g, "outer_one", I32(1), {"^" + i.body()});
  AddTyped(&g, "i_next", "Add", {i.body(), "outer_one"}, DT_INT32);
  AddLoopNext(&g, i, "i_next");
  AddLoopNext(&g, c, ic.exit());
  AddRetval(&g, "r_c", c.exit(), DT_INT32, 0);
  AddRetval(&g, "r_i", i.exit(), DT_INT32, 1);
  return g;
}

// ---------------------------------------------------------------------------
// Fixture: parameterized over the inline scheduler (false) and a real
// thread pool (true).

class LoopTest : public ::testing::TestWithParam<bool> {
 protected:
  LoopTest() : random_(7) {
    if (GetParam()) {
      pool_ = std::make_unique<ThreadPoolScheduler>(4, &system_clock_);
      env_.clock = &system_clock_;
      env_.scheduler = pool_.get();
    } else {
      env_.clock = inline_.clock();
      env_.scheduler = &inline_;
    }
    env_.random = &random_;
    absl::Status s =
        AddCpuDevices(&env_, 1, "/job:localhost/replica:0/task:0", &devices_);
    EXPECT_TRUE(s.ok()) << s;
    ResetTestKernels();
  }

  absl::Status Build(const GraphDef& def, std::unique_ptr<Executor>* ex) {
    return BuildExecutor(def, devices_[0].get(), &env_, ex);
  }

  // Builds and runs one step; returns its status and the retvals.
  absl::Status BuildAndRun(const GraphDef& def, const DataTypeVector& arg_types,
                           const std::vector<Tensor>& args,
                           const DataTypeVector& ret_types,
                           std::vector<Tensor>* out) {
    std::unique_ptr<Executor> ex;
    absl::Status s = Build(def, &ex);
    if (!s.ok()) return s;
    return Run(ex.get(), arg_types, args, ret_types, out);
  }

  absl::Status Run(Executor* ex, const DataTypeVector& arg_types,
                   const std::vector<Tensor>& args,
                   const DataTypeVector& ret_types, std::vector<Tensor>* out) {
    FunctionCallFrame frame(arg_types, ret_types);
    absl::Status s = frame.SetArgs(args);
    if (!s.ok()) return s;
    CancellationManager cm;
    Executor::Args exec_args;
    exec_args.step_id = 1;
    exec_args.call_frame = &frame;
    exec_args.cancellation_manager = &cm;
    Notification n;
    absl::Status status;
    ex->RunAsync(exec_args, [&](const absl::Status& st) {
      status = st;
      n.Notify();
    });
    env_.scheduler->WaitFor(&n);
    if (!GetParam()) inline_.RunUntilIdle();
    if (!status.ok()) return status;
    return frame.ConsumeRetvals(out);
  }

  InlineScheduler inline_;
  SystemClock system_clock_;
  std::unique_ptr<ThreadPoolScheduler> pool_;
  SeededRandom random_;
  Env env_;
  std::vector<std::unique_ptr<Device>> devices_;
};

TEST_P(LoopTest, CounterToTen) {
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(CounterLoop(10, 10), {}, {}, {DT_INT32}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 10);
  EXPECT_EQ(RunCount("count"), 10);
}

TEST_P(LoopTest, LongLoopCompletes) {
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(CounterLoop(3000, 32), {}, {}, {DT_INT32}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 3000);
  EXPECT_EQ(RunCount("count"), 3000);
}

TEST_P(LoopTest, ZeroTripLoopReturnsItsInitialValue) {
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(CounterLoop(0, 10), {}, {}, {DT_INT32}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 0);
  EXPECT_EQ(RunCount("count"), 0);
}

TEST_P(LoopTest, AccumulatesSeveralLoopVariables) {
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(SumAndDoubleLoop(10, 10), {}, {},
                               {DT_INT32, DT_INT32, DT_FLOAT}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 10);
  EXPECT_EQ(out[1].scalar<int32_t>(), 45);
  EXPECT_EQ(out[2].scalar<float>(), 1024.0f);
}

TEST_P(LoopTest, NestedLoopsRunOuterTimesInner) {
  std::vector<Tensor> out;
  absl::Status s =
      BuildAndRun(NestedLoop(3, 4, 10), {}, {}, {DT_INT32, DT_INT32}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 12);
  EXPECT_EQ(out[1].scalar<int32_t>(), 3);
  EXPECT_EQ(RunCount("inner_count"), 12);
}

TEST_P(LoopTest, InnerFramesAreKeyedByOuterIteration) {
  std::vector<Tensor> out;
  absl::Status s =
      BuildAndRun(NestedLoop(3, 4, 10), {}, {}, {DT_INT32, DT_INT32}, &out);
  ASSERT_TRUE(s.ok()) << s;
  std::set<std::pair<uint64_t, int64_t>> seen;
  for (const FrameAndIter& fi : SeenFrames()) {
    seen.emplace(fi.frame_id, fi.iter_id);
  }
  std::set<std::pair<uint64_t, int64_t>> want;
  const std::string outer = ChildFramePath("", 0, "outer");
  for (int oi = 0; oi < 3; ++oi) {
    const uint64_t inner_id =
        FrameIdFromPath(ChildFramePath(outer, oi, "inner"));
    for (int ii = 0; ii < 4; ++ii) want.emplace(inner_id, ii);
  }
  EXPECT_EQ(seen, want);
}

TEST_P(LoopTest, ParallelIterationsDoNotChangeResults) {
  for (int p : {1, 2, 10}) {
    SCOPED_TRACE(absl::StrCat("parallel_iterations=", p));
    std::vector<Tensor> out;
    absl::Status s = BuildAndRun(SumAndDoubleLoop(10, p), {}, {},
                                 {DT_INT32, DT_INT32, DT_FLOAT}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[1].scalar<int32_t>(), 45);
    EXPECT_EQ(out[2].scalar<float>(), 1024.0f);
    s = BuildAndRun(NestedLoop(3, 4, p), {}, {}, {DT_INT32, DT_INT32}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<int32_t>(), 12);
  }
}

TEST_P(LoopTest, RepeatedStepsOnOneExecutor) {
  std::unique_ptr<Executor> ex;
  ASSERT_TRUE(Build(NestedLoop(3, 4, 2), &ex).ok());
  for (int step = 0; step < 5; ++step) {
    std::vector<Tensor> out;
    absl::Status s = Run(ex.get(), {}, {}, {DT_INT32, DT_INT32}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<int32_t>(), 12);
  }
  EXPECT_EQ(RunCount("inner_count"), 60);
}

// while i < 10: acc += (i < 5 ? 1 : 10): a conditional inside the body.
TEST_P(LoopTest, ConditionalInsideTheBody) {
  GraphDef g;
  AddConst(&g, "zero", I32(0));
  AddConst(&g, "n", I32(10));
  LoopVar i = AddLoopVar(&g, "i", "zero", DT_INT32, "loop", 10);
  LoopVar acc = AddLoopVar(&g, "acc", "zero", DT_INT32, "loop", 10);
  AddEnter(&g, "n/enter", "n", DT_INT32, "loop", true, 10);
  const std::string cond = AddLessCond(&g, "c", i.merge(), "n/enter");
  AddLoopSwitch(&g, i, cond);
  AddLoopSwitch(&g, acc, cond);
  AddConst(&g, "one", I32(1), {"^" + i.body()});
  AddConst(&g, "five", I32(5), {"^" + i.body()});
  AddConst(&g, "ten", I32(10), {"^" + i.body()});
  AddTyped(&g, "small", "Less", {i.body(), "five"}, DT_INT32);
  AddTyped(&g, "pick", "Switch", {acc.body(), "small"}, DT_INT32);
  AddTyped(&g, "add_ten", "Add", {"pick:0", "ten"}, DT_INT32);
  AddTyped(&g, "add_one", "Add", {"pick:1", "one"}, DT_INT32);
  AddTyped(&g, "count_ten", "ExecTestCount", {"add_ten"}, DT_INT32);
  NodeDef* m =
      AddTyped(&g, "joined", "Merge", {"count_ten", "add_one"}, DT_INT32);
  AddNodeAttr("N", 2, m);
  AddTyped(&g, "i_next", "Add", {i.body(), "one"}, DT_INT32);
  AddLoopNext(&g, i, "i_next");
  AddLoopNext(&g, acc, "joined");
  AddRetval(&g, "r", acc.exit(), DT_INT32, 0);
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(g, {}, {}, {DT_INT32}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 55);
  EXPECT_EQ(RunCount("count_ten"), 5);  // Dead in the other iterations.
}

// A loop on one branch of a conditional: x doubled three times if p, else
// x unchanged. When the branch is not taken the whole loop is dead; its
// Exit still delivers (dead) so the step completes.
GraphDef LoopInBranch() {
  GraphDef g;
  AddArg(&g, "x", DT_FLOAT, 0);
  AddArg(&g, "p", DT_BOOL, 1);
  AddTyped(&g, "sw", "Switch", {"x", "p"}, DT_FLOAT);
  AddTyped(&g, "pivot_t", "Identity", {"sw:1"}, DT_FLOAT);
  AddTyped(&g, "pivot_f", "Identity", {"sw:0"}, DT_FLOAT);
  AddConst(&g, "zero", I32(0), {"^pivot_t"});
  AddConst(&g, "n", I32(3), {"^pivot_t"});
  LoopVar i = AddLoopVar(&g, "i", "zero", DT_INT32, "loop", 10);
  LoopVar v = AddLoopVar(&g, "v", "pivot_t", DT_FLOAT, "loop", 10);
  AddEnter(&g, "n/enter", "n", DT_INT32, "loop", true, 10);
  const std::string cond = AddLessCond(&g, "c", i.merge(), "n/enter");
  AddLoopSwitch(&g, i, cond);
  AddLoopSwitch(&g, v, cond);
  AddConst(&g, "one", I32(1), {"^" + i.body()});
  AddTyped(&g, "i_next", "Add", {i.body(), "one"}, DT_INT32);
  AddTyped(&g, "body_count", "ExecTestCount", {v.body()}, DT_FLOAT);
  AddTyped(&g, "v_next", "Add", {"body_count", "body_count"}, DT_FLOAT);
  AddLoopNext(&g, i, "i_next");
  AddLoopNext(&g, v, "v_next");
  NodeDef* m = AddTyped(&g, "m", "Merge", {"pivot_f", v.exit()}, DT_FLOAT);
  AddNodeAttr("N", 2, m);
  AddRetval(&g, "r", "m", DT_FLOAT, 0);
  // Consumers of the Exit: a plain node (dead when the loop is) and a
  // ControlTrigger (runs either way).
  AddTyped(&g, "after_exit", "ExecTestCount", {v.exit()}, DT_FLOAT);
  AddNode(&g, "trigger", "ControlTrigger", {"^" + v.exit()});
  AddTyped(&g, "after_trigger", "ExecTestCount", {"x", "^trigger"}, DT_FLOAT);
  return g;
}

TEST_P(LoopTest, LoopOnTakenBranchRuns) {
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(
      LoopInBranch(), {DT_FLOAT, DT_BOOL},
      {Tensor::Scalar<float>(3), Tensor::Scalar<bool>(true)}, {DT_FLOAT}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 24.0f);
  EXPECT_EQ(RunCount("body_count"), 3);
  EXPECT_EQ(RunCount("after_exit"), 1);
  EXPECT_EQ(RunCount("after_trigger"), 1);
}

TEST_P(LoopTest, LoopOnUntakenBranchIsDeadAndTheStepCompletes) {
  std::vector<Tensor> out;
  absl::Status s =
      BuildAndRun(LoopInBranch(), {DT_FLOAT, DT_BOOL},
                  {Tensor::Scalar<float>(3), Tensor::Scalar<bool>(false)},
                  {DT_FLOAT}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
  EXPECT_EQ(RunCount("body_count"), 0);
  EXPECT_EQ(RunCount("after_exit"), 0);
  EXPECT_EQ(RunCount("after_trigger"), 1);
}

TEST_P(LoopTest, ErrorInsideALoopEndsTheStep) {
  GraphDef g = CounterLoop(10, 4);
  // Fail in the iteration that sees i == 3.
  for (NodeDef& n : *g.mutable_node()) {
    if (n.name() == "count") {
      n.set_op("ExecTestFailAt");
      n.mutable_attr()->erase("T");
      AddNodeAttr("at", 3, &n);
    }
  }
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(g, {}, {}, {DT_INT32}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node count}}")) << s;
}

// A constant RefEnter makes a variable available in every iteration.
TEST_P(LoopTest, RefEnterCarriesAReference) {
  GraphDef g;
  AddNodeAttr("initialized", true, AddNode(&g, "var", "ExecTestVar"));
  AddConst(&g, "zero", I32(0));
  AddConst(&g, "fzero", Tensor::Scalar<float>(0));
  AddConst(&g, "n", I32(4));
  LoopVar i = AddLoopVar(&g, "i", "zero", DT_INT32, "loop", 10);
  LoopVar acc = AddLoopVar(&g, "acc", "fzero", DT_FLOAT, "loop", 10);
  AddEnter(&g, "n/enter", "n", DT_INT32, "loop", true, 10);
  NodeDef* re = AddEnter(&g, "var/enter", "var", DT_FLOAT, "loop", true, 10);
  re->set_op("RefEnter");
  const std::string cond = AddLessCond(&g, "c", i.merge(), "n/enter");
  AddLoopSwitch(&g, i, cond);
  AddLoopSwitch(&g, acc, cond);
  AddConst(&g, "one", I32(1), {"^" + i.body()});
  AddTyped(&g, "i_next", "Add", {i.body(), "one"}, DT_INT32);
  AddTyped(&g, "acc_next", "Add", {acc.body(), "var/enter"}, DT_FLOAT);
  AddLoopNext(&g, i, "i_next");
  AddLoopNext(&g, acc, "acc_next");
  AddRetval(&g, "r", acc.exit(), DT_FLOAT, 0);
  std::vector<Tensor> out;
  absl::Status s = BuildAndRun(g, {}, {}, {DT_FLOAT}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 28.0f);  // 4 times the variable's 7.
}

TEST_P(LoopTest, ManyConcurrentSteps) {
  std::unique_ptr<Executor> ex;
  ASSERT_TRUE(Build(NestedLoop(3, 4, 2), &ex).ok());
  constexpr int kSteps = 40;
  std::vector<std::unique_ptr<FunctionCallFrame>> frames;
  std::vector<std::unique_ptr<CancellationManager>> cms;
  std::atomic<int> remaining{kSteps};
  std::atomic<int> failures{0};
  Notification all_done;
  for (int i = 0; i < kSteps; ++i) {
    frames.push_back(std::make_unique<FunctionCallFrame>(
        DataTypeVector{}, DataTypeVector{DT_INT32, DT_INT32}));
    cms.push_back(std::make_unique<CancellationManager>());
    Executor::Args args;
    args.step_id = i + 1;
    args.call_frame = frames.back().get();
    args.cancellation_manager = cms.back().get();
    ex->RunAsync(args, [&](const absl::Status& s) {
      if (!s.ok()) ++failures;
      if (--remaining == 0) all_done.Notify();
    });
  }
  env_.scheduler->WaitFor(&all_done);
  if (!GetParam()) inline_.RunUntilIdle();
  EXPECT_EQ(failures.load(), 0);
  for (auto& f : frames) {
    std::vector<Tensor> out;
    ASSERT_TRUE(f->ConsumeRetvals(&out).ok());
    EXPECT_EQ(out[0].scalar<int32_t>(), 12);
    EXPECT_EQ(out[1].scalar<int32_t>(), 3);
  }
  EXPECT_EQ(RunCount("inner_count"), 12 * kSteps);
}

INSTANTIATE_TEST_SUITE_P(Schedulers, LoopTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "ThreadPool" : "Inline";
                         });

// ---------------------------------------------------------------------------
// parallel_iterations, observed on the inline scheduler: each iteration
// parks an async kernel off the critical path, so iterations can only run
// ahead as far as the frame allows.

class ParallelIterationsTest : public ::testing::TestWithParam<int> {};

TEST_P(ParallelIterationsTest, BoundsLiveIterations) {
  const int p = GetParam();
  constexpr int kTrips = 12;
  ResetTestKernels();
  InlineScheduler sched;
  SeededRandom random(3);
  Env env;
  env.clock = sched.clock();
  env.scheduler = &sched;
  env.random = &random;
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(
      AddCpuDevices(&env, 1, "/job:localhost/replica:0/task:0", &devices).ok());

  GraphDef g = CounterLoop(kTrips, p);
  AddTyped(&g, "park", "ExecTestPark", {"count"}, DT_INT32);
  std::unique_ptr<Executor> ex;
  ASSERT_TRUE(BuildExecutor(g, devices[0].get(), &env, &ex).ok());

  FunctionCallFrame frame({}, {DT_INT32});
  Executor::Args args;
  args.call_frame = &frame;
  bool done = false;
  absl::Status status;
  ex->RunAsync(args, [&](const absl::Status& s) {
    status = s;
    done = true;
  });
  const uint64_t loop_id = FrameIdFromPath(ChildFramePath("", 0, "loop"));
  int released = 0;
  int64_t next_expected_iter = 0;
  while (true) {
    sched.RunUntilIdle();
    const std::vector<FrameAndIter> parked = ParkedFrames();
    // The oldest live iteration is `released`; at most p are live.
    ASSERT_LE(static_cast<int>(parked.size()), p);
    const int live = std::min(p, kTrips - released);
    EXPECT_EQ(static_cast<int>(parked.size()), live) << "released " << released;
    for (const FrameAndIter& fi : parked) {
      EXPECT_EQ(fi.frame_id, loop_id);
      EXPECT_GE(fi.iter_id, released);
      EXPECT_LT(fi.iter_id, released + p);
      next_expected_iter = std::max(next_expected_iter, fi.iter_id + 1);
    }
    if (parked.empty()) break;
    ASSERT_TRUE(ReleaseOldestParked());
    ++released;
  }
  EXPECT_EQ(released, kTrips);
  EXPECT_EQ(next_expected_iter, kTrips);
  ASSERT_TRUE(done);
  ASSERT_TRUE(status.ok()) << status;
  std::vector<Tensor> out;
  ASSERT_TRUE(frame.ConsumeRetvals(&out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>(), kTrips);
}

INSTANTIATE_TEST_SUITE_P(Limits, ParallelIterationsTest,
                         ::testing::Values(1, 3, 10, 20));

}  // namespace
}  // namespace test
}  // namespace stepflow
