#include "runtime/kernels/dim_map_gather.h"

#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(DimMapGatherTest, RowMajorStrides) {
  EXPECT_EQ(RowMajorStrides(TensorShape({2, 3, 4})),
            (std::vector<int64_t>{12, 4, 1}));
  EXPECT_TRUE(RowMajorStrides(TensorShape({})).empty());
}

TEST(DimMapGatherTest, ReverseAndRepeat) {
  // in = [[0, 1, 2], [3, 4, 5]]; rows reversed, column 1 repeated.
  const std::vector<int> in = {0, 1, 2, 3, 4, 5};
  const DimMaps maps = {{1, 0}, {1, 1, 2, 0}};
  std::vector<int> out(8, -1);
  GatherByDimMaps(in.data(), TensorShape({2, 3}), maps, out.data());
  EXPECT_EQ(out, (std::vector<int>{4, 4, 5, 3, 1, 1, 2, 0}));
}

TEST(DimMapGatherTest, VisitsInOutputOrder) {
  const DimMaps maps = {{2}, {0, 1}};
  std::vector<std::pair<int64_t, int64_t>> seen;
  ForEachMapped(TensorShape({3, 2}), maps,
                [&](int64_t o, int64_t i) { seen.emplace_back(o, i); });
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {1, 5}}));
}

TEST(DimMapGatherTest, ScalarAndEmpty) {
  const std::vector<int> in = {7};
  std::vector<int> out(1, 0);
  GatherByDimMaps(in.data(), TensorShape({}), DimMaps{}, out.data());
  EXPECT_EQ(out[0], 7);
  int calls = 0;
  ForEachMapped(TensorShape({2, 2}), DimMaps{{0, 1}, {}},
                [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace stepflow
