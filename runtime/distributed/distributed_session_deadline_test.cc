// The client's deadlines on its calls to the master: what DistributedSession
// asks the transport for (recorded on the way to a LoopbackCluster), and
// that a master that never answers fails a call with DeadlineExceeded
// instead of hanging it.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/master.pb.h"
#include "runtime/distributed/distributed_session.h"
#include "runtime/distributed/testing/loopback_cluster.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace {

constexpr int64_t kMs = 1000000;

// Forwards every call, remembering the last timeout asked for per method.
class RecordingTransport : public Transport {
 public:
  explicit RecordingTransport(Transport* base) : base_(base) {}

  void Call(absl::string_view task, absl::string_view method,
            const google::protobuf::Message& request,
            google::protobuf::Message* response, const CallOptions& options,
            DoneCallback done) override {
    {
      absl::MutexLock l(&mu_);
      timeouts_[std::string(method)] = options.timeout_nanos;
    }
    base_->Call(task, method, request, response, options, std::move(done));
  }
  absl::Status Serve(absl::string_view task, RpcHandler* handler) override {
    return base_->Serve(task, handler);
  }
  void StopServing(absl::string_view task) override {
    base_->StopServing(task);
  }

  // -1 if `method` was never called.
  int64_t LastTimeout(const std::string& method) {
    absl::MutexLock l(&mu_);
    auto it = timeouts_.find(method);
    return it == timeouts_.end() ? -1 : it->second;
  }

 private:
  Transport* const base_;
  absl::Mutex mu_;
  std::map<std::string, int64_t> timeouts_ ABSL_GUARDED_BY(mu_);
};

// A master that creates sessions but never answers RunStep (until told to).
class HungMaster : public RpcHandler {
 public:
  void Handle(absl::string_view method, const google::protobuf::Message&,
              google::protobuf::Message* response, DoneCallback done) override {
    if (method == "MasterService/CreateSession") {
      static_cast<CreateSessionResponse*>(response)->set_session_handle("s");
      done(absl::OkStatus());
      return;
    }
    if (method == "MasterService/RunStep") {
      absl::MutexLock l(&mu_);
      held_.push_back(std::move(done));
      return;
    }
    done(absl::OkStatus());
  }

  size_t NumHeld() {
    absl::MutexLock l(&mu_);
    return held_.size();
  }

  // Answers every held call (a handler must answer each call eventually).
  void Release() {
    std::vector<DoneCallback> held;
    {
      absl::MutexLock l(&mu_);
      held.swap(held_);
    }
    for (auto& done : held) done(absl::UnavailableError("released"));
  }

 private:
  absl::Mutex mu_;
  std::vector<DoneCallback> held_ ABSL_GUARDED_BY(mu_);
};

GraphDef AddGraph() {
  GraphDef g;
  absl::Status s = ParseGraphDefFromText(R"pb(
                                           node {
                                             name: "x"
                                             op: "Placeholder"
                                             attr {
                                               key: "dtype"
                                               value { type: DT_FLOAT }
                                             }
                                           }
                                           node {
                                             name: "y"
                                             op: "Identity"
                                             input: "x"
                                             attr {
                                               key: "T"
                                               value { type: DT_FLOAT }
                                             }
                                           }
                                         )pb",
                                         &g);
  EXPECT_TRUE(s.ok()) << s;
  return g;
}

class DistributedSessionDeadlineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status s = LoopbackCluster::Create(1, 1, &cluster_);
    ASSERT_TRUE(s.ok()) << s;
    recorder_ = std::make_unique<RecordingTransport>(cluster_->transport());
    env_ = *cluster_->env();
    env_.transport = recorder_.get();
  }

  std::unique_ptr<DistributedSession> NewSession(const ConfigProto& config,
                                                 const std::string& master) {
    SessionOptions opts;
    opts.env = &env_;
    opts.config = config;
    opts.target = absl::StrCat("loopback://", master);
    return std::make_unique<DistributedSession>(opts, master);
  }

  std::unique_ptr<LoopbackCluster> cluster_;
  std::unique_ptr<RecordingTransport> recorder_;
  Env env_;
};

