#include "runtime/common/intra_process_rendezvous.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {
namespace {

constexpr char kDev0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDev1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

Rendezvous::ParsedKey Key(const std::string& name,
                          FrameAndIter fi = FrameAndIter()) {
  Rendezvous::ParsedKey key;
  absl::Status s = Rendezvous::ParseKey(
      Rendezvous::CreateKey(kDev0, 0x1234, kDev1, name, fi), &key);
  EXPECT_TRUE(s.ok()) << s;
  return key;
}

// What a Recv callback saw.
struct Received {
  int calls = 0;
  absl::Status status;
  Tensor value;
  bool is_dead = false;
};

Rendezvous::DoneCallback Record(Received* r) {
  return [r](const absl::Status& s, const Rendezvous::Args&,
             const Rendezvous::Args&, const Tensor& v, bool is_dead) {
    ++r->calls;
    r->status = s;
    r->value = v;
    r->is_dead = is_dead;
  };
}

class RendezvousTest : public ::testing::Test {
 protected:
  RendezvousTest() : rendez_(new IntraProcessRendezvous) {}
  ~RendezvousTest() override { rendez_->Unref(); }
  IntraProcessRendezvous* rendez_;
};

TEST_F(RendezvousTest, SendThenRecv) {
  ASSERT_TRUE(
      rendez_
          ->Send(Key("a"), Rendezvous::Args(), Tensor::Scalar<float>(3), false)
          .ok());
  EXPECT_EQ(rendez_->NumPendingForTest(), 1u);
  Received r;
  rendez_->RecvAsync(Key("a"), Rendezvous::Args(), Record(&r));
  EXPECT_EQ(r.calls, 1);  // Completed inline.
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.value.scalar<float>(), 3.0f);
  EXPECT_FALSE(r.is_dead);
  EXPECT_EQ(rendez_->NumPendingForTest(), 0u);
}

TEST_F(RendezvousTest, RecvThenSend) {
  Received r;
  rendez_->RecvAsync(Key("a"), Rendezvous::Args(), Record(&r));
  EXPECT_EQ(r.calls, 0);
  EXPECT_EQ(rendez_->NumPendingForTest(), 1u);
  ASSERT_TRUE(rendez_
                  ->Send(Key("a"), Rendezvous::Args(),
                         Tensor::Scalar<int32_t>(9), false)
                  .ok());
  EXPECT_EQ(r.calls, 1);
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.value.scalar<int32_t>(), 9);
  EXPECT_EQ(rendez_->NumPendingForTest(), 0u);
}

TEST_F(RendezvousTest, DeadValueTravels) {
  Received r;
  rendez_->RecvAsync(Key("d"), Rendezvous::Args(), Record(&r));
  ASSERT_TRUE(rendez_->Send(Key("d"), Rendezvous::Args(), Tensor(), true).ok());
  EXPECT_EQ(r.calls, 1);
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(r.is_dead);
}

TEST_F(RendezvousTest, KeysAreIndependent) {
  Received a, b;
  rendez_->RecvAsync(Key("a"), Rendezvous::Args(), Record(&a));
  rendez_->RecvAsync(Key("b"), Rendezvous::Args(), Record(&b));
  ASSERT_TRUE(
      rendez_
          ->Send(Key("b"), Rendezvous::Args(), Tensor::Scalar<float>(2), false)
          .ok());
  EXPECT_EQ(a.calls, 0);
  EXPECT_EQ(b.calls, 1);
  // Same name, different iteration: a different key.
  ASSERT_TRUE(rendez_
                  ->Send(Key("a", FrameAndIter{0, 1}), Rendezvous::Args(),
                         Tensor::Scalar<float>(5), false)
                  .ok());
  EXPECT_EQ(a.calls, 0);
  ASSERT_TRUE(
      rendez_
          ->Send(Key("a"), Rendezvous::Args(), Tensor::Scalar<float>(1), false)
          .ok());
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.value.scalar<float>(), 1.0f);
  EXPECT_EQ(rendez_->NumPendingForTest(), 1u);  // The iteration-1 value.
}

