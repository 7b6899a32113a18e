// RemoteRendezvous: a value received from another task is allocated within
// the receiving device's memory budget.
#include "runtime/distributed/remote_rendezvous.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/worker.pb.h"
#include "runtime/common/cpu_device.h"
#include "runtime/distributed/testing/loopback_transport.h"
#include "runtime/env/real/random.h"
#include "runtime/framework/tensor.h"
#include "testing/inline_scheduler.h"

namespace stepflow {
namespace {

constexpr char kLocalTask[] = "/job:worker/replica:0/task:0";
constexpr char kPeerTask[] = "/job:worker/replica:0/task:1";
constexpr int64_t kDeviceLimit = 64 << 10;

// Answers every RecvTensor with a fixed TensorProto.
class FixedPeer : public RpcHandler {
 public:
  explicit FixedPeer(TensorProto value) : value_(std::move(value)) {}
  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override {
    if (method != "WorkerService/RecvTensor") {
      done(absl::UnimplementedError(std::string(method)));
      return;
    }
    *static_cast<RecvTensorResponse*>(response)->mutable_tensor() = value_;
    done(absl::OkStatus());
  }

 private:
  const TensorProto value_;
};

class RemoteRendezvousTest : public ::testing::Test {
 protected:
  RemoteRendezvousTest() : random_(5), transport_(&scheduler_) {
    env_.clock = scheduler_.clock();
    env_.scheduler = &scheduler_;
    env_.random = &random_;
    env_.transport = &transport_;
    CpuDeviceOptions memory;
    memory.per_device_memory_limit = kDeviceLimit;
    std::vector<std::unique_ptr<Device>> devices;
    EXPECT_TRUE(AddCpuDevices(&env_, 1, kLocalTask, memory, &devices).ok());
    device_mgr_ = std::make_unique<DeviceMgr>(std::move(devices));
  }

  // Receives on this task's CPU:0 the value task 1 answers with.
  absl::Status Receive(const TensorProto& sent, Tensor* out) {
    FixedPeer peer(sent);
    EXPECT_TRUE(transport_.Serve(kPeerTask, &peer).ok());
    key_ = Rendezvous::CreateKey(absl::StrCat(kPeerTask, "/device:CPU:0"), 1,
                                 absl::StrCat(kLocalTask, "/device:CPU:0"),
                                 "edge_3_big", FrameAndIter());
    Rendezvous::ParsedKey parsed;
    EXPECT_TRUE(Rendezvous::ParseKey(key_, &parsed).ok());
    auto* rendezvous =
        new RemoteRendezvous(&env_, kLocalTask, device_mgr_.get(), 42);
    absl::Status status = absl::UnknownError("not done");
    rendezvous->RecvAsync(
        parsed, Rendezvous::Args(),
        [&](const absl::Status& s, const Rendezvous::Args&,
            const Rendezvous::Args&, const Tensor& value, bool) {
          status = s;
          *out = value;
        });
    scheduler_.RunUntilIdle();
    EXPECT_EQ(rendezvous->NumPendingForTest(), 0u);
    rendezvous->Unref();
    transport_.StopServing(kPeerTask);
    return status;
  }

  test::InlineScheduler scheduler_;
  SeededRandom random_;
  LoopbackTransport transport_;
  Env env_;
  std::unique_ptr<DeviceMgr> device_mgr_;
  std::string key_;
};

TensorProto Floats(int64_t n, bool with_content) {
  TensorProto proto;
  proto.set_dtype(DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(n);
  if (with_content) {
    proto.set_tensor_content(std::string(n * sizeof(float), '\0'));
  }
  return proto;
}

TEST_F(RemoteRendezvousTest, ValueWithinTheBudgetIsReceived) {
  Tensor value;
  absl::Status s = Receive(Floats(1024, true), &value);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(value.NumElements(), 1024);
}

TEST_F(RemoteRendezvousTest, ValueOverTheDeviceBudgetIsResourceExhausted) {
  Tensor value;
  absl::Status s = Receive(Floats(1 << 20, true), &value);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), key_)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), kPeerTask)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "4194304 bytes")) << s;
  EXPECT_FALSE(value.IsInitialized());
}

TEST_F(RemoteRendezvousTest, ShapeClaimingMoreThanTheBudgetIsRefused) {
  // A dozen bytes of proto declaring 2^32 floats (16 GiB).
  Tensor value;
  absl::Status s = Receive(Floats(int64_t{1} << 32, false), &value);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "17179869184 bytes")) << s;
}

TEST_F(RemoteRendezvousTest, MalformedValueNamesTheKey) {
  TensorProto bad = Floats(4, false);
  bad.set_tensor_content("xyz");  // 3 bytes for 4 floats.
  Tensor value;
  absl::Status s = Receive(bad, &value);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), key_)) << s;
}

}  // namespace
}  // namespace stepflow