TEST(MasterCallTimeoutTest, TimeoutPlusGraceOrNone) {
  EXPECT_EQ(DistributedSession::MasterCallTimeoutNanos(0), 0);
  EXPECT_EQ(DistributedSession::MasterCallTimeoutNanos(-5), 0);
  EXPECT_EQ(DistributedSession::MasterCallTimeoutNanos(250),
            (250 + DistributedSession::kMasterCallGraceMs) * kMs);
}

TEST_F(DistributedSessionDeadlineTest, NoTimeoutMeansNoDeadline) {
  auto session = NewSession(ConfigProto(), LoopbackCluster::kMasterTask);
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  Tensor x = Tensor::Scalar<float>(2);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", x}}, {"y"}, {}, &out).ok());
  EXPECT_EQ(recorder_->LastTimeout("MasterService/CreateSession"), 0);
  EXPECT_EQ(recorder_->LastTimeout("MasterService/RunStep"), 0);
  ASSERT_TRUE(session->Close().ok());
}

TEST_F(DistributedSessionDeadlineTest, RunOptionsTimeoutBoundsRunStep) {
  auto session = NewSession(ConfigProto(), LoopbackCluster::kMasterTask);
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  RunOptions ro;
  ro.set_timeout_in_ms(300);
  std::vector<Tensor> out;
  absl::Status s = session->Run(ro, {{"x", Tensor::Scalar<float>(2)}}, {"y"},
                                {}, &out, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(recorder_->LastTimeout("MasterService/RunStep"),
            (300 + DistributedSession::kMasterCallGraceMs) * kMs);
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(recorder_->LastTimeout("MasterService/CloseSession"), 0);
}

TEST_F(DistributedSessionDeadlineTest, OperationTimeoutBoundsEveryCall) {
  ConfigProto config;
  config.set_operation_timeout_in_ms(200);
  auto session = NewSession(config, LoopbackCluster::kMasterTask);
  ASSERT_TRUE(session->Create(AddGraph()).ok());
  const int64_t op = (200 + DistributedSession::kMasterCallGraceMs) * kMs;
  EXPECT_EQ(recorder_->LastTimeout("MasterService/CreateSession"), op);
  std::vector<Tensor> out;
  const Session::FeedList feeds = {{"x", Tensor::Scalar<float>(2)}};
  ASSERT_TRUE(session->Run(feeds, {"y"}, {}, &out).ok());
  EXPECT_EQ(recorder_->LastTimeout("MasterService/RunStep"), op);
  // The step's own timeout overrides the operation timeout.
  RunOptions ro;
  ro.set_timeout_in_ms(50);
  ASSERT_TRUE(session->Run(ro, feeds, {"y"}, {}, &out, nullptr).ok());
  EXPECT_EQ(recorder_->LastTimeout("MasterService/RunStep"),
            (50 + DistributedSession::kMasterCallGraceMs) * kMs);
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  EXPECT_EQ(recorder_->LastTimeout("MasterService/ListDevices"), op);
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(recorder_->LastTimeout("MasterService/CloseSession"), op);
}

TEST_F(DistributedSessionDeadlineTest,
       MasterThatNeverAnswersIsDeadlineExceeded) {
  constexpr char kHungTask[] = "/job:master/replica:0/task:9";
  HungMaster hung;
  ASSERT_TRUE(cluster_->transport()->Serve(kHungTask, &hung).ok());
  {
    auto session = NewSession(ConfigProto(), kHungTask);
    ASSERT_TRUE(session->Create(AddGraph()).ok());
    RunOptions ro;
    ro.set_timeout_in_ms(50);
    std::vector<Tensor> out;
    absl::Status s = session->Run(ro, {{"x", Tensor::Scalar<float>(2)}}, {"y"},
                                  {}, &out, nullptr);
    EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), kHungTask)) << s;
    // The master still holds the call: the client gave up on its own.
    EXPECT_EQ(hung.NumHeld(), 1u);
    session.reset();
  }
  cluster_->transport()->StopServing(kHungTask);
  hung.Release();
}

}  // namespace
}  // namespace stepflow
