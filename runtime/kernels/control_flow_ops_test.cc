#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Scalar;
using test::TestNode;
using test::Vec;

TEST(SwitchOpTest, ForwardsToOneSideOnly) {
  test::KernelRunner runner;
  ASSERT_TRUE(
      runner.Init(TestNode("sw", "Switch").Inputs(2).Attr("T", DT_STRING))
          .ok());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  const Tensor data = Vec<std::string>({"x"});
  ASSERT_TRUE(runner.Run({data, Scalar<bool>(true)}).ok());
  EXPECT_FALSE(runner.output(0).IsInitialized());
  ExpectTensor<std::string>(runner.output(1), TensorShape({1}), {"x"});
  EXPECT_TRUE(runner.output(1).SharesBufferWith(data));
  ASSERT_TRUE(runner.Run({data, Scalar<bool>(false)}).ok());
  ExpectTensor<std::string>(runner.output(0), TensorShape({1}), {"x"});
  EXPECT_FALSE(runner.output(1).IsInitialized());
}

TEST(SwitchOpTest, PredicateMustBeScalar) {
  std::vector<Tensor> outs;
  ExpectError(
      test::RunKernel(TestNode("sw", "Switch").Inputs(2).Attr("T", DT_FLOAT),
                      {Vec<float>({1}), Vec<bool>({true, false})}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"The second input must be a scalar, but it has shape [2]",
       "{{node sw}}"});
}

TEST(MergeOpTest, ForwardsFirstLiveInput) {
  test::KernelRunner runner;
  ASSERT_TRUE(
      runner
          .Init(
              TestNode("m", "Merge").Inputs(3).Attr("N", 3).Attr("T", DT_INT32))
          .ok());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  ASSERT_TRUE(runner.Run({Tensor(), Vec<int32_t>({7}), Tensor()}).ok());
  ExpectTensor<int32_t>(runner.output(0), TensorShape({1}), {7});
  ExpectTensor<int32_t>(runner.output(1), TensorShape({}), {1});
  ASSERT_TRUE(
      runner.Run({Vec<int32_t>({1}), Tensor(), Vec<int32_t>({3})}).ok());
  ExpectTensor<int32_t>(runner.output(0), TensorShape({1}), {1});
  ExpectTensor<int32_t>(runner.output(1), TensorShape({}), {0});
}

TEST(MergeOpTest, NoLiveInputIsInternal) {
  std::vector<Tensor> outs;
  ExpectError(
      test::RunKernel(
          TestNode("mrg", "Merge").Inputs(2).Attr("N", 2).Attr("T", DT_INT32),
          {Tensor(), Tensor()}, &outs),
      absl::StatusCode::kInternal, {"{{node mrg}}"});
}

TEST(LoopKernelsTest, EnterExitNextIterationForwardTheirInput) {
  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    SCOPED_TRACE(op);
    test::KernelRunner runner;
    TestNode node("fwd", op);
    node.Inputs(1).Attr("T", DT_INT32);
    if (std::string(op) == "Enter") {
      node.Attr("frame_name", std::string("loop"))
          .Attr("is_constant", false)
          .Attr("parallel_iterations", static_cast<int64_t>(10));
    }
    ASSERT_TRUE(runner.Init(node).ok());
    EXPECT_FALSE(runner.kernel()->IsExpensive());
    const Tensor data = Vec<int32_t>({4, 5});
    ASSERT_TRUE(runner.Run({data}).ok());
    ExpectTensor<int32_t>(runner.output(0), TensorShape({2}), {4, 5});
    EXPECT_TRUE(runner.output(0).SharesBufferWith(data));
  }
}

TEST(LoopKernelsTest, LoopCondForwardsAScalarPredicate) {
  test::KernelRunner runner;
  ASSERT_TRUE(runner.Init(TestNode("lc", "LoopCond").Inputs(1)).ok());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  ASSERT_TRUE(runner.Run({Scalar<bool>(true)}).ok());
  ExpectTensor<bool>(runner.output(0), TensorShape({}), {true});
  ASSERT_TRUE(runner.Run({Scalar<bool>(false)}).ok());
  ExpectTensor<bool>(runner.output(0), TensorShape({}), {false});
}

// As in TensorFlow, LoopCond does not check its input's shape; the loop's
// Switch nodes reject a non-scalar predicate.
TEST(LoopKernelsTest, LoopCondForwardsANonScalar) {
  std::vector<Tensor> outs;
  ASSERT_TRUE(test::RunKernel(TestNode("lc", "LoopCond").Inputs(1),
                              {Vec<bool>({true, false})}, &outs)
                  .ok());
  ExpectTensor<bool>(outs[0], TensorShape({2}), {true, false});
}

TEST(LoopKernelsTest, LoopCondStopsACancelledStep) {
  test::KernelRunner runner;
  ASSERT_TRUE(runner.Init(TestNode("lc", "LoopCond").Inputs(1)).ok());
  CancellationManager cm;
  runner.set_cancellation_manager(&cm);
  ASSERT_TRUE(runner.Run({Scalar<bool>(true)}).ok());
  cm.StartCancel();
  ExpectError(runner.Run({Scalar<bool>(true)}), absl::StatusCode::kCancelled,
              {"Loop execution was cancelled", "{{node lc}}"});
}

TEST(LoopKernelsTest, ControlTriggerDoesNothing) {
  test::KernelRunner runner;
  ASSERT_TRUE(runner.Init(TestNode("ct", "ControlTrigger")).ok());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  EXPECT_EQ(runner.kernel()->num_outputs(), 0);
  EXPECT_TRUE(runner.Run({}).ok());
}

TEST(LoopKernelsTest, RefVariantsAreRegistered) {
  for (const char* op :
       {"RefEnter", "RefExit", "RefNextIteration", "RefSwitch", "RefMerge"}) {
    SCOPED_TRACE(op);
    TestNode node("r", op);
    const std::string name(op);
    node.Inputs(name == "RefSwitch" ? 2 : 1).Attr("T", DT_FLOAT);
    if (name == "RefEnter") node.Attr("frame_name", std::string("loop"));
    if (name == "RefMerge") node.Attr("N", static_cast<int64_t>(1));
    test::KernelRunner runner;
    absl::Status s = runner.Init(node);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_TRUE(IsRefType(runner.kernel()->output_type(0)));
  }
}

}  // namespace
}  // namespace stepflow
