// _Send/_Recv through a small in-test rendezvous: both orders, dead values,
// frame/iteration keys, aborts, cancellation and bad keys.
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/framework/cancellation.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::TestNode;
using test::Vec;

constexpr char kSrc[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDst[] = "/job:localhost/replica:0/task:0/device:CPU:1";

// Single-threaded rendezvous: a FIFO of values or of waiting receivers per
// key. Callbacks run inline.
class TestRendezvous : public Rendezvous {
 public:
  struct Item {
    Tensor value;
    bool is_dead = false;
  };

  absl::Status Send(const ParsedKey& key, const Args&, const Tensor& val,
                    bool is_dead) override {
    if (!abort_.ok()) return abort_;
    sent_keys_.push_back(key.full_key);
    auto& waiters = waiters_[key.full_key];
    if (!waiters.empty()) {
      DoneCallback cb = std::move(waiters.front());
      waiters.pop_front();
      cb(absl::OkStatus(), Args(), Args(), val, is_dead);
      return absl::OkStatus();
    }
    values_[key.full_key].push_back({val, is_dead});
    return absl::OkStatus();
  }

  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override {
    if (!abort_.ok()) {
      done(abort_, Args(), args, Tensor(), false);
      return;
    }
    auto& values = values_[key.full_key];
    if (!values.empty()) {
      Item item = values.front();
      values.pop_front();
      done(absl::OkStatus(), Args(), args, item.value, item.is_dead);
      return;
    }
    if (args.cancellation_manager != nullptr) {
      const std::string k = key.full_key;
      CancellationManager* cm = args.cancellation_manager;
      const CancellationToken token = cm->get_cancellation_token();
      if (!cm->RegisterCallback(token, [this, k] { CancelWaiters(k); })) {
        done(absl::CancelledError("RecvAsync is cancelled."), Args(), args,
             Tensor(), false);
        return;
      }
    }
    waiters_[key.full_key].push_back(std::move(done));
  }

  void StartAbort(const absl::Status& status) override {
    abort_ = status;
    auto waiters = std::move(waiters_);
    waiters_.clear();
    for (auto& [key, list] : waiters) {
      for (auto& cb : list) cb(status, Args(), Args(), Tensor(), false);
    }
  }

  const std::vector<std::string>& sent_keys() const { return sent_keys_; }

 private:
  void CancelWaiters(const std::string& key) {
    auto list = std::move(waiters_[key]);
    waiters_.erase(key);
    for (auto& cb : list) {
      cb(absl::CancelledError("RecvAsync is cancelled."), Args(), Args(),
         Tensor(), false);
    }
  }

  absl::Status abort_;
  std::map<std::string, std::deque<Item>> values_;
  std::map<std::string, std::deque<DoneCallback>> waiters_;
  std::vector<std::string> sent_keys_;
};

NodeDef SendDef(const std::string& op, DataType t,
                const std::string& tensor_name = "edge_1_a") {
  return TestNode("send", op)
      .Inputs(1)
      .Attr("T", t)
      .Attr("tensor_name", tensor_name)
      .Attr("send_device", kSrc)
      .Attr("send_device_incarnation", int64_t{0x1234})
      .Attr("recv_device", kDst)
      .Attr("client_terminated", false);
}

NodeDef RecvDef(const std::string& op, DataType t,
                const std::string& tensor_name = "edge_1_a") {
  return TestNode("recv", op)
      .Attr("tensor_type", t)
      .Attr("tensor_name", tensor_name)
      .Attr("send_device", kSrc)
      .Attr("send_device_incarnation", int64_t{0x1234})
      .Attr("recv_device", kDst)
      .Attr("client_terminated", false);
}

TEST(SendRecvOpsTest, SendThenRecv) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  test::KernelRunner send, recv;
  ASSERT_TRUE(send.Init(SendDef("_Send", DT_FLOAT)).ok());
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_FLOAT)).ok());
  EXPECT_NE(recv.kernel()->AsAsync(), nullptr);
  EXPECT_TRUE(send.kernel()->is_stateful());
  send.set_rendezvous(rendez);
  recv.set_rendezvous(rendez);
  ASSERT_TRUE(send.Run({Vec<float>({1, 2})}).ok());
  ASSERT_EQ(rendez->sent_keys().size(), 1u);
  EXPECT_EQ(rendez->sent_keys()[0],
            std::string(kSrc) + ";0000000000001234;" + kDst + ";edge_1_a;0:0");
  ASSERT_TRUE(recv.Run({}).ok());
  EXPECT_FALSE(recv.output_dead());
  ExpectTensor<float>(recv.output(0), TensorShape({2}), {1, 2});
}

TEST(SendRecvOpsTest, RecvBeforeSendCompletesLater) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  test::KernelRunner send, recv;
  ASSERT_TRUE(send.Init(SendDef("_HostSend", DT_STRING)).ok());
  ASSERT_TRUE(recv.Init(RecvDef("_HostRecv", DT_STRING)).ok());
  send.set_rendezvous(rendez);
  recv.set_rendezvous(rendez);
  recv.StartAsync({});
  EXPECT_FALSE(recv.done_called());
  ASSERT_TRUE(send.Run({Vec<std::string>({"hello"})}).ok());
  ASSERT_TRUE(recv.done_called());
  ASSERT_TRUE(recv.async_status().ok());
  ExpectTensor<std::string>(recv.output(0), TensorShape({1}), {"hello"});
}

