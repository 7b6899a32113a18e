// GrpcTransport over real loopback sockets: calls reach the handler of the
// named task, codes and large messages come through, and unknown tasks,
// stopped tasks, deadlines and cancellation give the contract's codes.
#include "runtime/distributed/rpc/grpc_transport.h"

#include <atomic>
#include <memory>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "proto/worker.pb.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {
namespace {

constexpr char kTask[] = "/job:worker/replica:0/task:0";

// GetStatus: one device named after the task; RecvTensor: 4 MiB of
// pattern; CleanupGraph: NotFound; RunGraph: answers only after 300 ms
// (well inside the server's shutdown grace period).
class TestHandler : public RpcHandler {
 public:
  explicit TestHandler(Scheduler* scheduler) : scheduler_(scheduler) {}
  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override {
    if (method == "WorkerService/GetStatus") {
      auto* r = static_cast<GetStatusResponse*>(response);
      r->add_device_attributes()->set_name(
          absl::StrCat(kTask, "/device:CPU:0"));
      done(absl::OkStatus());
    } else if (method == "WorkerService/RecvTensor") {
      const auto& req = static_cast<const RecvTensorRequest&>(request);
      auto* r = static_cast<RecvTensorResponse*>(response);
      std::string bytes(4 << 20, '\0');
      for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<char>(i * 7);
      r->mutable_tensor()->set_tensor_content(bytes);
      r->set_send_start_micros(req.step_id());
      done(absl::OkStatus());
    } else if (method == "WorkerService/CleanupGraph") {
      done(absl::NotFoundError("step 7 is unknown"));
    } else if (method == "WorkerService/CleanupAll") {
      // Runs out of memory while handling the request (a huge graph under
      // an address-space cap): the call must still be answered.
      throw std::bad_alloc();
    } else {
      pending_.fetch_add(1);
      scheduler_->ScheduleAfter(300000000, [this, done] {
        done(absl::OkStatus());
        pending_.fetch_sub(1);
      });
    }
  }

  // Slow answers not yet given (a handler must answer every call).
  int pending() const { return pending_.load(); }

 private:
  Scheduler* const scheduler_;
  std::atomic<int> pending_{0};
};

class GrpcTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = RealEnv::Create(2);
    handler_ = std::make_unique<TestHandler>(env_->env()->scheduler);
    GrpcTransport::Options server_options;
    server_options.listen_address = "127.0.0.1:0";
    auto server = GrpcTransport::Create(server_options, env_->env()->scheduler);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    ASSERT_GT(server_->bound_port(), 0);
    ASSERT_TRUE(server_->Serve(kTask, handler_.get()).ok());
    GrpcTransport::Options client_options;
    client_options.addresses[kTask] =
        absl::StrCat("127.0.0.1:", server_->bound_port());
    auto client = GrpcTransport::Create(client_options, env_->env()->scheduler);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }

  void TearDown() override {
    // Let the slow handler answer what it was asked before its scheduler
    // (and the server) go away.
    for (int i = 0; i < 500 && handler_->pending() > 0; ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    client_.reset();
    server_.reset();
    handler_.reset();
    env_.reset();
  }

  absl::Status CallAndWait(const std::string& task, const std::string& method,
                           const google::protobuf::Message& request,
                           google::protobuf::Message* response,
                           CallOptions options = CallOptions()) {
    absl::Notification n;
    absl::Status status;
    client_->Call(task, method, request, response, options,
                  [&](const absl::Status& s) {
                    status = s;
                    n.Notify();
                  });
    n.WaitForNotification();
    return status;
  }

  std::unique_ptr<RealEnv> env_;
  std::unique_ptr<TestHandler> handler_;
  std::unique_ptr<GrpcTransport> server_;
  std::unique_ptr<GrpcTransport> client_;
  absl::Status s_;
  GetStatusResponse status_resp_;
};

TEST_F(GrpcTransportTest, CallReachesTheTasksHandler) {
  GetStatusRequest req;
  GetStatusResponse resp;
  ASSERT_TRUE(CallAndWait(kTask, "WorkerService/GetStatus", req, &resp).ok());
  ASSERT_EQ(resp.device_attributes_size(), 1);
  EXPECT_EQ(resp.device_attributes(0).name(),
            absl::StrCat(kTask, "/device:CPU:0"));
}

TEST_F(GrpcTransportTest, FourMiBResponseArrivesIntact) {
  RecvTensorRequest req;
  req.set_step_id(42);
  RecvTensorResponse resp;
  ASSERT_TRUE(CallAndWait(kTask, "WorkerService/RecvTensor", req, &resp).ok());
  const std::string& bytes = resp.tensor().tensor_content();
  ASSERT_EQ(bytes.size(), size_t{4} << 20);
  for (size_t i = 0; i < bytes.size(); i += 4099) {
    ASSERT_EQ(bytes[i], static_cast<char>(i * 7)) << i;
  }
  EXPECT_EQ(resp.send_start_micros(), 42);
}

TEST_F(GrpcTransportTest, HandlerErrorsKeepTheirCode) {
  CleanupGraphRequest req;
  CleanupGraphResponse resp;
  absl::Status s = CallAndWait(kTask, "WorkerService/CleanupGraph", req, &resp);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "step 7")) << s;
}

