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

TEST(DimMapGatherTest, ConsecutiveRowsCopyAsBlocks) {
  // in = [[0, 1, 2], [3, 4, 5]]; columns 1..2 of both rows, rows swapped.
  const std::vector<int> in = {0, 1, 2, 3, 4, 5};
  const DimMaps maps = {{1, 0}, {1, 2}};
  EXPECT_TRUE(LastMapIsConsecutive(maps));
  std::vector<int> out(4, -1);
  GatherByDimMaps(in.data(), TensorShape({2, 3}), maps, out.data());
  EXPECT_EQ(out, (std::vector<int>{4, 5, 1, 2}));
}

TEST(DimMapGatherTest, ScatterPlacesTheInput) {
  // A [2, 2] input placed at rows {2, 0}, columns {1, 2} of a [3, 3] output.
  const std::vector<int> in = {1, 2, 3, 4};
  for (const DimMaps& maps :
       {DimMaps{{2, 0}, {1, 2}}, DimMaps{{2, 0}, {2, 1}}}) {
    std::vector<int> out(9, 0);
    ScatterByDimMaps(in.data(), TensorShape({3, 3}), maps, out.data());
    const bool reversed = maps[1][0] == 2;
    EXPECT_EQ(out, reversed ? (std::vector<int>{0, 4, 3, 0, 0, 0, 0, 2, 1})
                            : (std::vector<int>{0, 3, 4, 0, 0, 0, 0, 1, 2}));
  }
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
