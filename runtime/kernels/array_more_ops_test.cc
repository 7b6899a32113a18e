// BroadcastGradientArgs, ShapeN, DynamicStitch, TileGrad, the identity
// variants, Transpose, Slice, Gather/GatherV2, OneHot, Unpack, Split and
// SplitV: values, dtypes, buffer sharing and every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernels/gradient_test_util.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Make;
using test::RunKernel;
using test::RunKernelOk;
using test::Scalar;
using test::TestNode;
using test::Values;
using test::Vec;

// --- BroadcastGradientArgs -------------------------------------------------

NodeDef BGA(DataType t = DT_INT32) {
  return TestNode("bga", "BroadcastGradientArgs").Inputs(2).Attr("T", t);
}

void ExpectReduce(const std::vector<int32_t>& s0,
                  const std::vector<int32_t>& s1,
                  const std::vector<int32_t>& r0,
                  const std::vector<int32_t>& r1) {
  SCOPED_TRACE(testing::PrintToString(s0) + " vs " +
               testing::PrintToString(s1));
  std::vector<Tensor> outs =
      RunKernelOk(BGA(), {Vec<int32_t>(s0), Vec<int32_t>(s1)});
  ASSERT_EQ(outs.size(), 2u);
  ExpectTensor<int32_t>(outs[0], TensorShape({(int64_t)r0.size()}), r0);
  ExpectTensor<int32_t>(outs[1], TensorShape({(int64_t)r1.size()}), r1);
}

TEST(BroadcastGradientArgsTest, ReductionAxes) {
  ExpectReduce({2, 3}, {2, 3}, {}, {});
  ExpectReduce({2, 3}, {3}, {}, {0});
  ExpectReduce({3}, {2, 3}, {0}, {});
  ExpectReduce({2, 1}, {1, 3}, {1}, {0});
  ExpectReduce({}, {2, 3}, {0, 1}, {});
  ExpectReduce({1, 1}, {1}, {0, 1}, {0, 1});  // Both-1 dims reduce on both.
  ExpectReduce({5, 1, 4}, {3, 1}, {1}, {0, 2});
  std::vector<Tensor> outs = RunKernelOk(
      BGA(DT_INT64), {Vec<int64_t>({4, 1, 2}), Vec<int64_t>({4, 6, 2})});
  ExpectTensor<int64_t>(outs[0], TensorShape({1}), {1});
  ExpectTensor<int64_t>(outs[1], TensorShape({0}), {});
}

