#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "runtime/framework/call_frame.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::TestNode;
using test::Vec;

// A call frame over fixed args; retvals recorded once each.
class FakeCallFrame : public CallFrameInterface {
 public:
  FakeCallFrame(std::vector<Tensor> args, size_t num_retvals)
      : args_(std::move(args)), retvals_(num_retvals) {}
  size_t num_args() const override { return args_.size(); }
  size_t num_retvals() const override { return retvals_.size(); }
  absl::Status GetArg(int index, const Tensor** val) override {
    if (index < 0 || index >= static_cast<int>(args_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Arg ", index, " out of range"));
    }
    *val = &args_[index];
    return absl::OkStatus();
  }
  absl::Status SetRetval(int index, const Tensor& val) override {
    if (index < 0 || index >= static_cast<int>(retvals_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Retval ", index, " out of range"));
    }
    if (retvals_[index].IsInitialized()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Retval ", index, " set twice"));
    }
    retvals_[index] = val;
    return absl::OkStatus();
  }
  const Tensor& retval(int i) const { return retvals_[i]; }

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
};

TEST(ArgOpTest, ReadsFromCallFrame) {
  FakeCallFrame frame({Vec<float>({1}), Vec<int32_t>({2, 3})}, 0);
  test::KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(TestNode("_arg_x_0_1", "_Arg")
                            .Attr("T", DT_INT32)
                            .Attr("index", 1))
                  .ok());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  runner.set_call_frame(&frame);
  ASSERT_TRUE(runner.Run({}).ok());
  ExpectTensor<int32_t>(runner.output(0), TensorShape({2}), {2, 3});
}

TEST(ArgOpTest, Errors) {
  FakeCallFrame frame({Vec<float>({1})}, 0);
  test::KernelRunner wrong_type;
  ASSERT_TRUE(
      wrong_type
          .Init(TestNode("a", "_Arg").Attr("T", DT_INT32).Attr("index", 0))
          .ok());
  wrong_type.set_call_frame(&frame);
  ExpectError(wrong_type.Run({}), absl::StatusCode::kInvalidArgument,
              {"Type mismatch: actual float vs. expect int32", "{{node a}}"});

  test::KernelRunner out_of_range;
  ASSERT_TRUE(
      out_of_range
          .Init(TestNode("b", "_Arg").Attr("T", DT_FLOAT).Attr("index", 5))
          .ok());
  out_of_range.set_call_frame(&frame);
  ExpectError(out_of_range.Run({}), absl::StatusCode::kInvalidArgument,
              {"out of range", "{{node b}}"});

  test::KernelRunner no_frame;
  ASSERT_TRUE(
      no_frame.Init(TestNode("c", "_Arg").Attr("T", DT_FLOAT).Attr("index", 0))
          .ok());
  ExpectError(no_frame.Run({}), absl::StatusCode::kInternal, {"{{node c}}"});

  test::KernelRunner negative;
  EXPECT_FALSE(
      negative.Init(TestNode("d", "_Arg").Attr("T", DT_FLOAT).Attr("index", -1))
          .ok());
}

TEST(RetvalOpTest, WritesToCallFrame) {
  FakeCallFrame frame({}, 2);
  test::KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(TestNode("_retval_y_0_1", "_Retval")
                            .Inputs(1)
                            .Attr("T", DT_STRING)
                            .Attr("index", 1))
                  .ok());
  runner.set_call_frame(&frame);
  ASSERT_TRUE(runner.Run({Vec<std::string>({"out"})}).ok());
  ExpectTensor<std::string>(frame.retval(1), TensorShape({1}), {"out"});
  EXPECT_FALSE(frame.retval(0).IsInitialized());
  // A second write is the frame's error, reported naming the node.
  ExpectError(runner.Run({Vec<std::string>({"again"})}),
              absl::StatusCode::kInvalidArgument,
              {"set twice", "{{node _retval_y_0_1}}"});
}

}  // namespace
}  // namespace stepflow
