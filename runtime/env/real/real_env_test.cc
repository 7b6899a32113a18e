#include "runtime/env/real/real_env.h"

#include <atomic>

#include <gtest/gtest.h>

#include "runtime/env/notification.h"

namespace stepflow {
namespace {

TEST(RealEnvTest, ProvidesWorkingServices) {
  std::unique_ptr<RealEnv> real = RealEnv::Create(2);
  Env* env = real->env();
  ASSERT_NE(env->clock, nullptr);
  ASSERT_NE(env->scheduler, nullptr);
  ASSERT_NE(env->random, nullptr);
  EXPECT_EQ(env->transport, nullptr);
  EXPECT_EQ(env->scheduler->NumThreads(), 2);
  EXPECT_NE(env->random->New64(), env->random->New64());

  Notification n;
  std::atomic<int64_t> seen{0};
  env->scheduler->Schedule([&] {
    seen = env->clock->NowNanos();
    n.Notify();
  });
  env->scheduler->WaitFor(&n);
  EXPECT_GT(seen.load(), 0);
}

TEST(RealEnvTest, DestructionRunsQueuedWork) {
  std::atomic<int> ran{0};
  {
    std::unique_ptr<RealEnv> real = RealEnv::Create(1);
    Env* env = real->env();
    for (int i = 0; i < 50; ++i) {
      env->scheduler->Schedule([&ran, env] {
        env->random->New64();  // Services stay valid while draining.
        ran.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(ran.load(), 50);
}

}  // namespace
}  // namespace stepflow

namespace stepflow {
namespace {

TEST(RealEnvTest, ThreadCountFlagsAreBounded) {
  EXPECT_TRUE(CheckThreadCountFlag("inter_op_threads", 0).ok());
  EXPECT_TRUE(
      CheckThreadCountFlag("inter_op_threads", kMaxInterOpThreads).ok());
  absl::Status s = CheckThreadCountFlag("inter_op_threads", 100000);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("--inter_op_threads=100000"), std::string::npos);
  EXPECT_TRUE(absl::IsInvalidArgument(CheckThreadCountFlag("x", -1)));
}

}  // namespace
}  // namespace stepflow
