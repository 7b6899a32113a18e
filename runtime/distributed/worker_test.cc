// Worker-side rules: incarnations, request ids, step state and RecvTensor.
#include "runtime/distributed/worker.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/testing/loopback_cluster.h"
#include "runtime/env/notification.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace {

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LoopbackCluster::Create(2, 1, &cluster_).ok());
    task_ = LoopbackCluster::WorkerTask(0);
  }

  absl::Status Call(const std::string& method,
                    const google::protobuf::Message& req,
                    google::protobuf::Message* resp) {
    Notification n;
    absl::Status status;
    cluster_->transport()->Call(task_, method, req, resp, CallOptions(),
                                [&](const absl::Status& s) {
                                  status = s;
                                  n.Notify();
                                });
    cluster_->env()->scheduler->WaitFor(&n);
    return status;
  }

  Worker* worker() { return cluster_->worker(0); }

  std::string Key(uint64_t incarnation) {
    const std::string dev = absl::StrCat(task_, "/device:CPU:0");
    const std::string dst =
        absl::StrCat(LoopbackCluster::WorkerTask(1), "/device:CPU:0");
    return Rendezvous::CreateKey(dev, incarnation, dst, "edge_1_a",
                                 FrameAndIter());
  }

  std::unique_ptr<LoopbackCluster> cluster_;
  std::string task_;
};

// The server-wide intra-op option reaches every CPU device's kernels: their
// Env reports it as its thread count (kernels cut their work into at most
// that many blocks); 0 leaves the Env's own.
TEST_F(WorkerTest, IntraOpParallelismReachesEveryDevicesKernels) {
  Env* env = cluster_->env();
  for (int intra_op : {0, 3}) {
    Worker::Options options;
    options.memory.intra_op_parallelism_threads = intra_op;
    std::unique_ptr<Worker> worker;
    ASSERT_TRUE(
        Worker::Create(env, "/job:other/replica:0/task:0", 2, options, &worker)
            .ok());
    std::vector<Device*> devices = worker->device_mgr()->ListDevices();
    ASSERT_EQ(devices.size(), 2u);
    for (Device* d : devices) {
      EXPECT_EQ(d->env()->scheduler->NumThreads(),
                intra_op > 0 ? intra_op : env->scheduler->NumThreads())
          << d->name() << " with intra_op " << intra_op;
    }
  }
}

TEST_F(WorkerTest, GetStatusListsDevicesWithTheIncarnation) {
  GetStatusResponse resp;
  ASSERT_TRUE(Call("WorkerService/GetStatus", GetStatusRequest(), &resp).ok());
  ASSERT_EQ(resp.device_attributes_size(), 1);
  EXPECT_EQ(resp.device_attributes(0).name(),
            absl::StrCat(task_, "/device:CPU:0"));
  EXPECT_EQ(resp.device_attributes(0).incarnation(), worker()->incarnation());
  EXPECT_NE(worker()->incarnation(), cluster_->worker(1)->incarnation());
}

TEST_F(WorkerTest, StaleIncarnationAndUnknownHandlesAreAborted) {
  CreateWorkerSessionRequest cw;
  cw.set_session_handle("s");
  cw.set_worker_incarnation(worker()->incarnation() + 1);
  CreateWorkerSessionResponse cw_resp;
  absl::Status s = Call("WorkerService/CreateWorkerSession", cw, &cw_resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "restarted")) << s;

  RunGraphRequest rg;
  rg.set_session_handle("nope");
  rg.set_step_id(7);
  RunGraphResponse rg_resp;
  s = Call("WorkerService/RunGraph", rg, &rg_resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;

  cw.set_worker_incarnation(worker()->incarnation());
  ASSERT_TRUE(Call("WorkerService/CreateWorkerSession", cw, &cw_resp).ok());
  EXPECT_EQ(worker()->NumSessions(), 1u);
  rg.set_session_handle("s");
  rg.set_graph_handle("missing");
  rg.set_step_id(8);
  s = Call("WorkerService/RunGraph", rg, &rg_resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "missing")) << s;

  // A repeated request id is rejected before anything else.
  rg.set_request_id(42);
  rg.set_step_id(9);
  s = Call("WorkerService/RunGraph", rg, &rg_resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  s = Call("WorkerService/RunGraph", rg, &rg_resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "twice")) << s;

  CleanupGraphResponse cg_resp;
  for (int64_t step : {7, 8, 9}) {
    CleanupGraphRequest cg;
    cg.set_step_id(step);
    ASSERT_TRUE(Call("WorkerService/CleanupGraph", cg, &cg_resp).ok());
  }
  EXPECT_EQ(worker()->NumSteps(), 0u);
  DeleteWorkerSessionRequest dw;
  dw.set_session_handle("s");
  DeleteWorkerSessionResponse dw_resp;
  ASSERT_TRUE(Call("WorkerService/DeleteWorkerSession", dw, &dw_resp).ok());
  EXPECT_EQ(worker()->NumSessions(), 0u);
}

TEST_F(WorkerTest, RecvTensorChecksTheIncarnation) {
  RecvTensorRequest req;
  req.set_step_id(5);
  req.set_rendezvous_key(Key(worker()->incarnation() ^ 1));
  RecvTensorResponse resp;
  absl::Status s = Call("WorkerService/RecvTensor", req, &resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "restarted")) << s;
  req.set_rendezvous_key("not a key");
  s = Call("WorkerService/RecvTensor", req, &resp);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_EQ(worker()->NumSteps(), 0u);
}

TEST_F(WorkerTest, RecvTensorBeforeTheStepWaitsAndCleanupAbortsIt) {
  RecvTensorRequest req;
  req.set_step_id(11);
  req.set_rendezvous_key(Key(worker()->incarnation()));
  RecvTensorResponse resp;
  Notification n;
  absl::Status status;
  cluster_->transport()->Call(task_, "WorkerService/RecvTensor", req, &resp,
                              CallOptions(), [&](const absl::Status& s) {
                                status = s;
                                n.Notify();
                              });
  for (int i = 0; i < 1000 && worker()->NumSteps() == 0; ++i) {
    Notification tick;
    cluster_->env()->scheduler->ScheduleAfter(1000000, [&] { tick.Notify(); });
    cluster_->env()->scheduler->WaitFor(&tick);
  }
  EXPECT_EQ(worker()->NumSteps(), 1u);  // Created by the early RecvTensor.
  EXPECT_FALSE(n.HasBeenNotified());
  CleanupGraphRequest cg;
  cg.set_step_id(11);
  CleanupGraphResponse cg_resp;
  ASSERT_TRUE(Call("WorkerService/CleanupGraph", cg, &cg_resp).ok());
  cluster_->env()->scheduler->WaitFor(&n);
  EXPECT_TRUE(absl::IsAborted(status)) << status;
  EXPECT_EQ(worker()->NumSteps(), 0u);
  // A late RecvTensor for the cleaned step does not bring its state back.
  req.set_request_id(99);
  status = Call("WorkerService/RecvTensor", req, &resp);
  EXPECT_TRUE(absl::IsAborted(status)) << status;
  EXPECT_EQ(worker()->NumSteps(), 0u);
}

}  // namespace
}  // namespace stepflow
