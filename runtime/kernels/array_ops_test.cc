// Const, Placeholder(WithDefault), Identity/StopGradient, shape queries,
// Reshape, ExpandDims, Squeeze, Fill, Range, Tile, ConcatV2, Pack,
// ZerosLike/OnesLike, AddN.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/tensor.pb.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Make;
using test::RunKernel;
using test::Scalar;
using test::TestNode;
using test::Vec;

TEST(ConstOpTest, OutputsValue) {
  TensorProto proto;
  TensorToProto(Make<int32_t>(TensorShape({2}), {4, 5}), &proto);
  test::KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(TestNode("c", "Const")
                            .Attr("value", proto)
                            .Attr("dtype", DT_INT32))
                  .ok());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  ASSERT_TRUE(runner.Run({}).ok());
  ExpectTensor<int32_t>(runner.output(0), TensorShape({2}), {4, 5});
  // Every run yields the same value.
  ASSERT_TRUE(runner.Run({}).ok());
  ExpectTensor<int32_t>(runner.output(0), TensorShape({2}), {4, 5});
}

TEST(ConstOpTest, StringsAndTypeMismatch) {
  TensorProto proto;
  TensorToProto(Vec<std::string>({"hi"}), &proto);
  Tensor out;
  ASSERT_TRUE(
      RunKernel(
          TestNode("c", "Const").Attr("value", proto).Attr("dtype", DT_STRING),
          {}, &out)
          .ok());
  ExpectTensor<std::string>(out, TensorShape({1}), {"hi"});
  test::KernelRunner runner;
  ExpectError(runner.Init(TestNode("bad_const", "Const")
                              .Attr("value", proto)
                              .Attr("dtype", DT_FLOAT)),
              absl::StatusCode::kInvalidArgument,
              {"Type mismatch between value (string) and dtype (float)",
               "{{node bad_const}}"});
}

TEST(PlaceholderOpTest, MustBeFed) {
  Tensor out;
  PartialTensorShape unknown;
  ExpectError(
      RunKernel(TestNode("x", "Placeholder").Attr("dtype", DT_FLOAT), {}, &out),
      absl::StatusCode::kInvalidArgument,
      {"You must feed a value for placeholder tensor 'x' with dtype "
       "float",
       "{{node x}}"});
  TensorShapeProto shape;
  shape.add_dim()->set_size(-1);
  shape.add_dim()->set_size(3);
  AttrValue shape_attr;
  *shape_attr.mutable_shape() = shape;
  ExpectError(RunKernel(TestNode("y", "Placeholder")
                            .Attr("dtype", DT_INT32)
                            .Attr("shape", shape_attr),
                        {}, &out),
              absl::StatusCode::kInvalidArgument,
              {"placeholder tensor 'y' with dtype int32 and shape [?,3]",
               "{{node y}}"});
}