TEST(SendRecvOpsTest, DeadValueMarksOutputDead) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(
      Rendezvous::ParseKey(
          Rendezvous::CreateKey(kSrc, 0x1234, kDst, "edge_1_a", {}), &key)
          .ok());
  ASSERT_TRUE(rendez->Send(key, Rendezvous::Args(), Tensor(), true).ok());
  test::KernelRunner recv;
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_FLOAT)).ok());
  recv.set_rendezvous(rendez);
  ASSERT_TRUE(recv.Run({}).ok());
  EXPECT_TRUE(recv.output_dead());
  EXPECT_FALSE(recv.output(0).IsInitialized());
}

TEST(SendRecvOpsTest, FrameAndIterationSelectTheKey) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  test::KernelRunner send, recv;
  ASSERT_TRUE(send.Init(SendDef("_Send", DT_INT32)).ok());
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_INT32)).ok());
  send.set_rendezvous(rendez);
  recv.set_rendezvous(rendez);
  FrameAndIter it2;
  it2.frame_id = 7;
  it2.iter_id = 2;
  send.set_frame_iter(it2);
  ASSERT_TRUE(send.Run({Vec<int32_t>({42})}).ok());
  EXPECT_EQ(rendez->sent_keys().back(),
            std::string(kSrc) + ";0000000000001234;" + kDst + ";edge_1_a;7:2");
  // The root-frame receiver does not see the iteration's value.
  recv.StartAsync({});
  EXPECT_FALSE(recv.done_called());
  test::KernelRunner recv2;
  ASSERT_TRUE(recv2.Init(RecvDef("_Recv", DT_INT32)).ok());
  recv2.set_rendezvous(rendez);
  recv2.set_frame_iter(it2);
  ASSERT_TRUE(recv2.Run({}).ok());
  ExpectTensor<int32_t>(recv2.output(0), TensorShape({1}), {42});
  rendez->StartAbort(absl::CancelledError("step done"));
  ASSERT_TRUE(recv.done_called());
}

TEST(SendRecvOpsTest, AbortPropagatesToBothSides) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  test::KernelRunner send, recv;
  ASSERT_TRUE(send.Init(SendDef("_Send", DT_FLOAT)).ok());
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_FLOAT)).ok());
  send.set_rendezvous(rendez);
  recv.set_rendezvous(rendez);
  recv.StartAsync({});
  rendez->StartAbort(absl::AbortedError("worker restarted"));
  ASSERT_TRUE(recv.done_called());
  ExpectError(recv.async_status(), absl::StatusCode::kAborted,
              {"worker restarted", "{{node recv}}"});
  ExpectError(send.Run({Vec<float>({1})}), absl::StatusCode::kAborted,
              {"worker restarted", "{{node send}}"});
}

TEST(SendRecvOpsTest, CancellationCompletesPendingRecv) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  CancellationManager cm;
  test::KernelRunner recv;
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_FLOAT)).ok());
  recv.set_rendezvous(rendez);
  recv.set_cancellation_manager(&cm);
  recv.StartAsync({});
  EXPECT_FALSE(recv.done_called());
  cm.StartCancel();
  ASSERT_TRUE(recv.done_called());
  ExpectError(recv.async_status(), absl::StatusCode::kCancelled,
              {"{{node recv}}"});
}

TEST(SendRecvOpsTest, WrongDtypeFromRendezvousIsReported) {
  TestRendezvous* rendez = new TestRendezvous;
  ScopedUnref unref(rendez);
  test::KernelRunner send, recv;
  ASSERT_TRUE(send.Init(SendDef("_Send", DT_INT32)).ok());
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_FLOAT)).ok());
  send.set_rendezvous(rendez);
  recv.set_rendezvous(rendez);
  ASSERT_TRUE(send.Run({Vec<int32_t>({1})}).ok());
  ExpectError(recv.Run({}), absl::StatusCode::kInvalidArgument, {"recv"});
}

TEST(SendRecvOpsTest, MissingRendezvousAndBadDevices) {
  test::KernelRunner send;
  ASSERT_TRUE(send.Init(SendDef("_Send", DT_FLOAT)).ok());
  ExpectError(send.Run({Vec<float>({1})}), absl::StatusCode::kInternal,
              {"requires a rendezvous", "{{node send}}"});
  test::KernelRunner recv;
  ASSERT_TRUE(recv.Init(RecvDef("_Recv", DT_FLOAT)).ok());
  ExpectError(recv.Run({}), absl::StatusCode::kInternal,
              {"requires a rendezvous", "{{node recv}}"});

  NodeDef bad = SendDef("_Send", DT_FLOAT);
  AddNodeAttr("send_device", "not a device", &bad);
  test::KernelRunner bad_send;
  ExpectError(bad_send.Init(bad), absl::StatusCode::kInvalidArgument,
              {"{{node send}}"});
}

}  // namespace
}  // namespace stepflow
