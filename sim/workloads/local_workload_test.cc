// The real DirectSession (three CPU devices, Send/Recv, timeouts) inside the
// simulator: correct results for every seed, identical traces for the same
// seed, different interleavings for different seeds, and deadlocks that are
// reported instead of hanging.
#include "sim/workloads/local_workload.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/graph.pb.h"
#include "runtime/common/session.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "sim/env/sim_env.h"
#include "sim/trace/trace.h"
#include "sim/trace/traced_device.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

constexpr int kSeeds = 8;

LocalWorkloadResult MustRun(uint64_t seed, const LocalWorkloadOptions& o) {
  LocalWorkloadResult r;
  absl::Status s = RunLocalWorkload(seed, o, &r);
  EXPECT_TRUE(s.ok()) << "seed " << seed << ": " << s;
  return r;
}

void ExpectAllCorrect(const LocalWorkloadResult& r,
                      const LocalWorkloadOptions& o) {
  EXPECT_TRUE(r.failures.empty()) << absl::StrJoin(r.failures, "\n");
  EXPECT_EQ(r.steps_run, o.steps);
  // Every fourth step (kind 3) times out; the others compute.
  EXPECT_EQ(r.steps_deadline_exceeded, o.steps / 4);
  EXPECT_EQ(r.steps_ok, o.steps - o.steps / 4);
  EXPECT_GT(r.events_run, 0u);
  EXPECT_GT(r.trace_events, r.events_run);
  // Kind 2 steps take the full delay; kind 3 steps are cut at delay / 2.
  const int64_t delay = o.slow_delay_nanos;
  EXPECT_EQ(r.virtual_nanos,
            (o.steps / 4) * delay + (o.steps / 4) * (delay / 2));
}

TEST(LocalWorkloadTest, EverySeedComputesCorrectResults) {
  LocalWorkloadOptions o;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    ExpectAllCorrect(MustRun(seed, o), o);
  }
}

TEST(LocalWorkloadTest, SameSeedTwiceGivesTheSameTrace) {
  LocalWorkloadOptions o;
  o.keep_events = true;
  for (uint64_t seed : {1, 2, 77}) {
    const LocalWorkloadResult a = MustRun(seed, o);
    const LocalWorkloadResult b = MustRun(seed, o);
    EXPECT_EQ(a.trace_hash, b.trace_hash) << "seed " << seed;
    EXPECT_EQ(a.kernel_order_hash, b.kernel_order_hash);
    EXPECT_EQ(a.events_run, b.events_run);
    const int64_t at = FirstDivergence(a.events, b.events);
    EXPECT_EQ(at, -1) << "seed " << seed << " diverged at event " << at
                      << ":\n  " << a.events[at].DebugString() << "\n  "
                      << b.events[at].DebugString();
  }
}

TEST(LocalWorkloadTest, DifferentSeedsExploreDifferentInterleavings) {
  LocalWorkloadOptions o;
  std::set<uint64_t> hashes, orders;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const LocalWorkloadResult r = MustRun(seed, o);
    hashes.insert(r.trace_hash);
    orders.insert(r.kernel_order_hash);
  }
  EXPECT_EQ(hashes.size(), static_cast<size_t>(kSeeds));
  // The kernel order alone (no step ids, times or values) differs too.
  EXPECT_EQ(orders.size(), static_cast<size_t>(kSeeds));
}

TEST(LocalWorkloadTest, FifoSchedulingMakesTheInterleavingSeedIndependent) {
  // With ties broken FIFO, the scheduler stream is the only thing that could
  // reorder kernels, and it is not consulted: every seed runs the kernels in
  // the same order (inputs, step ids and so the trace hash still differ).
  LocalWorkloadOptions o;
  o.loop.randomize_ties = false;
  std::set<uint64_t> hashes, orders;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const LocalWorkloadResult r = MustRun(seed, o);
    ExpectAllCorrect(r, o);
    hashes.insert(r.trace_hash);
    orders.insert(r.kernel_order_hash);
  }
  EXPECT_EQ(orders.size(), 1u);
  EXPECT_EQ(hashes.size(), 4u);
}