TEST_F(GrpcTransportTest, OutOfMemoryInAHandlerIsResourceExhausted) {
  CleanupAllRequest req;
  CleanupAllResponse resp;
  CallOptions options;
  // Without the fix the call was never answered: this deadline would end
  // it instead.
  options.timeout_nanos = int64_t{10} * 1000000000;
  absl::Status s =
      CallAndWait(kTask, "WorkerService/CleanupAll", req, &resp, options);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "CleanupAll")) << s;
  // And the server serves on.
  GetStatusRequest status_req;
  GetStatusResponse status_resp;
  EXPECT_TRUE(
      CallAndWait(kTask, "WorkerService/GetStatus", status_req, &status_resp)
          .ok());
}

TEST_F(GrpcTransportTest, UnknownAndStoppedTasksAreUnavailable) {
  GetStatusRequest req;
  GetStatusResponse resp;
  absl::Status s = CallAndWait("/job:worker/replica:0/task:9",
                               "WorkerService/GetStatus", req, &resp);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  server_->StopServing(kTask);
  s = CallAndWait(kTask, "WorkerService/GetStatus", req, &resp);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kTask)) << s;
}

TEST_F(GrpcTransportTest, UnknownMethodIsUnimplemented) {
  GetStatusRequest req;
  GetStatusResponse resp;
  absl::Status s = CallAndWait(kTask, "WorkerService/NoSuchMethod", req, &resp);
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
}

TEST_F(GrpcTransportTest, DeadlineBecomesDeadlineExceeded) {
  RunGraphRequest req;
  RunGraphResponse resp;
  CallOptions options;
  options.timeout_nanos = 50000000;  // 50 ms; the handler takes 300 ms.
  absl::Status s =
      CallAndWait(kTask, "WorkerService/RunGraph", req, &resp, options);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kTask)) << s;
}

TEST_F(GrpcTransportTest, CancellationCancelsTheCall) {
  RunGraphRequest req;
  RunGraphResponse resp;
  CancellationManager cm;
  CallOptions options;
  options.cancellation = &cm;
  absl::Notification n;
  absl::Status status;
  client_->Call(kTask, "WorkerService/RunGraph", req, &resp, options,
                [&](const absl::Status& s) {
                  status = s;
                  n.Notify();
                });
  cm.StartCancel();
  n.WaitForNotification();
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  // An already-cancelled manager fails the call at once.
  s_ = CallAndWait(kTask, "WorkerService/GetStatus", GetStatusRequest(),
                   &status_resp_, options);
  EXPECT_TRUE(absl::IsCancelled(s_)) << s_;
}

TEST_F(GrpcTransportTest, UnreachableAddressIsUnavailable) {
  GrpcTransport::Options options;
  options.addresses[kTask] = "127.0.0.1:1";  // Nothing listens there.
  auto lonely = GrpcTransport::Create(options, env_->env()->scheduler);
  ASSERT_TRUE(lonely.ok());
  absl::Notification n;
  absl::Status status;
  GetStatusResponse resp;
  CallOptions call_options;
  call_options.timeout_nanos = 5000000000;
  (*lonely)->Call(kTask, "WorkerService/GetStatus", GetStatusRequest(), &resp,
                  call_options, [&](const absl::Status& s) {
                    status = s;
                    n.Notify();
                  });
  n.WaitForNotification();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
}

// A peer that goes down and comes back on the same port is reached by the
// first call after it listens again: the client does not sit out gRPC's
// reconnect backoff (1 s and growing by default) with a failed channel.
TEST_F(GrpcTransportTest, RestartedServerIsReachedByTheNextCall) {
  ASSERT_TRUE(CallAndWait(kTask, "WorkerService/GetStatus", GetStatusRequest(),
                          &status_resp_)
                  .ok());
  const std::string address = absl::StrCat("127.0.0.1:", server_->bound_port());
  server_.reset();
  // Down: each call fails Unavailable naming the task and address.
  for (int i = 0; i < 3; ++i) {
    s_ = CallAndWait(kTask, "WorkerService/GetStatus", GetStatusRequest(),
                     &status_resp_);
    EXPECT_TRUE(absl::IsUnavailable(s_)) << s_;
    EXPECT_TRUE(absl::StrContains(s_.message(), address)) << s_;
  }
  GrpcTransport::Options options;
  options.listen_address = address;
  auto restarted = GrpcTransport::Create(options, env_->env()->scheduler);
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  server_ = std::move(*restarted);
  ASSERT_TRUE(server_->Serve(kTask, handler_.get()).ok());
  s_ = CallAndWait(kTask, "WorkerService/GetStatus", GetStatusRequest(),
                   &status_resp_);
  EXPECT_TRUE(s_.ok()) << s_;
}

// One port, one server: gRPC's default SO_REUSEPORT would let a second
// server bind a port in use and take half of its calls.
TEST_F(GrpcTransportTest, SecondServerOnABoundPortIsUnavailable) {
  const std::string address = absl::StrCat("127.0.0.1:", server_->bound_port());
  GrpcTransport::Options options;
  options.listen_address = address;
  auto second = GrpcTransport::Create(options, env_->env()->scheduler);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  EXPECT_TRUE(absl::StrContains(second.status().message(), address))
      << second.status();
  // The first server still answers every call.
  for (int i = 0; i < 8; ++i) {
    s_ = CallAndWait(kTask, "WorkerService/GetStatus", GetStatusRequest(),
                     &status_resp_);
    EXPECT_TRUE(s_.ok()) << s_;
  }
}

}  // namespace
}  // namespace stepflow
