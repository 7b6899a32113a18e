#include "sim/env/sim_transport.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "proto/worker.pb.h"
#include "runtime/framework/cancellation.h"
#include "sim/env/sim_env.h"

namespace stepflow {
namespace {

constexpr char kA[] = "/job:worker/replica:0/task:0";
constexpr char kB[] = "/job:worker/replica:0/task:1";
constexpr char kMethod[] = "WorkerService/GetStatus";
constexpr int64_t kMs = 1000 * 1000;

// Answers GetStatus with one device named after the call count; can hold
// answers back to model a slow handler.
class CountingHandler : public RpcHandler {
 public:
  void Handle(absl::string_view method, const google::protobuf::Message&,
              google::protobuf::Message* response, DoneCallback done) override {
    ++calls;
    methods.push_back(std::string(method));
    static_cast<GetStatusResponse*>(response)
        ->add_device_attributes()
        ->set_name("answer" + std::to_string(calls));
    if (hold) {
      held.push_back(std::move(done));
      return;
    }
    done(absl::OkStatus());
  }
  int calls = 0;
  bool hold = false;
  std::vector<std::string> methods;
  std::vector<DoneCallback> held;
};

struct Outcome {
  bool done = false;
  absl::Status status;
  int64_t at = -1;
  GetStatusResponse response;
};

class SimTransportTest : public ::testing::Test {
 protected:
  SimTransportTest() : sim_(7) {}

  void MakeNetwork(const SimNetworkOptions& o) {
    net_ =
        std::make_unique<SimNetwork>(&sim_.loop, sim_.random.Stream("net"), o);
    a_ = net_->NewEndpoint(kA);
    ASSERT_TRUE(net_->NewEndpoint(kB)->Serve(kB, &handler_).ok());
  }

  std::shared_ptr<Outcome> Call(const CallOptions& opts = CallOptions()) {
    auto out = std::make_shared<Outcome>();
    bool inline_done = true;
    a_->Call(kB, kMethod, GetStatusRequest(), &out->response, opts,
             [this, out](const absl::Status& s) {
               out->done = true;
               out->status = s;
               out->at = sim_.loop.NowNanos();
             });
    inline_done = out->done;
    EXPECT_FALSE(inline_done) << "done ran inside Call()";
    return out;
  }

  SimEnv sim_;
  std::unique_ptr<SimNetwork> net_;
  Transport* a_ = nullptr;
  CountingHandler handler_;
};

TEST_F(SimTransportTest, DeliversACopyAfterLatency) {
  SimNetworkOptions o;
  MakeNetwork(o);
  auto out = Call();
  sim_.loop.RunUntilIdle();
  ASSERT_TRUE(out->done);
  EXPECT_TRUE(out->status.ok()) << out->status;
  ASSERT_EQ(out->response.device_attributes_size(), 1);
  EXPECT_EQ(out->response.device_attributes(0).name(), "answer1");
  // Two one-way trips of at least the minimum latency each.
  EXPECT_GE(out->at, 2 * o.min_latency_nanos);
  EXPECT_EQ(net_->stats().calls, 1);
  EXPECT_EQ(net_->NumPendingCalls(), 0u);
}

TEST_F(SimTransportTest,
       UnknownTaskIsUnavailableAndUnknownMethodUnimplemented) {
  MakeNetwork(SimNetworkOptions());
  auto out = std::make_shared<Outcome>();
  GetStatusResponse resp;
  a_->Call("/job:worker/replica:0/task:9", kMethod, GetStatusRequest(), &resp,
           CallOptions(), [out](const absl::Status& s) {
             out->status = s;
             out->done = true;
           });
  auto bad = std::make_shared<Outcome>();
  a_->Call(kB, "WorkerService/NoSuchMethod", GetStatusRequest(), &resp,
           CallOptions(), [bad](const absl::Status& s) {
             bad->status = s;
             bad->done = true;
           });
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsUnavailable(out->status)) << out->status;
  EXPECT_TRUE(absl::StrContains(out->status.message(), "task:9"));
  EXPECT_FALSE(bad->status.ok());
  EXPECT_EQ(handler_.calls, 0);
}

TEST_F(SimTransportTest, DeadlineFiresWhileTheHandlerHoldsTheAnswer) {
  MakeNetwork(SimNetworkOptions());
  handler_.hold = true;
  CallOptions opts;
  opts.timeout_nanos = 5 * kMs;
  auto out = Call(opts);
  sim_.loop.RunUntilIdle();
  ASSERT_TRUE(out->done);
  EXPECT_TRUE(absl::IsDeadlineExceeded(out->status)) << out->status;
  EXPECT_EQ(out->at, 5 * kMs);
  // The late answer is dropped; the caller's response stays untouched.
  ASSERT_EQ(handler_.held.size(), 1u);
  handler_.held[0](absl::OkStatus());
  sim_.loop.RunUntilIdle();
  EXPECT_EQ(out->response.device_attributes_size(), 0);
}

TEST_F(SimTransportTest, CancellationCompletesTheCall) {
  MakeNetwork(SimNetworkOptions());
  handler_.hold = true;
  CancellationManager cm;
  CallOptions opts;
  opts.cancellation = &cm;
  auto out = Call(opts);
  sim_.loop.RunFor(10 * kMs);
  EXPECT_FALSE(out->done);
  cm.StartCancel();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsCancelled(out->status)) << out->status;
}