TEST(BroadcastGradientArgsTest, Errors) {
  std::vector<Tensor> outs;
  ExpectError(
      RunKernel(BGA(), {Vec<int32_t>({2, 3}), Vec<int32_t>({4})}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"Incompatible shapes: [2,3] vs. [4]", "{{node bga}}"});
  ExpectError(RunKernel(BGA(), {Scalar<int32_t>(2), Vec<int32_t>({4})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"In[0] must be a vector", "{{node bga}}"});
}

// --- ShapeN ----------------------------------------------------------------

TEST(ShapeNTest, OneOutputPerInput) {
  NodeDef def = TestNode("sn", "ShapeN")
                    .Inputs(2)
                    .Attr("N", 2)
                    .Attr("T", DT_FLOAT)
                    .Attr("out_type", DT_INT64);
  std::vector<Tensor> outs = RunKernelOk(
      def, {Make<float>(TensorShape({2, 3}), std::vector<float>(6, 0)),
            Scalar<float>(1)});
  ASSERT_EQ(outs.size(), 2u);
  ExpectTensor<int64_t>(outs[0], TensorShape({2}), {2, 3});
  ExpectTensor<int64_t>(outs[1], TensorShape({0}), {});
}

// --- DynamicStitch ---------------------------------------------------------

NodeDef Stitch(int n, DataType t) {
  return TestNode("stitch", "DynamicStitch")
      .Inputs(2 * n)
      .Attr("N", n)
      .Attr("T", t);
}

TEST(DynamicStitchTest, MergesRowsLaterWins) {
  // TensorFlow's documented example.
  std::vector<Tensor> outs = RunKernelOk(
      Stitch(3, DT_INT32),
      {Scalar<int32_t>(6), Vec<int32_t>({4, 1}),
       Make<int32_t>(TensorShape({2, 2}), {5, 2, 0, 3}), Vec<int32_t>({61, 62}),
       Make<int32_t>(TensorShape({2, 2}), {41, 42, 11, 12}),
       Make<int32_t>(TensorShape({2, 2, 2}), {51, 52, 21, 22, 1, 2, 31, 32})});
  ExpectTensor<int32_t>(outs[0], TensorShape({7, 2}),
                        {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62});
  // Repeated index: the later piece wins; gaps are zero.
  outs =
      RunKernelOk(Stitch(2, DT_FLOAT), {Vec<int32_t>({0, 3}), Vec<int32_t>({0}),
                                        Vec<float>({1, 2}), Vec<float>({9})});
  ExpectTensor<float>(outs[0], TensorShape({4}), {9, 0, 0, 2});
  outs = RunKernelOk(Stitch(1, DT_STRING),
                     {Vec<int32_t>({1, 0}), Vec<std::string>({"b", "a"})});
  ExpectTensor<std::string>(outs[0], TensorShape({2}), {"a", "b"});
}

TEST(DynamicStitchTest, Errors) {
  std::vector<Tensor> outs;
  ExpectError(RunKernel(Stitch(1, DT_FLOAT),
                        {Vec<int32_t>({0, -1}), Vec<float>({1, 2})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"is negative", "{{node stitch}}"});
  ExpectError(RunKernel(Stitch(1, DT_FLOAT),
                        {Vec<int32_t>({0, 1}), Vec<float>({1, 2, 3})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"data[0].shape = [3] does not start with indices[0].shape = [2]",
               "{{node stitch}}"});
  ExpectError(
      RunKernel(Stitch(2, DT_FLOAT),
                {Vec<int32_t>({0}), Vec<int32_t>({1}),
                 Make<float>(TensorShape({1, 2}), {1, 2}),
                 Make<float>(TensorShape({1, 3}), {1, 2, 3})},
                &outs),
      absl::StatusCode::kInvalidArgument,
      {"Need data[0].shape[1:] = data[1].shape[1:]", "{{node stitch}}"});
}

// --- TileGrad --------------------------------------------------------------

TEST(TileGradTest, SumsTilesAndIsTheGradientOfTile) {
  const NodeDef grad =
      TestNode("tg", "TileGrad").Inputs(2).Attr("T", DT_DOUBLE);
  std::vector<double> dy(12);
  for (int i = 0; i < 12; ++i) dy[i] = i + 1;
  std::vector<Tensor> outs = RunKernelOk(
      grad, {Make<double>(TensorShape({2, 6}), dy), Vec<int32_t>({2, 3})});
  // Output [1, 2]: element j sums dy[r][j + 2t].
  ExpectTensor<double>(outs[0], TensorShape({1, 2}),
                       {1 + 3 + 5 + 7 + 9 + 11, 2 + 4 + 6 + 8 + 10 + 12});
  const NodeDef tile = TestNode("t", "Tile")
                           .Inputs(2)
                           .Attr("T", DT_DOUBLE)
                           .Attr("Tmultiples", DT_INT32);
  const std::vector<double> numeric = test::NumericGradient(
      test::KernelForward(tile),
      {Make<double>(TensorShape({1, 2}), {0.5, -1}), Vec<int32_t>({2, 3})}, 0,
      dy);
  test::ExpectAllClose(Values<double>(outs[0]), numeric, 1e-6);
  // Multiples of 1 forward the input.
  const Tensor x = Make<double>(TensorShape({2, 2}), {1, 2, 3, 4});
  outs = RunKernelOk(grad, {x, Vec<int32_t>({1, 1})});
  EXPECT_TRUE(outs[0].SharesBufferWith(x));
  ExpectError(RunKernel(grad, {x, Vec<int32_t>({3, 1})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"not a positive multiple", "{{node tg}}"});
  ExpectError(RunKernel(grad, {x, Vec<int32_t>({1})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"vector of length 2", "{{node tg}}"});
}

// --- Identity variants -----------------------------------------------------

TEST(IdentityVariantsTest, PreventGradientIdentityNSnapshot) {
  const Tensor x = Vec<float>({1, 2});
  std::vector<Tensor> outs = RunKernelOk(TestNode("pg", "PreventGradient")
                                             .Inputs(1)
                                             .Attr("T", DT_FLOAT)
                                             .Attr("message", "no grads here"),
                                         {x});
  EXPECT_TRUE(outs[0].SharesBufferWith(x));
  NodeDef idn = TestNode("idn", "IdentityN").Inputs(2);
  AddNodeAttr("T", std::vector<DataType>{DT_FLOAT, DT_STRING}, &idn);
  const Tensor s = Scalar<std::string>("hi");
  outs = RunKernelOk(idn, {x, s});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(outs[0].SharesBufferWith(x));
  ExpectTensor<std::string>(outs[1], TensorShape({}), {"hi"});
  outs = RunKernelOk(TestNode("snap", "Snapshot").Inputs(1).Attr("T", DT_FLOAT),
                     {x});
  EXPECT_FALSE(outs[0].SharesBufferWith(x));
  ExpectTensor<float>(outs[0], TensorShape({2}), {1, 2});
}

// --- Transpose -------------------------------------------------------------

NodeDef TransposeNode(DataType t) {
  return TestNode("tr", "Transpose")
      .Inputs(2)
      .Attr("T", t)
      .Attr("Tperm", DT_INT32);
}

TEST(TransposeTest, Permutes) {
  std::vector<Tensor> outs =
      RunKernelOk(TransposeNode(DT_FLOAT),
                  {Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                   Vec<int32_t>({1, 0})});
  ExpectTensor<float>(outs[0], TensorShape({3, 2}), {1, 4, 2, 5, 3, 6});
  // [2,3,4] with perm [2,0,1]: out[k][i][j] = in[i][j][k].
  std::vector<int64_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  outs = RunKernelOk(
      TransposeNode(DT_INT64),
      {Make<int64_t>(TensorShape({2, 3, 4}), v), Vec<int32_t>({2, 0, 1})});
  std::vector<int64_t> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back((i * 3 + j) * 4 + k);
  ExpectTensor<int64_t>(outs[0], TensorShape({4, 2, 3}), want);
  outs = RunKernelOk(TransposeNode(DT_STRING),
                     {Make<std::string>(TensorShape({1, 2}), {"a", "b"}),
                      Vec<int32_t>({1, 0})});
  ExpectTensor<std::string>(outs[0], TensorShape({2, 1}), {"a", "b"});
  const Tensor x = Make<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  outs = RunKernelOk(TransposeNode(DT_FLOAT), {x, Vec<int32_t>({0, 1})});
  EXPECT_TRUE(outs[0].SharesBufferWith(x));
}

TEST(TransposeTest, Errors) {
  std::vector<Tensor> outs;
  const Tensor x = Make<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  ExpectError(RunKernel(TransposeNode(DT_FLOAT), {x, Vec<int32_t>({0})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"transpose expects a vector of size 2. But input(1) is a vector "
               "of size 1",
               "{{node tr}}"});
  ExpectError(
      RunKernel(TransposeNode(DT_FLOAT), {x, Vec<int32_t>({0, 2})}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"2 is out of range [0 .. 2)", "{{node tr}}"});
  ExpectError(
      RunKernel(TransposeNode(DT_FLOAT), {x, Vec<int32_t>({1, 1})}, &outs),
      absl::StatusCode::kInvalidArgument, {"more than once", "{{node tr}}"});
}

// --- Slice -----------------------------------------------------------------

NodeDef SliceNode(DataType t) {
  return TestNode("sl", "Slice").Inputs(3).Attr("T", t).Attr("Index", DT_INT32);
}

TEST(SliceTest, ValuesAndErrors) {
  const Tensor x = Make<int32_t>(TensorShape({3, 4}),
                                 {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  std::vector<Tensor> outs = RunKernelOk(
      SliceNode(DT_INT32), {x, Vec<int32_t>({1, 1}), Vec<int32_t>({2, -1})});
  ExpectTensor<int32_t>(outs[0], TensorShape({2, 3}), {11, 12, 13, 21, 22, 23});
  outs = RunKernelOk(SliceNode(DT_INT32),
                     {x, Vec<int32_t>({0, 0}), Vec<int32_t>({-1, -1})});
  EXPECT_TRUE(outs[0].SharesBufferWith(x));
  outs = RunKernelOk(SliceNode(DT_INT32),
                     {x, Vec<int32_t>({3, 0}), Vec<int32_t>({0, 2})});
  ExpectTensor<int32_t>(outs[0], TensorShape({0, 2}), {});
  ExpectError(RunKernel(SliceNode(DT_INT32),
                        {x, Vec<int32_t>({4, 0}), Vec<int32_t>({0, 1})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Expected begin[0] in [0, 3], but got 4", "{{node sl}}"});
  ExpectError(RunKernel(SliceNode(DT_INT32),
                        {x, Vec<int32_t>({1, 1}), Vec<int32_t>({1, 4})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Expected size[1] in [0, 3], but got 4", "{{node sl}}"});
  ExpectError(RunKernel(SliceNode(DT_INT32),
                        {x, Vec<int32_t>({1}), Vec<int32_t>({1})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Expected begin and size arguments to be 1-D tensors of size 2",
               "{{node sl}}"});
}

// --- Gather / GatherV2 -----------------------------------------------------

NodeDef GatherNode(DataType params, DataType indices) {
  return TestNode("g", "Gather")
      .Inputs(2)
      .Attr("Tparams", params)
      .Attr("Tindices", indices);
}

NodeDef GatherV2Node(DataType params, int64_t batch_dims = 0) {
  return TestNode("g2", "GatherV2")
      .Inputs(3)
      .Attr("Tparams", params)
      .Attr("Tindices", DT_INT32)
      .Attr("Taxis", DT_INT32)
      .Attr("batch_dims", batch_dims);
}

TEST(GatherTest, Values) {
  const Tensor p = Make<float>(TensorShape({3, 2}), {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> outs =
      RunKernelOk(GatherNode(DT_FLOAT, DT_INT64), {p, Vec<int64_t>({2, 0, 2})});
  ExpectTensor<float>(outs[0], TensorShape({3, 2}), {5, 6, 1, 2, 5, 6});
  outs = RunKernelOk(GatherNode(DT_FLOAT, DT_INT32),
                     {p, Make<int32_t>(TensorShape({2, 1}), {1, 0})});
  ExpectTensor<float>(outs[0], TensorShape({2, 1, 2}), {3, 4, 1, 2});
  outs = RunKernelOk(GatherNode(DT_FLOAT, DT_INT32), {p, Scalar<int32_t>(1)});
  ExpectTensor<float>(outs[0], TensorShape({2}), {3, 4});
  // axis 1 and -1.
  for (int32_t axis : {1, -1}) {
    outs = RunKernelOk(GatherV2Node(DT_FLOAT),
                       {p, Vec<int32_t>({1, 1, 0}), Scalar<int32_t>(axis)});
    ExpectTensor<float>(outs[0], TensorShape({3, 3}),
                        {2, 2, 1, 4, 4, 3, 6, 6, 5});
  }
  outs = RunKernelOk(GatherV2Node(DT_STRING),
                     {Vec<std::string>({"a", "b", "c"}), Vec<int32_t>({2, 0}),
                      Scalar<int32_t>(0)});
  ExpectTensor<std::string>(outs[0], TensorShape({2}), {"c", "a"});
  // batch_dims = 1: out[b, j] = params[b, indices[b, j]].
  outs = RunKernelOk(
      GatherV2Node(DT_INT32, 1),
      {Make<int32_t>(TensorShape({2, 3}), {10, 11, 12, 20, 21, 22}),
       Make<int32_t>(TensorShape({2, 2}), {2, 0, 1, 1}), Scalar<int32_t>(1)});
  ExpectTensor<int32_t>(outs[0], TensorShape({2, 2}), {12, 10, 21, 21});
  // Empty indices.
  outs = RunKernelOk(GatherNode(DT_FLOAT, DT_INT32),
                     {p, Make<int32_t>(TensorShape({0}), {})});
  ExpectTensor<float>(outs[0], TensorShape({0, 2}), {});
}

TEST(GatherTest, Errors) {
  std::vector<Tensor> outs;
  const Tensor p = Make<float>(TensorShape({3, 2}), {1, 2, 3, 4, 5, 6});
  ExpectError(RunKernel(GatherNode(DT_FLOAT, DT_INT32),
                        {p, Vec<int32_t>({0, 7})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"indices[1] = 7 is not in [0, 3)", "{{node g}}"});
  ExpectError(
      RunKernel(GatherNode(DT_FLOAT, DT_INT64),
                {p, Make<int64_t>(TensorShape({2, 2}), {0, 1, -1, 0})}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"indices[1,0] = -1 is not in [0, 3)", "{{node g}}"});
  ExpectError(RunKernel(GatherNode(DT_FLOAT, DT_INT32),
                        {Scalar<float>(1), Vec<int32_t>({0})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"params must be at least 1 dimensional", "{{node g}}"});
  ExpectError(RunKernel(GatherV2Node(DT_FLOAT),
                        {p, Vec<int32_t>({0}), Scalar<int32_t>(2)}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Expected axis in the range [-2, 2), but got 2", "{{node g2}}"});
  ExpectError(RunKernel(GatherV2Node(DT_FLOAT),
                        {p, Vec<int32_t>({0}), Vec<int32_t>({0})}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"axis must be scalar", "{{node g2}}"});
  ExpectError(RunKernel(GatherV2Node(DT_FLOAT, 1),
                        {p, Make<int32_t>(TensorShape({2, 1}), {0, 0}),
                         Scalar<int32_t>(1)},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"params.shape[0]: 3 should be equal to indices.shape[0]: 2",
               "{{node g2}}"});
  ExpectError(RunKernel(GatherV2Node(DT_FLOAT, 1),
                        {p, Make<int32_t>(TensorShape({3, 1}), {0, 0, 0}),
                         Scalar<int32_t>(0)},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"must be less than or equal to axis", "{{node g2}}"});
}

// --- OneHot ----------------------------------------------------------------

NodeDef OneHotNode(DataType t, DataType ti, int64_t axis = -1) {
  return TestNode("oh", "OneHot")
      .Inputs(4)
      .Attr("T", t)
      .Attr("TI", ti)
      .Attr("axis", axis);
}

TEST(OneHotTest, ValuesAndErrors) {
  std::vector<Tensor> outs =
      RunKernelOk(OneHotNode(DT_FLOAT, DT_INT64),
                  {Vec<int64_t>({0, 2, -1, 5}), Scalar<int32_t>(3),
                   Scalar<float>(1), Scalar<float>(0)});
  ExpectTensor<float>(outs[0], TensorShape({4, 3}),
                      {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  outs = RunKernelOk(OneHotNode(DT_INT32, DT_UINT8, 0),
                     {Vec<uint8_t>({1, 0}), Scalar<int32_t>(2),
                      Scalar<int32_t>(5), Scalar<int32_t>(-1)});
  ExpectTensor<int32_t>(outs[0], TensorShape({2, 2}), {-1, 5, 5, -1});
  outs = RunKernelOk(
      OneHotNode(DT_STRING, DT_INT32, 1),
      {Make<int32_t>(TensorShape({1, 2}), {1, 0}), Scalar<int32_t>(2),
       Scalar<std::string>("y"), Scalar<std::string>("n")});
  ExpectTensor<std::string>(outs[0], TensorShape({1, 2, 2}),
                            {"n", "y", "y", "n"});
  ExpectError(RunKernel(OneHotNode(DT_FLOAT, DT_INT32),
                        {Vec<int32_t>({0}), Scalar<int32_t>(-1),
                         Scalar<float>(1), Scalar<float>(0)},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"depth must be non-negative, got: -1", "{{node oh}}"});
  ExpectError(RunKernel(OneHotNode(DT_FLOAT, DT_INT32, 3),
                        {Vec<int32_t>({0}), Scalar<int32_t>(2),
                         Scalar<float>(1), Scalar<float>(0)},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"Expected axis to be -1 or between [0, 2).  But received: 3",
               "{{node oh}}"});
  ExpectError(RunKernel(OneHotNode(DT_FLOAT, DT_INT32),
                        {Vec<int32_t>({0}), Scalar<int32_t>(2), Vec<float>({1}),
                         Scalar<float>(0)},
                        &outs),
              absl::StatusCode::kInvalidArgument,
              {"on_value must be a scalar", "{{node oh}}"});
}

// --- Unpack / Split / SplitV ----------------------------------------------

TEST(UnpackTest, ValuesAndErrors) {
  const Tensor x = Make<int32_t>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  NodeDef def = TestNode("up", "Unpack")
                    .Inputs(1)
                    .Attr("T", DT_INT32)
                    .Attr("num", 3)
                    .Attr("axis", -1);
  std::vector<Tensor> outs = RunKernelOk(def, {x});
  ASSERT_EQ(outs.size(), 3u);
  ExpectTensor<int32_t>(outs[0], TensorShape({2}), {1, 4});
  ExpectTensor<int32_t>(outs[2], TensorShape({2}), {3, 6});
  def = TestNode("up", "Unpack").Inputs(1).Attr("T", DT_INT32).Attr("num", 2);
  outs = RunKernelOk(def, {x});
  ExpectTensor<int32_t>(outs[1], TensorShape({3}), {4, 5, 6});
  ExpectError(
      RunKernel(
          TestNode("up", "Unpack").Inputs(1).Attr("T", DT_INT32).Attr("num", 3),
          {x}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"Input shape axis 0 must equal 3, got shape [2,3]", "{{node up}}"});
  ExpectError(RunKernel(TestNode("up", "Unpack")
                            .Inputs(1)
                            .Attr("T", DT_INT32)
                            .Attr("num", 2)
                            .Attr("axis", 2),
                        {x}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"axis = 2 not in [-2, 2)", "{{node up}}"});
}

TEST(SplitTest, EvenPieces) {
  const Tensor x = Make<float>(TensorShape({2, 4}), {1, 2, 3, 4, 5, 6, 7, 8});
  NodeDef def = TestNode("sp", "Split")
                    .Inputs(2)
                    .Attr("T", DT_FLOAT)
                    .Attr("num_split", 2);
  std::vector<Tensor> outs = RunKernelOk(def, {Scalar<int32_t>(1), x});
  ExpectTensor<float>(outs[0], TensorShape({2, 2}), {1, 2, 5, 6});
  ExpectTensor<float>(outs[1], TensorShape({2, 2}), {3, 4, 7, 8});
  outs = RunKernelOk(def, {Scalar<int32_t>(-2), x});
  ExpectTensor<float>(outs[1], TensorShape({1, 4}), {5, 6, 7, 8});
  ExpectError(RunKernel(TestNode("sp", "Split")
                            .Inputs(2)
                            .Attr("T", DT_FLOAT)
                            .Attr("num_split", 3),
                        {Scalar<int32_t>(1), x}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"Number of ways to split should evenly divide the split "
               "dimension, but got split_dim 1 (size = 4) and num_split 3",
               "{{node sp}}"});
  ExpectError(RunKernel(def, {Scalar<int32_t>(2), x}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"-input rank(-2) <= split_dim < input rank (2), but got 2",
               "{{node sp}}"});
  ExpectError(RunKernel(def, {Vec<int32_t>({1}), x}, &outs),
              absl::StatusCode::kInvalidArgument,
              {"split_dim must be a scalar", "{{node sp}}"});
}

TEST(SplitTest, SplitVSizes) {
  const Tensor x = Vec<int64_t>({1, 2, 3, 4, 5, 6});
  NodeDef def = TestNode("spv", "SplitV")
                    .Inputs(3)
                    .Attr("T", DT_INT64)
                    .Attr("Tlen", DT_INT32)
                    .Attr("num_split", 3);
  std::vector<Tensor> outs =
      RunKernelOk(def, {x, Vec<int32_t>({1, -1, 2}), Scalar<int32_t>(0)});
  ExpectTensor<int64_t>(outs[0], TensorShape({1}), {1});
  ExpectTensor<int64_t>(outs[1], TensorShape({3}), {2, 3, 4});
  ExpectTensor<int64_t>(outs[2], TensorShape({2}), {5, 6});
  outs = RunKernelOk(def, {x, Vec<int32_t>({0, 6, 0}), Scalar<int32_t>(0)});
  ExpectTensor<int64_t>(outs[0], TensorShape({0}), {});
  ExpectTensor<int64_t>(outs[1], TensorShape({6}), {1, 2, 3, 4, 5, 6});
  ExpectError(
      RunKernel(def, {x, Vec<int32_t>({1, 2, 2}), Scalar<int32_t>(0)}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"Determined shape must either match input shape", "{{node spv}}"});
  ExpectError(
      RunKernel(def, {x, Vec<int32_t>({-1, -1, 2}), Scalar<int32_t>(0)}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"There can only be one -1 in the input.", "{{node spv}}"});
  ExpectError(
      RunKernel(def, {x, Vec<int32_t>({3, 3}), Scalar<int32_t>(0)}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"size of the split_tensor must be 1-D and have the same "
       "elements as outputs",
       "{{node spv}}"});
  ExpectError(
      RunKernel(def, {x, Vec<int32_t>({-2, 4, 4}), Scalar<int32_t>(0)}, &outs),
      absl::StatusCode::kInvalidArgument,
      {"Split size at index 0", "{{node spv}}"});
}

}  // namespace
}  // namespace stepflow