TEST(LocalWorkloadTest, TraceRecordsKernelsTransfersAndSteps) {
  LocalWorkloadOptions o;
  o.keep_events = true;
  o.steps = 4;
  const LocalWorkloadResult r = MustRun(5, o);
  std::set<std::string> ops;
  std::set<std::string> devices;
  int step_done = 0, deadline = 0, timer_fires = 0, cancels = 0;
  for (const TraceEvent& e : r.events) {
    if (e.kind == SIM_KERNEL_START) {
      ops.insert(e.Field("op"));
      devices.insert(e.Field("device"));
      EXPECT_NE(e.Field("node"), "");
    }
    if (e.kind == SIM_STEP_DONE) {
      ++step_done;
      if (e.Field("status") == "DEADLINE_EXCEEDED") ++deadline;
    }
    if (e.kind == SIM_TIMER_FIRE) ++timer_fires;
    if (e.kind == SIM_TIMER_CANCEL) ++cancels;
  }
  for (const char* op : {"_Send", "_Recv", "AddV2", "Mul", "Identity", "Const",
                         "SimDelay", "_Arg", "_Retval"}) {
    EXPECT_EQ(ops.count(op), 1u)
        << op << " missing; saw " << absl::StrJoin(ops, ",");
  }
  EXPECT_EQ(devices, (std::set<std::string>{"CPU:0", "CPU:1", "CPU:2"}));
  EXPECT_EQ(step_done, 4);
  EXPECT_EQ(deadline, 1);
  // Step 2: SimDelay's timer fires, the step deadline is cancelled. Step 3:
  // the deadline fires and cancels SimDelay's timer.
  EXPECT_GE(timer_fires, 2);
  EXPECT_GE(cancels, 2);
  // Virtual time never goes backwards.
  for (size_t i = 1; i < r.events.size(); ++i) {
    ASSERT_GE(r.events[i].time_nanos, r.events[i - 1].time_nanos) << i;
  }
}

TEST(LocalWorkloadTest, NewSessionPathIsDeterministicToo) {
  LocalWorkloadOptions o;
  o.trace_kernels = false;  // NewSession({target ""}), plain CPU devices.
  const LocalWorkloadResult a = MustRun(3, o);
  const LocalWorkloadResult b = MustRun(3, o);
  ExpectAllCorrect(a, o);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_NE(a.trace_hash, MustRun(4, o).trace_hash);
  // Same draws from the runtime stream as the traced session: the traced
  // devices change only what is recorded, not what runs.
  LocalWorkloadOptions traced;
  const LocalWorkloadResult t = MustRun(3, traced);
  EXPECT_EQ(t.events_run, a.events_run);
  EXPECT_EQ(t.virtual_nanos, a.virtual_nanos);
}

TEST(LocalWorkloadTest, LatencyAndJitterStayCorrectAndDeterministic) {
  LocalWorkloadOptions o;
  o.loop.schedule_latency_nanos = 500;
  o.loop.schedule_jitter_nanos = 2000;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const LocalWorkloadResult a = MustRun(seed, o);
    EXPECT_TRUE(a.failures.empty()) << absl::StrJoin(a.failures, "\n");
    EXPECT_EQ(a.steps_deadline_exceeded, o.steps / 4);
    EXPECT_EQ(MustRun(seed, o).trace_hash, a.trace_hash);
  }
}

TEST(LocalWorkloadTest, TraceFileMatchesTheRun) {
  LocalWorkloadOptions o;
  o.steps = 8;
  o.trace_path = test::TestTmpPath("seed9.trace");
  const LocalWorkloadResult r = MustRun(9, o);
  TraceHeader header;
  std::vector<TraceEvent> events;
  uint64_t hash = 0;
  ASSERT_TRUE(TraceReader::ReadAll(o.trace_path, &header, &events, &hash).ok());
  EXPECT_EQ(header.seed, 9u);
  EXPECT_EQ(header.workload, DescribeLocalWorkload(o));
  EXPECT_EQ(hash, r.trace_hash);
  EXPECT_EQ(events.size(), r.trace_events);
}