TEST_F(RendezvousTest, FifoPerKeySendsFirst) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(rendez_
                    ->Send(Key("q"), Rendezvous::Args(),
                           Tensor::Scalar<int32_t>(i), false)
                    .ok());
  }
  for (int i = 0; i < 5; ++i) {
    Received r;
    rendez_->RecvAsync(Key("q"), Rendezvous::Args(), Record(&r));
    ASSERT_EQ(r.calls, 1);
    EXPECT_EQ(r.value.scalar<int32_t>(), i);
  }
}

TEST_F(RendezvousTest, FifoPerKeyRecvsFirst) {
  Received r[3];
  for (auto& x : r)
    rendez_->RecvAsync(Key("q"), Rendezvous::Args(), Record(&x));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(rendez_
                    ->Send(Key("q"), Rendezvous::Args(),
                           Tensor::Scalar<int32_t>(10 + i), false)
                    .ok());
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(r[i].calls, 1);
    EXPECT_EQ(r[i].value.scalar<int32_t>(), 10 + i);
  }
}

TEST_F(RendezvousTest, AbortIsStickyAndFiresPendingInArrivalOrder) {
  std::vector<std::string> order;
  auto cb = [&order](std::string name) {
    return [&order, name](const absl::Status& s, const Rendezvous::Args&,
                          const Rendezvous::Args&, const Tensor&, bool) {
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
      order.push_back(name);
    };
  };
  // Arrival order differs from any key order.
  rendez_->RecvAsync(Key("zz"), Rendezvous::Args(), cb("zz"));
  rendez_->RecvAsync(Key("aa"), Rendezvous::Args(), cb("aa"));
  rendez_->RecvAsync(Key("mm"), Rendezvous::Args(), cb("mm"));
  rendez_->RecvAsync(Key("aa"), Rendezvous::Args(), cb("aa2"));
  ASSERT_TRUE(
      rendez_
          ->Send(Key("x"), Rendezvous::Args(), Tensor::Scalar<float>(1), false)
          .ok());
  rendez_->StartAbort(absl::InvalidArgumentError("boom"));
  EXPECT_EQ(order, (std::vector<std::string>{"zz", "aa", "mm", "aa2"}));
  EXPECT_EQ(rendez_->NumPendingForTest(), 0u);  // Queued value dropped.

  // Sticky: later operations fail with the first abort status.
  rendez_->StartAbort(absl::InternalError("second"));
  absl::Status s = rendez_->Send(Key("x"), Rendezvous::Args(),
                                 Tensor::Scalar<float>(1), false);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "boom");
  Received r;
  rendez_->RecvAsync(Key("x"), Rendezvous::Args(), Record(&r));
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RendezvousTest, AbortWithOkIsIgnored) {
  rendez_->StartAbort(absl::OkStatus());
  EXPECT_TRUE(
      rendez_
          ->Send(Key("x"), Rendezvous::Args(), Tensor::Scalar<float>(1), false)
          .ok());
}

TEST_F(RendezvousTest, CancelledRecv) {
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  Received r;
  rendez_->RecvAsync(Key("c"), args, Record(&r));
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 1u);
  cm.StartCancel();
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(r.status.message(), "RecvAsync is cancelled.");
  EXPECT_EQ(rendez_->NumPendingForTest(), 0u);
  // A later Send does not resurrect the cancelled Recv; it is queued.
  ASSERT_TRUE(
      rendez_
          ->Send(Key("c"), Rendezvous::Args(), Tensor::Scalar<float>(1), false)
          .ok());
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(rendez_->NumPendingForTest(), 1u);
}

TEST_F(RendezvousTest, CancelledRecvSkippedBySend) {
  CancellationManager cm;
  Rendezvous::Args cancellable;
  cancellable.cancellation_manager = &cm;
  Received first, second;
  rendez_->RecvAsync(Key("c"), cancellable, Record(&first));
  rendez_->RecvAsync(Key("c"), Rendezvous::Args(), Record(&second));
  cm.StartCancel();
  ASSERT_EQ(first.calls, 1);
  EXPECT_EQ(rendez_->NumPendingForTest(), 1u);
  ASSERT_TRUE(
      rendez_
          ->Send(Key("c"), Rendezvous::Args(), Tensor::Scalar<float>(4), false)
          .ok());
  EXPECT_EQ(first.calls, 1);
  ASSERT_EQ(second.calls, 1);
  EXPECT_EQ(second.value.scalar<float>(), 4.0f);
  EXPECT_EQ(rendez_->NumPendingForTest(), 0u);
}