TEST_F(SimTransportTest, PartitionsAreUnavailableAfterTheConnectionTimeout) {
  SimNetworkOptions o;
  MakeNetwork(o);
  net_->Partition(kA, kB);
  auto out = Call();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsUnavailable(out->status)) << out->status;
  EXPECT_EQ(out->at, o.connection_timeout_nanos);
  EXPECT_EQ(handler_.calls, 0);
  // One way: the request gets through, the answer does not.
  net_->Heal();
  net_->PartitionOneWay(kB, kA);
  out = Call();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsUnavailable(out->status)) << out->status;
  EXPECT_EQ(handler_.calls, 1);
  net_->Heal();
  out = Call();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(out->status.ok()) << out->status;
}

TEST_F(SimTransportTest, ClogHoldsMessagesUntilItLifts) {
  MakeNetwork(SimNetworkOptions());
  net_->Clog(kB, 300 * kMs);
  auto out = Call();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(out->status.ok());
  EXPECT_GE(out->at, 300 * kMs);
}

TEST_F(SimTransportTest, CrashFailsInFlightCallsAndRefusesNewOnes) {
  MakeNetwork(SimNetworkOptions());
  handler_.hold = true;
  auto out = Call();
  sim_.loop.RunFor(50 * kMs);
  ASSERT_EQ(handler_.calls, 1);
  net_->Crash(kB);
  EXPECT_FALSE(net_->IsServing(kB));
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsUnavailable(out->status)) << out->status;
  EXPECT_TRUE(absl::StrContains(out->status.message(), "crashed"));
  // The dead handler's late answer goes nowhere.
  handler_.held[0](absl::OkStatus());
  sim_.loop.RunUntilIdle();
  EXPECT_EQ(out->response.device_attributes_size(), 0);
  out = Call();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsUnavailable(out->status));
  EXPECT_EQ(handler_.calls, 1);
}

TEST_F(SimTransportTest, ACrashedTasksOwnCallsNeverLeave) {
  MakeNetwork(SimNetworkOptions());
  Transport* dead = net_->NewEndpoint("/job:worker/replica:0/task:2");
  net_->Crash("/job:worker/replica:0/task:2");
  auto out = std::make_shared<Outcome>();
  GetStatusResponse resp;
  dead->Call(kB, kMethod, GetStatusRequest(), &resp, CallOptions(),
             [out](const absl::Status& s) {
               out->status = s;
               out->done = true;
             });
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(absl::IsUnavailable(out->status));
  EXPECT_EQ(handler_.calls, 0);
  // A new incarnation's endpoint works.
  Transport* fresh = net_->NewEndpoint("/job:worker/replica:0/task:2");
  fresh->Call(kB, kMethod, GetStatusRequest(), &resp, CallOptions(),
              [out](const absl::Status& s) { out->status = s; });
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(out->status.ok());
  EXPECT_EQ(handler_.calls, 1);
}

TEST_F(SimTransportTest, DuplicatesReachTheHandlerTwiceButAnswerOnce) {
  SimNetworkOptions o;
  o.duplicate_per_mille = 1000;
  MakeNetwork(o);
  auto out = Call();
  sim_.loop.RunUntilIdle();
  EXPECT_TRUE(out->status.ok());
  EXPECT_EQ(handler_.calls, 2);
  EXPECT_EQ(out->response.device_attributes(0).name(), "answer1");
}

TEST_F(SimTransportTest, BrokenConnectionsFailSomeDeliveredSomeNot) {
  SimNetworkOptions o;
  o.drop_per_mille = 1000;
  MakeNetwork(o);
  std::vector<std::shared_ptr<Outcome>> outs;
  for (int i = 0; i < 40; ++i) outs.push_back(Call());
  sim_.loop.RunUntilIdle();
  for (const auto& out : outs) {
    EXPECT_TRUE(absl::IsUnavailable(out->status)) << out->status;
    EXPECT_LE(out->at, o.connection_timeout_nanos + 2 * o.min_latency_nanos +
                           2 * o.max_extra_latency_nanos);
  }
  // The coin: some requests reached the handler before the break.
  EXPECT_GT(handler_.calls, 5);
  EXPECT_LT(handler_.calls, 35);
}

TEST_F(SimTransportTest, LatencyIsHeavyTailedAndReorders) {
  MakeNetwork(SimNetworkOptions());
  std::vector<std::shared_ptr<Outcome>> outs;
  for (int i = 0; i < 200; ++i) outs.push_back(Call());
  sim_.loop.RunUntilIdle();
  int64_t lo = outs[0]->at, hi = outs[0]->at;
  int reordered = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    ASSERT_TRUE(outs[i]->status.ok());
    lo = std::min(lo, outs[i]->at);
    hi = std::max(hi, outs[i]->at);
    if (i > 0 && outs[i]->at < outs[i - 1]->at) ++reordered;
  }
  EXPECT_GT(reordered, 20);
  EXPECT_GT(hi, 10 * lo);  // The tail.
}

}  // namespace
}  // namespace stepflow