TEST(LocalWorkloadTest, RejectsAnUnusableDelay) {
  LocalWorkloadOptions o;
  o.slow_delay_nanos = 3000000;
  LocalWorkloadResult r;
  EXPECT_EQ(RunLocalWorkload(1, o, &r).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LocalWorkloadDeathTest, ASimulatorFailureNamesTheSeedAndTheReplayCommand) {
  LocalWorkloadOptions o;
  o.loop.max_events = 10;  // Far too few: the event budget trips.
  o.loop.schedule_jitter_nanos = 3;
  EXPECT_DEATH(
      {
        LocalWorkloadResult r;
        RunLocalWorkload(5, o, &r).IgnoreError();
      },
      "event budget exceeded(.|\n)*Session::Run of step 0(.|\n)*"
      "Simulation of seed 5 failed(.|\n)*bazel run //sim:simulate -- "
      "--seed=5 --seeds=1 --steps=24 --fifo=0 --latency_ns=0 --jitter_ns=3");
}

// --- A session that can never finish -------------------------------------

REGISTER_OP("SimTestBlockForever")
    .Input("x: float")
    .Output("y: float")
    .SetIsStateful();

class BlockForeverOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  // Never calls `done` (and does not listen for cancellation): without a
  // timeout the step can never end.
  void ComputeAsync(OpKernelContext*, DoneCallback) override {}
};
REGISTER_KERNEL_BUILDER(Name("SimTestBlockForever").Device(DEVICE_CPU),
                        BlockForeverOp);

GraphDef BlockingGraph() {
  GraphDef g;
  NodeDef* c = g.add_node();
  c->set_name("c");
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorProto* v = (*c->mutable_attr())["value"].mutable_tensor();
  v->set_dtype(DT_FLOAT);
  v->mutable_tensor_shape();
  v->add_float_val(1);
  NodeDef* b = g.add_node();
  b->set_name("stuck");
  b->set_op("SimTestBlockForever");
  b->add_input("c");
  return g;
}

TEST(LocalWorkloadDeathTest, ASessionDeadlockIsReportedNotHung) {
  EXPECT_DEATH(
      {
        SimEnv sim(1);
        SessionOptions opts;
        opts.env = &sim.env;
        std::unique_ptr<Session> session;
        if (!NewSession(opts, &session).ok()) return;
        if (!session->Create(BlockingGraph()).ok()) return;
        std::vector<Tensor> out;
        SimEventLoop::ScopedWaitLabel label(&sim.loop, "Session::Run(stuck)");
        session->Run({}, {"stuck"}, {}, &out).IgnoreError();
      },
      "deadlock(.|\n)*virtual time: 0 ns(.|\n)*Session::Run\\(stuck\\)");
}

TEST(LocalWorkloadDeathTest, AStuckKernelOutlivingItsDeadlineIsADeadlock) {
  // Under a RunOptions timeout the deadline timer keeps the loop busy until
  // it fires and cancels the step; but the executor waits for kernels that
  // already started, and this one ignores cancellation. Once the timer has
  // fired nothing is left: reported as a deadlock at the deadline's virtual
  // time, naming the timer as the last event run.
  EXPECT_DEATH(
      {
        SimEnv sim(1);
        SessionOptions opts;
        opts.env = &sim.env;
        std::unique_ptr<Session> session;
        if (!NewSession(opts, &session).ok()) return;
        if (!session->Create(BlockingGraph()).ok()) return;
        RunOptions ro;
        ro.set_timeout_in_ms(30);
        std::vector<Tensor> out;
        session->Run(ro, {}, {"stuck"}, {}, &out, nullptr).IgnoreError();
      },
      "deadlock(.|\n)*virtual time: 30000000 ns(.|\n)*last events run(.|\n)*"
      "t=30000000 seq=[0-9]+ timer");
}

}  // namespace
}  // namespace stepflow
