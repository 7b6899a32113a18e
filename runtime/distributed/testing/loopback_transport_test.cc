#include "runtime/distributed/testing/loopback_transport.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/methods.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {
namespace {

// Answers GetStatus with one device; holds RecvTensor calls until Release().
class FakeHandler : public RpcHandler {
 public:
  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override {
    last_request = &request;
    if (method == "WorkerService/GetStatus") {
      auto* r = static_cast<GetStatusResponse*>(response);
      r->add_device_attributes()->set_name(
          "/job:w/replica:0/task:0/device:CPU:0");
      done(absl::OkStatus());
      return;
    }
    if (method == "WorkerService/RecvTensor") {
      const auto& req = static_cast<const RecvTensorRequest&>(request);
      seen_key = req.rendezvous_key();
      held_response = static_cast<RecvTensorResponse*>(response);
      held = std::move(done);
      return;
    }
    done(absl::InvalidArgumentError("handler refused"));
  }
  void Release() {
    held_response->set_is_dead(true);
    held(absl::OkStatus());
  }
  const google::protobuf::Message* last_request = nullptr;
  std::string seen_key;
  RecvTensorResponse* held_response = nullptr;
  DoneCallback held;
};

class LoopbackTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = RealEnv::Create(2);
    transport_ = std::make_unique<LoopbackTransport>(env_->scheduler());
    ASSERT_TRUE(transport_->Serve("/job:w/replica:0/task:0", &handler_).ok());
  }
  void TearDown() override {
    transport_->StopServing("/job:w/replica:0/task:0");
  }

  absl::Status CallAndWait(const std::string& task, const std::string& method,
                           const google::protobuf::Message& req,
                           google::protobuf::Message* resp,
                           const CallOptions& opts = CallOptions()) {
    Notification n;
    absl::Status status;
    transport_->Call(task, method, req, resp, opts, [&](const absl::Status& s) {
      status = s;
      n.Notify();
    });
    env_->scheduler()->WaitFor(&n);
    return status;
  }

  std::unique_ptr<RealEnv> env_;
  std::unique_ptr<LoopbackTransport> transport_;
  FakeHandler handler_;
};

TEST(MethodsTest, TableKnowsEveryServiceMethod) {
  MethodInfo info;
  ASSERT_TRUE(LookupMethod("WorkerService/RunGraph", &info).ok());
  EXPECT_EQ(info.request_prototype->GetDescriptor()->name(), "RunGraphRequest");
  EXPECT_EQ(info.response_prototype->GetDescriptor()->name(),
            "RunGraphResponse");
  EXPECT_TRUE(absl::IsUnimplemented(LookupMethod("WorkerService/Nope", &info)));
  // TensorFlow's master (10 methods) and worker (11 of its methods: not the
  // collective and RecvBuf ones).
  EXPECT_EQ(ListMethods().size(), 21u);
}

TEST_F(LoopbackTransportTest, CopiesRequestAndResponse) {
  GetStatusRequest req;
  GetStatusResponse resp;
  ASSERT_TRUE(CallAndWait("/job:w/replica:0/task:0", "WorkerService/GetStatus",
                          req, &resp)
                  .ok());
  ASSERT_EQ(resp.device_attributes_size(), 1);
  EXPECT_NE(handler_.last_request, &req);  // A copy, not the caller's.
}

TEST_F(LoopbackTransportTest, HandlerErrorsPassThrough) {
  CleanupGraphRequest req;
  CleanupGraphResponse resp;
  absl::Status s = CallAndWait("/job:w/replica:0/task:0",
                               "WorkerService/CleanupGraph", req, &resp);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  s = CallAndWait("/job:w/replica:0/task:0", "WorkerService/Nope", req, &resp);
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
}

TEST_F(LoopbackTransportTest, UnknownOrStoppedTaskIsUnavailable) {
  GetStatusRequest req;
  GetStatusResponse resp;
  absl::Status s = CallAndWait("/job:w/replica:0/task:9",
                               "WorkerService/GetStatus", req, &resp);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "task:9")) << s;
  EXPECT_TRUE(absl::IsAlreadyExists(
      transport_->Serve("/job:w/replica:0/task:0", &handler_)));
  transport_->StopServing("/job:w/replica:0/task:0");
  s = CallAndWait("/job:w/replica:0/task:0", "WorkerService/GetStatus", req,
                  &resp);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
}

TEST_F(LoopbackTransportTest, DeadlineExceededAndLateAnswerIgnored) {
  RecvTensorRequest req;
  req.set_rendezvous_key("k");
  RecvTensorResponse resp;
  CallOptions opts;
  opts.timeout_nanos = 20 * 1000000;
  absl::Status s = CallAndWait("/job:w/replica:0/task:0",
                               "WorkerService/RecvTensor", req, &resp, opts);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_EQ(handler_.seen_key, "k");
  handler_.Release();  // Too late: the caller's response stays untouched.
  EXPECT_FALSE(resp.is_dead());
}

TEST_F(LoopbackTransportTest, CancellationCompletesTheCall) {
  RecvTensorRequest req;
  RecvTensorResponse resp;
  CancellationManager cm;
  CallOptions opts;
  opts.cancellation = &cm;
  Notification n;
  absl::Status status;
  transport_->Call("/job:w/replica:0/task:0", "WorkerService/RecvTensor", req,
                   &resp, opts, [&](const absl::Status& s) {
                     status = s;
                     n.Notify();
                   });
  // Wait for delivery, then cancel.
  for (int i = 0; i < 1000 && !handler_.held; ++i) {
    Notification tick;
    env_->scheduler()->ScheduleAfter(1000000, [&] { tick.Notify(); });
    env_->scheduler()->WaitFor(&tick);
  }
  cm.StartCancel();
  env_->scheduler()->WaitFor(&n);
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
  handler_.Release();
}

TEST_F(LoopbackTransportTest, AnsweredCallDeliversResponse) {
  RecvTensorRequest req;
  RecvTensorResponse resp;
  Notification n;
  absl::Status status;
  transport_->Call("/job:w/replica:0/task:0", "WorkerService/RecvTensor", req,
                   &resp, CallOptions(), [&](const absl::Status& s) {
                     status = s;
                     n.Notify();
                   });
  for (int i = 0; i < 1000 && !handler_.held; ++i) {
    Notification tick;
    env_->scheduler()->ScheduleAfter(1000000, [&] { tick.Notify(); });
    env_->scheduler()->WaitFor(&tick);
  }
  handler_.Release();
  env_->scheduler()->WaitFor(&n);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(resp.is_dead());
}

}  // namespace
}  // namespace stepflow
