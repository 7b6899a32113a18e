#include "runtime/common/function_call_frame.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace stepflow {
namespace {

TEST(FunctionCallFrameTest, ArgsAndRetvalsRoundTrip) {
  FunctionCallFrame frame({DT_FLOAT, DT_INT32}, {DT_INT32});
  EXPECT_EQ(frame.num_args(), 2u);
  EXPECT_EQ(frame.num_retvals(), 1u);
  ASSERT_TRUE(
      frame.SetArgs({Tensor::Scalar<float>(1.5f), Tensor::Scalar<int32_t>(7)})
          .ok());
  const Tensor* arg = nullptr;
  ASSERT_TRUE(frame.GetArg(0, &arg).ok());
  EXPECT_EQ(arg->scalar<float>(), 1.5f);
  ASSERT_TRUE(frame.GetArg(1, &arg).ok());
  EXPECT_EQ(arg->scalar<int32_t>(), 7);

  ASSERT_TRUE(frame.SetRetval(0, Tensor::Scalar<int32_t>(42)).ok());
  std::vector<Tensor> rets;
  ASSERT_TRUE(frame.ConsumeRetvals(&rets).ok());
  ASSERT_EQ(rets.size(), 1u);
  EXPECT_EQ(rets[0].scalar<int32_t>(), 42);
  // Consumed: a second consume finds the retval missing.
  EXPECT_EQ(frame.ConsumeRetvals(&rets).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FunctionCallFrameTest, SetArgsChecksCountAndTypes) {
  FunctionCallFrame frame({DT_FLOAT, DT_INT32}, {});
  absl::Status s = frame.SetArgs({Tensor::Scalar<float>(1)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "Expected 2 arguments, got 1"))
      << s;
  s = frame.SetArgs({Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "Argument 1")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "float")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "int32")) << s;
}

TEST(FunctionCallFrameTest, GetArgErrors) {
  FunctionCallFrame frame({DT_FLOAT}, {});
  const Tensor* arg = nullptr;
  EXPECT_EQ(frame.GetArg(0, &arg).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(frame.SetArgs({Tensor::Scalar<float>(1)}).ok());
  EXPECT_EQ(frame.GetArg(1, &arg).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(frame.GetArg(-1, &arg).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(frame.GetArg(0, &arg).ok());
}

TEST(FunctionCallFrameTest, SetRetvalErrors) {
  FunctionCallFrame frame({}, {DT_FLOAT, DT_STRING});
  EXPECT_EQ(frame.SetRetval(2, Tensor::Scalar<float>(1)).code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status s = frame.SetRetval(0, Tensor::Scalar<int32_t>(1));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "Return value 0")) << s;
  ASSERT_TRUE(frame.SetRetval(0, Tensor::Scalar<float>(1)).ok());
  EXPECT_EQ(frame.SetRetval(0, Tensor::Scalar<float>(2)).code(),
            absl::StatusCode::kInvalidArgument);

  std::vector<Tensor> rets;
  s = frame.ConsumeRetvals(&rets);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "Return value 1")) << s;
  ASSERT_TRUE(frame.SetRetval(1, Tensor::Scalar<std::string>("x")).ok());
  ASSERT_TRUE(frame.ConsumeRetvals(&rets).ok());
  ASSERT_EQ(rets.size(), 2u);
  EXPECT_EQ(rets[0].scalar<float>(), 1.0f);
  EXPECT_EQ(rets[1].scalar<std::string>(), "x");
}

TEST(FunctionCallFrameTest, EmptyFrame) {
  FunctionCallFrame frame({}, {});
  EXPECT_TRUE(frame.SetArgs({}).ok());
  std::vector<Tensor> rets = {Tensor::Scalar<float>(1)};
  EXPECT_TRUE(frame.ConsumeRetvals(&rets).ok());
  EXPECT_TRUE(rets.empty());
}

TEST(FunctionCallFrameTest, ConcurrentRetvals) {
  constexpr int kN = 64;
  FunctionCallFrame frame({DT_INT32}, DataTypeVector(kN, DT_INT32));
  ASSERT_TRUE(frame.SetArgs({Tensor::Scalar<int32_t>(3)}).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&frame, t] {
      for (int i = t; i < kN; i += 4) {
        const Tensor* arg = nullptr;
        ASSERT_TRUE(frame.GetArg(0, &arg).ok());
        ASSERT_TRUE(frame
                        .SetRetval(i, Tensor::Scalar<int32_t>(
                                          i * arg->scalar<int32_t>()))
                        .ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<Tensor> rets;
  ASSERT_TRUE(frame.ConsumeRetvals(&rets).ok());
  for (int i = 0; i < kN; ++i) EXPECT_EQ(rets[i].scalar<int32_t>(), 3 * i);
}

}  // namespace
}  // namespace stepflow
