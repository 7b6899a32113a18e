// A step run inside the deterministic simulator exports the same timeline
// as a real one, in virtual time: same seed, byte-identical JSON.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/config.pb.h"
#include "runtime/client/timeline.h"
#include "runtime/common/session.h"
#include "runtime/distributed/distributed_session.h"
#include "runtime/distributed/master.h"
#include "runtime/distributed/testing/loopback_transport.h"
#include "runtime/distributed/worker.h"
#include "runtime/graph/graph_def_io.h"
#include "sim/env/sim_env.h"

namespace stepflow {
namespace {

// Runs the graph once in a simulator seeded with `seed` (every Schedule()
// costs 1-3 virtual µs) and returns the timeline JSON.
std::string SimulatedTimeline(uint64_t seed, TimelineSummary* summary) {
  SimEventLoop::Options loop;
  loop.schedule_latency_nanos = 1000;
  loop.schedule_jitter_nanos = 2000;
  SimEnv sim(seed, loop);
  // x on CPU:0, y = x*x on CPU:1, z = y + x on CPU:0.
  GraphDef graph;
  EXPECT_TRUE(ReadGraphDefFromFile("examples/two_device.pbtxt", &graph).ok());
  SessionOptions opts;
  opts.env = &sim.env;
  (*opts.config.mutable_device_count())["CPU"] = 2;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(opts, &session).ok());
  EXPECT_TRUE(session->Create(graph).ok());
  RunOptions run_options;
  run_options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = session->Run(run_options, {}, {"z"}, {}, &out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(session->Close().ok());
  session.reset();
  std::string json;
  s = StepStatsToChromeTrace(metadata.step_stats(), "sim", &json, summary);
  EXPECT_TRUE(s.ok()) << s;
  return json;
}

TEST(SimTimelineTest, VirtualTimeStepHasLanesAndArrowsAndReplays) {
  TimelineSummary a_sum, b_sum;
  const std::string a = SimulatedTimeline(7, &a_sum);
  const std::string b = SimulatedTimeline(7, &b_sum);
  EXPECT_EQ(a_sum.lanes, 2);
  EXPECT_EQ(a_sum.flows, 2);
  EXPECT_EQ(a_sum.unpaired_transfers, 0);
  EXPECT_EQ(a, b);  // Same seed: identical, virtual-time timeline.
  // Virtual time advanced (latencies are at least 1 µs per Schedule()).
  EXPECT_FALSE(
      absl::StrContains(a, R"("name":"AddV2","pid":1,"tid":0,"ts":0.000)"))
      << a;
  // Some other seed gives a different schedule, hence different times.
  bool differs = false;
  for (uint64_t seed = 8; seed < 16 && !differs; ++seed) {
    TimelineSummary sum;
    differs = SimulatedTimeline(seed, &sum) != a;
  }
  EXPECT_TRUE(differs);
}

// A distributed step — a master and two workers exchanging real protocol
// messages through a transport that runs on the simulator's loop — in
// virtual time: one lane per task's device, an arrow per cross-task
// transfer, and the same seed gives the same timeline.
std::string SimulatedDistributedTimeline(uint64_t seed,
                                         TimelineSummary* summary) {
  SimEventLoop::Options loop;
  loop.schedule_latency_nanos = 1000;
  loop.schedule_jitter_nanos = 20000;
  SimEnv sim(seed, loop);
  LoopbackTransport transport(&sim.loop);
  Env env = sim.env;
  env.transport = &transport;
  const std::vector<std::string> tasks = {"/job:worker/replica:0/task:0",
                                          "/job:worker/replica:0/task:1"};
  std::vector<std::unique_ptr<Worker>> workers(2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(Worker::Create(&env, tasks[i], 1, &workers[i]).ok());
    EXPECT_TRUE(transport.Serve(tasks[i], workers[i].get()).ok());
  }
  Master master(&env, tasks);
  const std::string master_task = "/job:master/replica:0/task:0";
  EXPECT_TRUE(transport.Serve(master_task, &master).ok());

  GraphDef graph;
  EXPECT_TRUE(ReadGraphDefFromFile("examples/two_task.pbtxt", &graph).ok());
  SessionOptions opts;
  opts.env = &env;
  std::string json;
  {
    DistributedSession session(opts, master_task);
    EXPECT_TRUE(session.Create(graph).ok());
    RunOptions run_options;
    run_options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    std::vector<Tensor> out;
    absl::Status s = session.Run(run_options, {}, {"z"}, {}, &out, &metadata);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(session.Close().ok());
    s = StepStatsToChromeTrace(metadata.step_stats(), "sim", &json, summary);
    EXPECT_TRUE(s.ok()) << s;
  }
  sim.loop.RunUntilIdle();
  transport.StopServing(master_task);
  for (const std::string& t : tasks) transport.StopServing(t);
  return json;
}

TEST(SimTimelineTest, SimulatedDistributedStepHasTaskLanesAndArrows) {
  TimelineSummary a_sum, b_sum;
  const std::string a = SimulatedDistributedTimeline(3, &a_sum);
  const std::string b = SimulatedDistributedTimeline(3, &b_sum);
  EXPECT_EQ(a_sum.lanes, 2);
  EXPECT_EQ(a_sum.flows, 2) << a;
  EXPECT_EQ(a_sum.unpaired_transfers, 0);
  EXPECT_TRUE(
      absl::StrContains(a, "/job:worker/replica:0/task:1/device:CPU:0"));
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace stepflow