TEST_F(RendezvousTest, RecvOnAlreadyCancelledManager) {
  CancellationManager cm;
  cm.StartCancel();
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  Received r;
  rendez_->RecvAsync(Key("c"), args, Record(&r));
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(rendez_->NumPendingForTest(), 0u);
}

TEST_F(RendezvousTest, SatisfiedRecvDeregistersItsCancellation) {
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  Received r;
  rendez_->RecvAsync(Key("c"), args, Record(&r));
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 1u);
  ASSERT_TRUE(
      rendez_
          ->Send(Key("c"), Rendezvous::Args(), Tensor::Scalar<float>(1), false)
          .ok());
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
  cm.StartCancel();
  EXPECT_EQ(r.calls, 1);
  EXPECT_TRUE(r.status.ok());
}

TEST_F(RendezvousTest, AbortDeregistersCancellation) {
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  Received r;
  rendez_->RecvAsync(Key("c"), args, Record(&r));
  rendez_->StartAbort(absl::AbortedError("gone"));
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
  cm.StartCancel();
  EXPECT_EQ(r.calls, 1);
}

TEST(IntraProcessRendezvousTest, DestroyWithWaitingRecvCancelsIt) {
  auto* rendez = new IntraProcessRendezvous;
  Received r;
  rendez->RecvAsync(Key("a"), Rendezvous::Args(), Record(&r));
  rendez->Unref();
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled);
}

TEST(IntraProcessRendezvousTest, CancellationAfterRendezvousIsGone) {
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  Received r;
  auto* rendez = new IntraProcessRendezvous;
  rendez->RecvAsync(Key("a"), args, Record(&r));
  rendez->Unref();  // Completes the Recv (Cancelled) and deregisters.
  cm.StartCancel();
  EXPECT_EQ(r.calls, 1);
}

// Many senders and receivers on several threads: every value is delivered
// exactly once, in order per key.
TEST(IntraProcessRendezvousTest, ConcurrentSendRecv) {
  SystemClock clock;
  ThreadPoolScheduler sched(4, &clock);
  auto* rendez = new IntraProcessRendezvous;
  constexpr int kKeys = 8;
  constexpr int kPerKey = 200;
  absl::Mutex mu;
  std::vector<std::vector<int>> got(kKeys);
  std::atomic<int> done_count{0};
  Notification all_done;
  for (int k = 0; k < kKeys; ++k) {
    sched.Schedule([&, k] {
      for (int i = 0; i < kPerKey; ++i) {
        ASSERT_TRUE(rendez
                        ->Send(Key(absl::StrCat("k", k)), Rendezvous::Args(),
                               Tensor::Scalar<int32_t>(i), false)
                        .ok());
      }
    });
    sched.Schedule([&, k] {
      for (int i = 0; i < kPerKey; ++i) {
        rendez->RecvAsync(
            Key(absl::StrCat("k", k)), Rendezvous::Args(),
            [&, k, i](const absl::Status& s, const Rendezvous::Args&,
                      const Rendezvous::Args&, const Tensor& v, bool) {
              EXPECT_TRUE(s.ok());
              // FIFO: the i-th Recv on a key gets the i-th Send.
              EXPECT_EQ(v.scalar<int32_t>(), i);
              {
                absl::MutexLock l(&mu);
                got[k].push_back(v.scalar<int32_t>());
              }
              if (++done_count == kKeys * kPerKey) all_done.Notify();
            });
      }
    });
  }
  sched.WaitFor(&all_done);
  EXPECT_EQ(rendez->NumPendingForTest(), 0u);
  rendez->Unref();
  absl::MutexLock l(&mu);
  for (int k = 0; k < kKeys; ++k) {
    ASSERT_EQ(got[k].size(), static_cast<size_t>(kPerKey));
    std::sort(got[k].begin(), got[k].end());
    for (int i = 0; i < kPerKey; ++i) EXPECT_EQ(got[k][i], i);
  }
}

}  // namespace
}  // namespace stepflow
