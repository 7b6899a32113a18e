// Print and PrintV2: the text written to the LogSink, as TensorFlow 2.21
// writes it (message prefix, summarize, first_n, nested and empty
// tensors), the pass-through output, and PrintV2's streams and errors;
// Assert's message, which summarizes its data the way Print does.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace test {
namespace {

// The text logged to `stream` since `before` entries.
std::string LoggedSince(size_t before, LogStream stream) {
  const auto entries = TestCpuDevice::TestLogSink()->entries();
  std::string out;
  for (size_t i = before; i < entries.size(); ++i) {
    if (entries[i].stream == stream) out += entries[i].text;
  }
  return out;
}

size_t LogSize() { return TestCpuDevice::TestLogSink()->entries().size(); }

TEST(PrintOpTest, FormatsLikeTensorFlow) {
  const Tensor x = Vec<float>({1.5f, 2.0f, 0.1f, 4.0f});
  std::vector<Tensor> data = {
      x,
      Make<std::string>(TensorShape({2, 2}), {"a", "b", "c", "d"}),
      Scalar<int32_t>(7),
      Make<int64_t>(TensorShape({2, 3, 2}),
                    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
      Vec<bool>({true, false}),
      Tensor(DT_DOUBLE, TensorShape({0, 2})),
      Vec<double>({1.0 / 3.0}),
  };
  TestNode node("print", "Print");
  node.Inputs(1 + static_cast<int>(data.size()))
      .Attr("T", DT_FLOAT)
      .Attr("U", std::vector<DataType>{DT_FLOAT, DT_STRING, DT_INT32, DT_INT64,
                                       DT_BOOL, DT_DOUBLE, DT_DOUBLE})
      .Attr("message", std::string("msg: "))
      .Attr("summarize", int64_t{5});
  std::vector<Tensor> inputs = {x};
  inputs.insert(inputs.end(), data.begin(), data.end());
  const size_t before = LogSize();
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(node, inputs, &out).ok());
  ExpectTensor<float>(out[0], TensorShape({4}), {1.5f, 2.0f, 0.1f, 4.0f});
  EXPECT_EQ(LoggedSince(before, LogStream::kStderr),
            "msg: [1.5 2 0.1 4][[a b][c d]][7][[[0 1][2 3][4...]]...][1 0][]"
            "[0.33333333333333331]\n");
}

TEST(PrintOpTest, FirstNLimitsTheRunsThatWrite) {
  TestNode node("print", "Print");
  node.Inputs(2)
      .Attr("T", DT_FLOAT)
      .Attr("U", std::vector<DataType>{DT_FLOAT})
      .Attr("first_n", int64_t{2})
      .Attr("summarize", int64_t{2});
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(node).ok());
  const Tensor x = Vec<float>({1.5f, 2.0f, 0.1f, 4.0f});
  const size_t before = LogSize();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(runner.Run({x, x}).ok());
    ExpectTensor<float>(runner.output(0), TensorShape({4}),
                        {1.5f, 2.0f, 0.1f, 4.0f});
  }
  EXPECT_EQ(LoggedSince(before, LogStream::kStderr),
            "[1.5 2...]\n[1.5 2...]\n");
}

TEST(PrintV2OpTest, WritesToTheNamedStream) {
  for (const auto& [name, stream] :
       std::vector<std::pair<std::string, LogStream>>{
           {"stdout", LogStream::kStdout},
           {"stderr", LogStream::kStderr},
           {"log(info)", LogStream::kInfo},
           {"log(warning)", LogStream::kWarning},
           {"log(error)", LogStream::kError}}) {
    TestNode node("print", "PrintV2");
    node.Inputs(1).Attr("output_stream", name).Attr("end", std::string("|"));
    const size_t before = LogSize();
    std::vector<Tensor> out;
    ASSERT_TRUE(RunKernel(node, {Scalar<std::string>("hello")}, &out).ok());
    EXPECT_EQ(LoggedSince(before, stream), "hello|") << name;
  }
}

TEST(PrintV2OpTest, Errors) {
  std::vector<Tensor> out;
  TestNode bad_stream("print", "PrintV2");
  bad_stream.Inputs(1).Attr("output_stream", std::string("stdlog"));
  EXPECT_EQ(RunKernel(bad_stream, {Scalar<std::string>("x")}, &out).code(),
            absl::StatusCode::kInvalidArgument);
  TestNode node("print", "PrintV2");
  node.Inputs(1);
  EXPECT_EQ(RunKernel(node, {Vec<std::string>({"a", "b"})}, &out).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(AssertOpTest, MessageLikeTensorFlow) {
  TestNode node("check", "Assert");
  node.Inputs(5)
      .Attr("T", std::vector<DataType>{DT_STRING, DT_FLOAT, DT_INT64, DT_FLOAT})
      .Attr("summarize", int64_t{3});
  std::vector<Tensor> out;
  const absl::Status s =
      RunKernel(node,
                {Scalar<bool>(false), Scalar<std::string>("x was"),
                 Make<float>(TensorShape({2, 2}), {1.5f, 0.1f, 3.0f, 4.0f}),
                 Vec<int64_t>({0, 1, 2, 3, 4}), Vec<float>({1.0f / 3.0f})},
                &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(
      s.message(),
      "assertion failed: [x was] [[1.5 0.1][3...]...] [0 1 2...] "
      "[0.333333343]"))
      << s.message();
}

}  // namespace
}  // namespace test
}  // namespace stepflow
