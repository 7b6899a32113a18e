#include "runtime/distributed/worker_rpc_log.h"

#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

constexpr char kDevice[] = "/job:worker/replica:0/task:1/device:CPU:0";

LoggingResponse Fetch(WorkerRpcLog* log, std::vector<int64_t> steps) {
  LoggingRequest req;
  for (int64_t s : steps) req.add_fetch_step_id(s);
  LoggingResponse resp;
  log->Handle(req, &resp);
  return resp;
}

void Enable(WorkerRpcLog* log, bool on) {
  LoggingRequest req;
  if (on) {
    req.set_enable_rpc_logging(true);
  } else {
    req.set_disable_rpc_logging(true);
  }
  LoggingResponse resp;
  log->Handle(req, &resp);
}

TEST(WorkerRpcLogTest, RecordsOnlyWhileEnabled) {
  WorkerRpcLog log;
  EXPECT_FALSE(log.enabled());
  log.RecordRecvTensor(7, kDevice, "key_a", 16, 100, 150);
  EXPECT_EQ(Fetch(&log, {7}).step_size(), 0);

  Enable(&log, true);
  EXPECT_TRUE(log.enabled());
  log.RecordRecvTensor(7, kDevice, "key_a", 16, 100, 150);
  log.RecordRecvTensor(7, kDevice, "key_b", 32, 200, 260);
  log.RecordRecvTensor(8, kDevice, "key_c", 8, 300, 301);
  Enable(&log, false);
  log.RecordRecvTensor(9, kDevice, "key_d", 8, 400, 401);

  // Disabling keeps what was recorded; a fetch returns and forgets it.
  LoggingResponse resp = Fetch(&log, {8, 7, 9});
  ASSERT_EQ(resp.step_size(), 2);
  EXPECT_EQ(resp.step(0).step_id(), 8);
  EXPECT_EQ(resp.step(1).step_id(), 7);
  const StepStats& stats = resp.step(1).step_stats();
  ASSERT_EQ(stats.dev_stats_size(), 1);
  EXPECT_EQ(stats.dev_stats(0).device(), kDevice);
  ASSERT_EQ(stats.dev_stats(0).node_stats_size(), 2);
  const NodeExecStats& second = stats.dev_stats(0).node_stats(1);
  EXPECT_EQ(second.node_name(), "RecvTensor");
  EXPECT_EQ(second.all_start_micros(), 200);
  EXPECT_EQ(second.all_end_rel_micros(), 60);
  EXPECT_EQ(second.timeline_label(), "RecvTensor key_b (32 bytes)");
  EXPECT_EQ(Fetch(&log, {7, 8}).step_size(), 0);
}

TEST(WorkerRpcLogTest, ClearForgetsAndOldestStepsGoFirst) {
  WorkerRpcLog log;
  Enable(&log, true);
  for (int64_t step = 0;
       step < static_cast<int64_t>(WorkerRpcLog::kMaxSteps) + 2; ++step) {
    log.RecordRecvTensor(step, kDevice, "k", 4, 0, 1);
  }
  // Steps 0 and 1 were dropped to keep kMaxSteps.
  EXPECT_EQ(Fetch(&log, {0, 1}).step_size(), 0);
  EXPECT_EQ(Fetch(&log, {2}).step_size(), 1);

  LoggingRequest clear;
  clear.set_clear(true);
  LoggingResponse ignored;
  log.Handle(clear, &ignored);
  EXPECT_EQ(Fetch(&log, {3, 4}).step_size(), 0);
  EXPECT_TRUE(log.enabled());  // Clearing does not disable.
}

}  // namespace
}  // namespace stepflow
