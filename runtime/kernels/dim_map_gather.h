// N-d gathers and scatters through per-dimension index maps, the common
// core of the kernels that rearrange whole rows and columns: MirrorPad and
// its gradient, Pad, StridedSliceGrad, ReverseV2, Roll and BroadcastTo.
//
// A map list `maps` has one vector per dimension of the output; output
// element (o_0, ..., o_{r-1}) reads input element (maps[0][o_0], ...,
// maps[r-1][o_{r-1}]). The caller guarantees every map entry lies inside
// the input's dimension (nothing is checked here) and that the output holds
// prod(maps[d].size()) elements. Header-only and stateless; safe to call
// from any thread.
#ifndef STEPFLOW_RUNTIME_KERNELS_DIM_MAP_GATHER_H_
#define STEPFLOW_RUNTIME_KERNELS_DIM_MAP_GATHER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/framework/tensor_shape.h"

namespace stepflow {

using DimMaps = std::vector<std::vector<int64_t>>;

// Row-major strides of `shape`.
inline std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims(), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape.dim_size(d + 1);
  }
  return strides;
}

// Calls row(out_start, in_base) for every row of the output (its last
// dim) in row-major order: output elements out_start + j read input
// elements in_base + maps.back()[j]. A scalar output is one row of one
// element with in_base 0 (and no maps).
template <typename Row>
void ForEachMappedRow(const TensorShape& in_shape, const DimMaps& maps,
                      Row&& row) {
  const int rank = static_cast<int>(maps.size());
  int64_t total = 1;
  for (const auto& m : maps) total *= static_cast<int64_t>(m.size());
  if (total == 0) return;
  if (rank == 0) {
    row(0, 0);
    return;
  }
  const std::vector<int64_t> strides = RowMajorStrides(in_shape);
  const int64_t n = static_cast<int64_t>(maps[rank - 1].size());
  std::vector<int64_t> idx(rank, 0);
  int64_t base = 0;
  for (int d = 0; d < rank - 1; ++d) base += maps[d][0] * strides[d];
  for (int64_t o = 0; o < total; o += n) {
    row(o, base);
    for (int d = rank - 2; d >= 0; --d) {
      base -= maps[d][idx[d]] * strides[d];
      if (++idx[d] < static_cast<int64_t>(maps[d].size())) {
        base += maps[d][idx[d]] * strides[d];
        break;
      }
      idx[d] = 0;
      base += maps[d][0] * strides[d];
    }
  }
}

// Calls visit(out_index, in_index) for every output element in row-major
// order.
template <typename Visit>
void ForEachMapped(const TensorShape& in_shape, const DimMaps& maps,
                   Visit&& visit) {
  if (maps.empty()) {
    visit(0, 0);
    return;
  }
  const std::vector<int64_t>& last = maps.back();
  ForEachMappedRow(in_shape, maps, [&](int64_t o, int64_t base) {
    for (size_t j = 0; j < last.size(); ++j) visit(o + j, base + last[j]);
  });
}

// True when the last map reads consecutive elements (rows copy as blocks).
inline bool LastMapIsConsecutive(const DimMaps& maps) {
  if (maps.empty()) return false;
  const std::vector<int64_t>& last = maps.back();
  for (size_t j = 1; j < last.size(); ++j) {
    if (last[j] != last[0] + static_cast<int64_t>(j)) return false;
  }
  return true;
}

// The element moves of the two functions below: gather (out[o] =
// in[map(o)]) or scatter (out[map(i)] = in[i]); rows whose last map is
// consecutive copy as blocks.
template <typename U>
void MoveByDimMaps(const U* in, const TensorShape& mapped_shape,
                   const DimMaps& maps, U* out, bool scatter) {
  if (!LastMapIsConsecutive(maps)) {
    ForEachMapped(mapped_shape, maps, [&](int64_t seq, int64_t mapped) {
      if (scatter) {
        out[mapped] = in[seq];
      } else {
        out[seq] = in[mapped];
      }
    });
    return;
  }
  const int64_t first = maps.back().empty() ? 0 : maps.back()[0];
  const int64_t n = static_cast<int64_t>(maps.back().size());
  ForEachMappedRow(mapped_shape, maps, [&](int64_t seq, int64_t base) {
    if (scatter) {
      std::copy(in + seq, in + seq + n, out + base + first);
    } else {
      std::copy(in + base + first, in + base + first + n, out + seq);
    }
  });
}

// out[o] = in[map(o)].
template <typename U>
void GatherByDimMaps(const U* in, const TensorShape& in_shape,
                     const DimMaps& maps, U* out) {
  MoveByDimMaps(in, in_shape, maps, out, /*scatter=*/false);
}

// out[map(i)] = in[i]: the inverse placement, for maps that are
// one-to-one (every output element written at most once).
template <typename U>
void ScatterByDimMaps(const U* in, const TensorShape& out_shape,
                      const DimMaps& maps, U* out) {
  MoveByDimMaps(in, out_shape, maps, out, /*scatter=*/true);
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_DIM_MAP_GATHER_H_
