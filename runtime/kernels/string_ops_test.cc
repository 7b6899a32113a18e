// StringJoin: scalars, equal shapes, scalar broadcasting, separators, and
// the shape-mismatch error.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace test {
namespace {

NodeDef Join(int n, const std::string& separator = "") {
  TestNode node("join", "StringJoin");
  node.Inputs(n).Attr("N", n);
  if (!separator.empty()) node.Attr("separator", separator);
  return node;
}

TEST(StringJoinTest, Scalars) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(Join(2),
                        {Scalar<std::string>("/ckpt/model"),
                         Scalar<std::string>("_temp_ab12/part")},
                        &out)
                  .ok());
  ExpectTensor<std::string>(out[0], TensorShape({}),
                            {"/ckpt/model_temp_ab12/part"});
}

TEST(StringJoinTest, BroadcastsScalarsWithSeparator) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(Join(3, ", "),
                        {Vec<std::string>({"a", "b"}), Scalar<std::string>("-"),
                         Vec<std::string>({"c", ""})},
                        &out)
                  .ok());
  ExpectTensor<std::string>(out[0], TensorShape({2}), {"a, -, c", "b, -, "});
}

TEST(StringJoinTest, MatricesAndEmpty) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(Join(2),
                        {Make<std::string>(TensorShape({2, 1}), {"x", "y"}),
                         Make<std::string>(TensorShape({2, 1}), {"1", "2"})},
                        &out)
                  .ok());
  ExpectTensor<std::string>(out[0], TensorShape({2, 1}), {"x1", "y2"});
  ASSERT_TRUE(
      RunKernel(Join(2),
                {Tensor(DT_STRING, TensorShape({0})), Scalar<std::string>("s")},
                &out)
          .ok());
  ExpectTensor<std::string>(out[0], TensorShape({0}), {});
  ASSERT_TRUE(RunKernel(Join(0), {}, &out).ok());
  ExpectTensor<std::string>(out[0], TensorShape({}), {""});
}

TEST(StringJoinTest, ShapeMismatchIsInvalidArgument) {
  std::vector<Tensor> out;
  ExpectError(RunKernel(Join(2),
                        {Vec<std::string>({"a", "b"}),
                         Vec<std::string>({"c", "d", "e"})},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"Input shapes do not match: [2] vs. [3]", "{{node join}}"});
}

}  // namespace
}  // namespace test
}  // namespace stepflow
