#include "runtime/kernels/einsum_equation.h"

#include <gtest/gtest.h>

namespace stepflow {
namespace {

EinsumPlan Resolve(const std::string& equation,
                   const std::vector<TensorShape>& shapes,
                   absl::Status* status) {
  EinsumEquation eq;
  EinsumPlan plan;
  *status = ParseEinsumEquation(equation, &eq);
  if (status->ok()) *status = ResolveEinsum(eq, shapes, &plan);
  return plan;
}

TEST(EinsumEquationTest, MatmulLabels) {
  absl::Status s;
  EinsumPlan p =
      Resolve("ij,jk->ik", {TensorShape({2, 3}), TensorShape({3, 4})}, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(p.output_shape, TensorShape({2, 4}));
  const EinsumLabel& j = p.labels['j'];
  EXPECT_EQ(j.dim, 3);
  EXPECT_FALSE(j.in_output);
  EXPECT_EQ(j.input_stride[0], 1);
  EXPECT_EQ(j.input_stride[1], 4);
}

TEST(EinsumEquationTest, RepeatedLabelSumsStrides) {
  absl::Status s;
  EinsumPlan p = Resolve("ii->i", {TensorShape({3, 3})}, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(p.labels['i'].input_stride[0], 4);  // The diagonal.
  EXPECT_EQ(p.output_shape, TensorShape({3}));
}

TEST(EinsumEquationTest, EllipsisBroadcastsFromTheRight) {
  absl::Status s;
  EinsumPlan p =
      Resolve("...ij,...jk->...ik",
              {TensorShape({2, 1, 2, 3}), TensorShape({5, 3, 4})}, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(p.output_shape, TensorShape({2, 5, 2, 4}));
}

TEST(EinsumEquationTest, RepeatedOutputLabel) {
  absl::Status s;
  EinsumPlan p = Resolve("bi->bii", {TensorShape({2, 3})}, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(p.output.size(), 3u);
  EXPECT_EQ(p.unique_output.size(), 2u);
  EXPECT_EQ(p.output_shape, TensorShape({2, 3, 3}));
}

TEST(EinsumEquationTest, Errors) {
  absl::Status s;
  Resolve("ij,jk", {TensorShape({2, 3}), TensorShape({3, 4})}, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  Resolve("ij,jk->ik", {TensorShape({2, 3}), TensorShape({4, 4})}, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  Resolve("ij->ij", {TensorShape({2, 3, 1})}, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  Resolve("...ij->ij", {TensorShape({2, 3, 4})}, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  Resolve("...i,...i->...", {TensorShape({2, 3}), TensorShape({4, 3})}, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  Resolve("i,i,i->i", {TensorShape({3}), TensorShape({3}), TensorShape({3})},
          &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  Resolve("ij->iz", {TensorShape({2, 3})}, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
