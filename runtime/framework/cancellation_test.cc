#include "runtime/framework/cancellation.h"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(CancellationTest, CallbacksRunOnceInRegistrationOrder) {
  CancellationManager cm;
  std::vector<int> order;
  for (int i = 0; i < 3; ++i) {
    CancellationToken t = cm.get_cancellation_token();
    ASSERT_TRUE(cm.RegisterCallback(t, [&order, i] { order.push_back(i); }));
  }
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 3u);
  EXPECT_FALSE(cm.IsCancelled());
  cm.StartCancel();
  EXPECT_TRUE(cm.IsCancelled());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  cm.StartCancel();  // No-op.
  EXPECT_EQ(order.size(), 3u);
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
}

TEST(CancellationTest, DeregisteredCallbackDoesNotRun) {
  CancellationManager cm;
  int ran = 0;
  CancellationToken a = cm.get_cancellation_token();
  CancellationToken b = cm.get_cancellation_token();
  EXPECT_NE(a, b);
  ASSERT_TRUE(cm.RegisterCallback(a, [&] { ran += 1; }));
  ASSERT_TRUE(cm.RegisterCallback(b, [&] { ran += 10; }));
  EXPECT_TRUE(cm.DeregisterCallback(a));
  cm.StartCancel();
  EXPECT_EQ(ran, 10);
  // After cancellation: deregistration reports the callback already ran.
  EXPECT_FALSE(cm.DeregisterCallback(b));
}

TEST(CancellationTest, RegisterAfterCancelFails) {
  CancellationManager cm;
  cm.StartCancel();
  bool ran = false;
  EXPECT_FALSE(
      cm.RegisterCallback(cm.get_cancellation_token(), [&] { ran = true; }));
  EXPECT_FALSE(ran);
  EXPECT_EQ(cm.NumRegisteredCallbacks(), 0u);
}

TEST(CancellationTest, CallbackMayTouchManagerWithoutDeadlock) {
  CancellationManager cm;
  CancellationToken t = cm.get_cancellation_token();
  bool saw_cancelled = false;
  bool deregistered = true;
  ASSERT_TRUE(cm.RegisterCallback(t, [&] {
    saw_cancelled = cm.IsCancelled();
    deregistered = cm.DeregisterCallback(t);  // Must not block.
  }));
  cm.StartCancel();
  EXPECT_TRUE(saw_cancelled);
  EXPECT_FALSE(deregistered);
}

TEST(CancellationTest, ChildFollowsParent) {
  CancellationManager parent;
  auto child = std::make_unique<CancellationManager>(&parent);
  bool child_cb = false;
  ASSERT_TRUE(child->RegisterCallback(child->get_cancellation_token(),
                                      [&] { child_cb = true; }));
  EXPECT_EQ(parent.NumRegisteredCallbacks(), 1u);
  parent.StartCancel();
  EXPECT_TRUE(child->IsCancelled());
  EXPECT_TRUE(child_cb);
}

TEST(CancellationTest, ChildDestroyedFirstDeregisters) {
  CancellationManager parent;
  {
    CancellationManager child(&parent);
    EXPECT_EQ(parent.NumRegisteredCallbacks(), 1u);
  }
  EXPECT_EQ(parent.NumRegisteredCallbacks(), 0u);
  parent.StartCancel();  // Must not touch the destroyed child.
}

TEST(CancellationTest, ChildOfCancelledParentStartsCancelled) {
  CancellationManager parent;
  parent.StartCancel();
  CancellationManager child(&parent);
  EXPECT_TRUE(child.IsCancelled());
}

}  // namespace
}  // namespace stepflow
