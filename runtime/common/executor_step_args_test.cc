// What a step does with its Executor::Args: values and dead values through
// the rendezvous between two executors, errors across devices,
// cancellation (by the manager, by a timer, before the start) and step
// stats (per node, with the device's allocator memory, timed by the
// Env's clock).
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/graph.pb.h"
#include "proto/step_stats.pb.h"
#include "runtime/common/device.h"
#include "runtime/common/executor.h"
#include "runtime/common/executor_testutil.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "runtime/common/step_stats_collector.h"
#include "runtime/env/notification.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace test {
namespace {

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
    ASSERT_TRUE(
        frame->SetArgs({Tensor::Scalar<float>(4), Tensor::Scalar<bool>(pred)})
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
    ResetTestKernels();
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
    ResetTestKernels();
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

}  // namespace
}  // namespace test
}  // namespace stepflow
