#include "runtime/kernels/bcast.h"

#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

using Row = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;

std::vector<Row> Rows(const BCast& b) {
  std::vector<Row> rows;
  b.ForEachRow([&](int64_t xo, int64_t xs, int64_t yo, int64_t ys, int64_t oo,
                   int64_t n) { rows.emplace_back(xo, xs, yo, ys, oo, n); });
  return rows;
}

TEST(BCastTest, SameShape) {
  BCast b(TensorShape({2, 3}), TensorShape({2, 3}));
  ASSERT_TRUE(b.IsValid());
  EXPECT_TRUE(b.same_shape());
  EXPECT_EQ(b.output_shape().DebugString(), "[2,3]");
  EXPECT_EQ(b.merged_dims(), (std::vector<int64_t>{6}));
}

TEST(BCastTest, RowVectorMergesIntoRows) {
  BCast b(TensorShape({2, 3}), TensorShape({3}));
  ASSERT_TRUE(b.IsValid());
  EXPECT_FALSE(b.same_shape());
  EXPECT_EQ(b.merged_dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b.y_strides(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Rows(b),
            (std::vector<Row>{{0, 1, 0, 1, 0, 3}, {3, 1, 0, 1, 3, 3}}));
}

TEST(BCastTest, OuterProduct) {
  BCast b(TensorShape({2, 1}), TensorShape({1, 3}));
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape().DebugString(), "[2,3]");
  // x stays put along each row; y advances.
  EXPECT_EQ(Rows(b),
            (std::vector<Row>{{0, 0, 0, 1, 0, 3}, {1, 0, 0, 1, 3, 3}}));
}

TEST(BCastTest, MergesAdjacentDimsOfSameKind) {
  BCast b(TensorShape({4, 5, 1, 1}), TensorShape({1, 1, 2, 3}));
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape().DebugString(), "[4,5,2,3]");
  EXPECT_EQ(b.merged_dims(), (std::vector<int64_t>{20, 6}));
}

TEST(BCastTest, ScalarsAndOnes) {
  BCast s(TensorShape({}), TensorShape({}));
  ASSERT_TRUE(s.IsValid());
  EXPECT_EQ(Rows(s), (std::vector<Row>{{0, 0, 0, 0, 0, 1}}));
  BCast ones(TensorShape({1, 1}), TensorShape({1}));
  EXPECT_EQ(ones.output_shape().DebugString(), "[1,1]");
  EXPECT_EQ(Rows(ones).size(), 1u);
}

TEST(BCastTest, ZeroBeatsOne) {
  BCast b(TensorShape({0, 3}), TensorShape({1, 3}));
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape().DebugString(), "[0,3]");
  EXPECT_TRUE(Rows(b).empty());
}

TEST(BCastTest, Incompatible) {
  BCast b(TensorShape({2, 3}), TensorShape({4}));
  EXPECT_FALSE(b.IsValid());
  EXPECT_EQ(b.IncompatibleShapesMessage(),
            "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_FALSE(BCast(TensorShape({0}), TensorShape({2})).IsValid());
}

// Every output element maps back to the right input elements.
TEST(BCastTest, OffsetsMatchNaiveIndexing) {
  const TensorShape x({3, 1, 4, 1}), y({2, 1, 5});
  BCast b(x, y);
  ASSERT_TRUE(b.IsValid());
  const TensorShape& o = b.output_shape();
  ASSERT_EQ(o.DebugString(), "[3,2,4,5]");
  std::vector<int64_t> xo(o.num_elements(), -1), yo(o.num_elements(), -1);
  b.ForEachRow([&](int64_t xb, int64_t xs, int64_t yb, int64_t ys, int64_t ob,
                   int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      xo[ob + i] = xb + i * xs;
      yo[ob + i] = yb + i * ys;
    }
  });
  int64_t k = 0;
  for (int a = 0; a < 3; ++a)
    for (int b2 = 0; b2 < 2; ++b2)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 5; ++d, ++k) {
          EXPECT_EQ(xo[k], a * 4 + c) << k;
          EXPECT_EQ(yo[k], b2 * 5 + d) << k;
        }
}

}  // namespace
}  // namespace stepflow