TEST(IdentityOpsTest, ForwardAnyTypeCheaply) {
  for (const char* op : {"Identity", "StopGradient"}) {
    test::KernelRunner runner;
    ASSERT_TRUE(
        runner.Init(TestNode("i", op).Inputs(1).Attr("T", DT_STRING)).ok());
    EXPECT_FALSE(runner.kernel()->IsExpensive());
    Tensor in = Vec<std::string>({"a", "b"});
    ASSERT_TRUE(runner.Run({in}).ok());
    ExpectTensor<std::string>(runner.output(0), TensorShape({2}), {"a", "b"});
    EXPECT_TRUE(runner.output(0).SharesBufferWith(in));
  }
  Tensor out;
  TensorShapeProto shape;
  AttrValue shape_attr;
  *shape_attr.mutable_shape() = shape;
  ASSERT_TRUE(RunKernel(TestNode("p", "PlaceholderWithDefault")
                            .Inputs(1)
                            .Attr("dtype", DT_BOOL)
                            .Attr("shape", shape_attr),
                        {Scalar<bool>(true)}, &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({}), {true});
}

TEST(ShapeOpsTest, ShapeRankSize) {
  const Tensor x = Make<float>(TensorShape({2, 0, 3}), {});
  Tensor out;
  ASSERT_TRUE(
      RunKernel(TestNode("s", "Shape").Inputs(1).Attr("T", DT_FLOAT), {x}, &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {2, 0, 3});
  ASSERT_TRUE(RunKernel(TestNode("s", "Shape")
                            .Inputs(1)
                            .Attr("T", DT_FLOAT)
                            .Attr("out_type", DT_INT64),
                        {x}, &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({3}), {2, 0, 3});
  ASSERT_TRUE(
      RunKernel(TestNode("r", "Rank").Inputs(1).Attr("T", DT_FLOAT), {x}, &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {3});
  ASSERT_TRUE(RunKernel(TestNode("n", "Size").Inputs(1).Attr("T", DT_STRING),
                        {Vec<std::string>({"a", "b"})}, &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {2});
}

TEST(ShapeOpsTest, Reshape) {
  const NodeDef def = TestNode("rs", "Reshape").Inputs(2).Attr("T", DT_INT32);
  const Tensor x = Make<int32_t>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  test::KernelRunner runner;
  ASSERT_TRUE(runner.Init(def).ok());
  ASSERT_TRUE(runner.Run({x, Vec<int32_t>({3, -1})}).ok());
  ExpectTensor<int32_t>(runner.output(0), TensorShape({3, 2}),
                        {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(runner.output(0).SharesBufferWith(x));
  Tensor out;
  EXPECT_FALSE(RunKernel(def, {x, Vec<int32_t>({})}, &out).ok());
  ASSERT_TRUE(
      RunKernel(def,
                {Make<int32_t>(TensorShape({1, 1}), {7}), Vec<int32_t>({})},
                &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {7});
  ExpectError(
      RunKernel(def, {x, Vec<int32_t>({-1, -1})}, &out),
      absl::StatusCode::kInvalidArgument,
      {"Only one input size may be -1, not both 0 and 1", "{{node rs}}"});
  ExpectError(RunKernel(def, {x, Vec<int32_t>({4})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Input to reshape is a tensor with 6 values, but the requested "
               "shape has 4",
               "{{node rs}}"});
  ExpectError(RunKernel(def, {x, Vec<int32_t>({4, -1})}, &out),
              absl::StatusCode::kInvalidArgument, {"requires a multiple of 4"});
  ExpectError(RunKernel(def, {x, Vec<int32_t>({-2, 3})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Size 0 must be non-negative, not -2"});
  ExpectError(
      RunKernel(def, {x, Make<int32_t>(TensorShape({1, 2}), {2, 3})}, &out),
      absl::StatusCode::kInvalidArgument,
      {"sizes input must be 1-D, not [1,2]"});
  // With a zero size requested, the -1 comes from the input's non-zero
  // dims (as in TensorFlow).
  ASSERT_TRUE(
      RunKernel(def,
                {Make<int32_t>(TensorShape({0}), {}), Vec<int32_t>({0, -1})},
                &out)
          .ok());
  EXPECT_EQ(out.shape(), TensorShape({0, 1}));
  ASSERT_TRUE(
      RunKernel(def,
                {Make<int32_t>(TensorShape({0, 3}), {}), Vec<int32_t>({0, -1})},
                &out)
          .ok());
  EXPECT_EQ(out.shape(), TensorShape({0, 3}));
}

TEST(ShapeOpsTest, ExpandDimsAndSqueeze) {
  const NodeDef ed = TestNode("ed", "ExpandDims").Inputs(2).Attr("T", DT_FLOAT);
  const Tensor x = Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  Tensor out;
  ASSERT_TRUE(RunKernel(ed, {x, Scalar<int32_t>(0)}, &out).ok());
  EXPECT_EQ(out.shape().DebugString(), "[1,2,3]");
  ASSERT_TRUE(RunKernel(ed, {x, Vec<int32_t>({-1})}, &out).ok());
  EXPECT_EQ(out.shape().DebugString(), "[2,3,1]");
  ExpectError(RunKernel(ed, {x, Scalar<int32_t>(3)}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Tried to expand dim index 3 for tensor with 2 dimensions.",
               "{{node ed}}"});
  ExpectError(RunKernel(ed, {x, Vec<int32_t>({0, 1})}, &out),
              absl::StatusCode::kInvalidArgument, {"single value"});

  const Tensor y = Make<float>(TensorShape({1, 2, 1}), {7, 8});
  ASSERT_TRUE(RunKernel(TestNode("sq", "Squeeze").Inputs(1).Attr("T", DT_FLOAT),
                        {y}, &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2}), {7, 8});
  ASSERT_TRUE(RunKernel(TestNode("sq", "Squeeze")
                            .Inputs(1)
                            .Attr("T", DT_FLOAT)
                            .Attr("squeeze_dims", {-1}),
                        {y}, &out)
                  .ok());
  EXPECT_EQ(out.shape().DebugString(), "[1,2]");
  ExpectError(RunKernel(TestNode("sq", "Squeeze")
                            .Inputs(1)
                            .Attr("T", DT_FLOAT)
                            .Attr("squeeze_dims", {1}),
                        {y}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Can not squeeze dim[1], expected a dimension of 1, got 2",
               "{{node sq}}"});
  ExpectError(RunKernel(TestNode("sq", "Squeeze")
                            .Inputs(1)
                            .Attr("T", DT_FLOAT)
                            .Attr("squeeze_dims", {3}),
                        {y}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Tried to squeeze dim index 3 for tensor with 3 dimensions."});
}

TEST(FillOpTest, ValuesAndErrors) {
  const NodeDef def = TestNode("f", "Fill").Inputs(2).Attr("T", DT_STRING);
  Tensor out;
  ASSERT_TRUE(
      RunKernel(def, {Vec<int32_t>({2, 1}), Scalar<std::string>("z")}, &out)
          .ok());
  ExpectTensor<std::string>(out, TensorShape({2, 1}), {"z", "z"});
  ASSERT_TRUE(RunKernel(TestNode("f", "Fill").Inputs(2).Attr("T", DT_DOUBLE),
                        {Vec<int32_t>({3}), Scalar<double>(1.5)}, &out)
                  .ok());
  ExpectTensor<double>(out, TensorShape({3}), {1.5, 1.5, 1.5});
  ExpectError(
      RunKernel(def, {Vec<int32_t>({2, -1}), Scalar<std::string>("z")}, &out),
      absl::StatusCode::kInvalidArgument, {"{{node f}}"});
  ExpectError(
      RunKernel(def, {Scalar<int32_t>(2), Scalar<std::string>("z")}, &out),
      absl::StatusCode::kInvalidArgument, {"dims must be a vector"});
  ExpectError(
      RunKernel(def, {Vec<int32_t>({2}), Vec<std::string>({"a"})}, &out),
      absl::StatusCode::kInvalidArgument, {"value must be a scalar"});
  ExpectError(
      RunKernel(TestNode("huge", "Fill").Inputs(2).Attr("T", DT_FLOAT),
                {Vec<int32_t>({1 << 30, 1 << 30}), Scalar<float>(0)}, &out),
      absl::StatusCode::kResourceExhausted, {"{{node huge}}"});
}

TEST(RangeOpTest, ValuesAndErrors) {
  const NodeDef def = TestNode("rg", "Range").Inputs(3).Attr("Tidx", DT_INT32);
  Tensor out;
  ASSERT_TRUE(
      RunKernel(def,
                {Scalar<int32_t>(0), Scalar<int32_t>(7), Scalar<int32_t>(3)},
                &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {0, 3, 6});
  ASSERT_TRUE(
      RunKernel(def,
                {Scalar<int32_t>(5), Scalar<int32_t>(1), Scalar<int32_t>(-2)},
                &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({2}), {5, 3});
  ASSERT_TRUE(
      RunKernel(def,
                {Scalar<int32_t>(2), Scalar<int32_t>(2), Scalar<int32_t>(1)},
                &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({0}), {});
  ASSERT_TRUE(
      RunKernel(TestNode("rg", "Range").Inputs(3).Attr("Tidx", DT_FLOAT),
                {Scalar<float>(0), Scalar<float>(1), Scalar<float>(0.25)}, &out)
          .ok());
  ExpectTensor<float>(out, TensorShape({4}), {0, 0.25, 0.5, 0.75});
  ASSERT_TRUE(
      RunKernel(TestNode("rg", "Range").Inputs(3).Attr("Tidx", DT_INT64),
                {Scalar<int64_t>(INT64_MIN), Scalar<int64_t>(INT64_MAX),
                 Scalar<int64_t>(INT64_MAX)},
                &out)
          .ok());
  ExpectTensor<int64_t>(out, TensorShape({3}), {INT64_MIN, -1, INT64_MAX - 1});
  ExpectError(
      RunKernel(def,
                {Scalar<int32_t>(0), Scalar<int32_t>(3), Scalar<int32_t>(0)},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"Requires delta != 0", "{{node rg}}"});
  ExpectError(
      RunKernel(def,
                {Scalar<int32_t>(5), Scalar<int32_t>(1), Scalar<int32_t>(1)},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"Requires start <= limit when delta > 0: 5/1"});
  ExpectError(
      RunKernel(def,
                {Scalar<int32_t>(1), Scalar<int32_t>(5), Scalar<int32_t>(-1)},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"Requires start >= limit when delta < 0: 1/5"});
  // A one-element vector stands for its element (as in TensorFlow).
  ASSERT_TRUE(
      RunKernel(def,
                {Vec<int32_t>({3}), Scalar<int32_t>(5), Scalar<int32_t>(1)},
                &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({2}), {3, 4});
  ExpectError(
      RunKernel(def,
                {Vec<int32_t>({0, 1}), Scalar<int32_t>(5), Scalar<int32_t>(1)},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"start must be a scalar, not shape [2]"});
  ExpectError(
      RunKernel(
          TestNode("rg", "Range").Inputs(3).Attr("Tidx", DT_DOUBLE),
          {Scalar<double>(0), Scalar<double>(INFINITY), Scalar<double>(1)},
          &out),
      absl::StatusCode::kInvalidArgument, {"finite"});
  ExpectError(
      RunKernel(
          TestNode("rg", "Range").Inputs(3).Attr("Tidx", DT_INT64),
          {Scalar<int64_t>(0), Scalar<int64_t>(INT64_MAX), Scalar<int64_t>(1)},
          &out),
      absl::StatusCode::kResourceExhausted, {"{{node rg}}"});
}

TEST(TileOpTest, ValuesAndErrors) {
  const NodeDef def = TestNode("t", "Tile").Inputs(2).Attr("T", DT_INT32);
  Tensor out;
  ASSERT_TRUE(RunKernel(def,
                        {Make<int32_t>(TensorShape({2, 2}), {1, 2, 3, 4}),
                         Vec<int32_t>({2, 3})},
                        &out)
                  .ok());
  ExpectTensor<int32_t>(
      out, TensorShape({4, 6}),
      {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  ASSERT_TRUE(RunKernel(TestNode("t", "Tile").Inputs(2).Attr("T", DT_STRING),
                        {Vec<std::string>({"a", "b"}), Vec<int32_t>({2})}, &out)
                  .ok());
  ExpectTensor<std::string>(out, TensorShape({4}), {"a", "b", "a", "b"});
  ASSERT_TRUE(
      RunKernel(def, {Vec<int32_t>({1, 2}), Vec<int32_t>({0})}, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({0}), {});
  ExpectError(
      RunKernel(def, {Vec<int32_t>({1, 2}), Vec<int32_t>({1, 1})}, &out),
      absl::StatusCode::kInvalidArgument,
      {"Expected multiples argument to be a vector of length 1", "{{node t}}"});
  ExpectError(RunKernel(def, {Vec<int32_t>({1, 2}), Vec<int32_t>({-1})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Expected multiples[0] >= 0, but got -1"});
}

TEST(ConcatOpTest, Axes) {
  const NodeDef def =
      TestNode("c", "ConcatV2").Inputs(3).Attr("N", 2).Attr("T", DT_FLOAT);
  const Tensor a = Make<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  const Tensor b = Make<float>(TensorShape({2, 1}), {5, 6});
  Tensor out;
  ASSERT_TRUE(RunKernel(def, {a, b, Scalar<int32_t>(1)}, &out).ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {1, 2, 5, 3, 4, 6});
  ASSERT_TRUE(RunKernel(def, {a, b, Scalar<int32_t>(-1)}, &out).ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {1, 2, 5, 3, 4, 6});
  ASSERT_TRUE(RunKernel(def, {a, a, Scalar<int32_t>(0)}, &out).ok());
  ExpectTensor<float>(out, TensorShape({4, 2}), {1, 2, 3, 4, 1, 2, 3, 4});
  ASSERT_TRUE(
      RunKernel(
          TestNode("c", "ConcatV2").Inputs(4).Attr("N", 3).Attr("T", DT_STRING),
          {Vec<std::string>({"a"}), Vec<std::string>({}),
           Vec<std::string>({"b", "c"}), Scalar<int32_t>(0)},
          &out)
          .ok());
  ExpectTensor<std::string>(out, TensorShape({3}), {"a", "b", "c"});
}

TEST(ConcatOpTest, Errors) {
  const NodeDef def =
      TestNode("cc", "ConcatV2").Inputs(3).Attr("N", 2).Attr("T", DT_FLOAT);
  const Tensor a = Make<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  Tensor out;
  ExpectError(
      RunKernel(def, {a, a, Scalar<int32_t>(2)}, &out),
      absl::StatusCode::kInvalidArgument,
      {"Expected concatenating dimensions in the range [-2, 2), but got 2",
       "{{node cc}}"});
  ExpectError(RunKernel(def, {a, Vec<float>({1, 2}), Scalar<int32_t>(0)}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Ranks of all input tensors should match"});
  ExpectError(RunKernel(def,
                        {a, Make<float>(TensorShape({1, 3}), {1, 2, 3}),
                         Scalar<int32_t>(0)},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"Dimension 1 in both shapes must be equal"});
  ExpectError(
      RunKernel(def, {Scalar<float>(1), Scalar<float>(2), Scalar<int32_t>(0)},
                &out),
      absl::StatusCode::kInvalidArgument, {"Can't concatenate scalars"});
}

TEST(PackOpTest, AxesAndErrors) {
  const Tensor a = Vec<int64_t>({1, 2}), b = Vec<int64_t>({3, 4});
  Tensor out;
  ASSERT_TRUE(
      RunKernel(
          TestNode("p", "Pack").Inputs(2).Attr("N", 2).Attr("T", DT_INT64),
          {a, b}, &out)
          .ok());
  ExpectTensor<int64_t>(out, TensorShape({2, 2}), {1, 2, 3, 4});
  ASSERT_TRUE(RunKernel(TestNode("p", "Pack")
                            .Inputs(2)
                            .Attr("N", 2)
                            .Attr("T", DT_INT64)
                            .Attr("axis", 1),
                        {a, b}, &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({2, 2}), {1, 3, 2, 4});
  ASSERT_TRUE(
      RunKernel(TestNode("p", "Pack").Inputs(2).Attr("N", 2).Attr("T", DT_BOOL),
                {Scalar<bool>(true), Scalar<bool>(false)}, &out)
          .ok());
  ExpectTensor<bool>(out, TensorShape({2}), {true, false});
  ExpectError(
      RunKernel(
          TestNode("pk", "Pack").Inputs(2).Attr("N", 2).Attr("T", DT_INT64),
          {a, Vec<int64_t>({1})}, &out),
      absl::StatusCode::kInvalidArgument,
      {"Shapes of all inputs must match: values[0].shape = [2] != "
       "values[1].shape = [1]",
       "{{node pk}}"});
  ExpectError(RunKernel(TestNode("pk", "Pack")
                            .Inputs(2)
                            .Attr("N", 2)
                            .Attr("T", DT_INT64)
                            .Attr("axis", 2),
                        {a, b}, &out),
              absl::StatusCode::kInvalidArgument, {"axis = 2 not in [-2, 2)"});
}

TEST(ZerosOnesLikeTest, Values) {
  Tensor out;
  ASSERT_TRUE(
      RunKernel(TestNode("z", "ZerosLike").Inputs(1).Attr("T", DT_INT32),
                {Vec<int32_t>({5, 6})}, &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({2}), {0, 0});
  ASSERT_TRUE(RunKernel(TestNode("o", "OnesLike").Inputs(1).Attr("T", DT_BOOL),
                        {Vec<bool>({false, true})}, &out)
                  .ok());
  ExpectTensor<bool>(out, TensorShape({2}), {true, true});
  ASSERT_TRUE(RunKernel(TestNode("o", "OnesLike").Inputs(1).Attr("T", DT_HALF),
                        {Make<half>(TensorShape({1, 1}), {half(3.0f)})}, &out)
                  .ok());
  ExpectTensor<half>(out, TensorShape({1, 1}), {half(1.0f)});
}

TEST(AddNOpTest, ValuesAliasingAndErrors) {
  const NodeDef def =
      TestNode("an", "AddN").Inputs(3).Attr("N", 3).Attr("T", DT_FLOAT);
  Tensor out;
  ASSERT_TRUE(RunKernel(def,
                        {Vec<float>({1, 2}), Vec<float>({10, 20}),
                         Vec<float>({100, 200})},
                        &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2}), {111, 222});
  // The same buffer three times: 3x (the output must not alias an input
  // that is read later).
  test::KernelRunner runner;
  ASSERT_TRUE(runner.Init(def).ok());
  {
    std::vector<Tensor> in(3, Tensor());
    in[0] = Vec<float>({1, 2});
    in[1] = in[0];
    in[2] = in[0];
    ASSERT_TRUE(runner.Run(in).ok());
  }
  ExpectTensor<float>(runner.output(0), TensorShape({2}), {3, 6});
  ExpectError(
      RunKernel(def, {Vec<float>({1, 2}), Vec<float>({1}), Vec<float>({1, 2})},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"must have the same size and shape", "Input 0: [2] != input 1: [1]",
       "{{node an}}"});
  ASSERT_TRUE(
      RunKernel(
          TestNode("an", "AddN").Inputs(1).Attr("N", 1).Attr("T", DT_INT32),
          {Vec<int32_t>({4})}, &out)
          .ok());
  ExpectTensor<int32_t>(out, TensorShape({1}), {4});
}

}  // namespace
}  // namespace stepflow
