// Index tuples for the *Nd kernels (GatherNd, ScatterNd, TensorScatter*):
// `indices` of shape [..., depth] holds rows of `depth` coordinates into
// the leading dims of a tensor of shape `shape`; each row selects the
// slice shape[depth:].
#ifndef STEPFLOW_RUNTIME_KERNELS_ND_INDEX_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_ND_INDEX_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

struct NdIndexRows {
  int64_t depth = 0;  // Coordinates per row.
  int64_t slice = 1;  // Elements per selected slice.
  // Element offset of each row's slice in `shape`, or -1 when the row lies
  // outside `shape`.
  std::vector<int64_t> offsets;
  int64_t first_bad = -1;  // The first out-of-range row, or -1.
};

// Reads an int16, int32 or int64 tensor of any shape into `out`
// (row-major); InvalidArgument naming the node for other dtypes.
absl::Status ReadIndexValues(const OpKernel& kernel, const Tensor& t,
                             std::vector<int64_t>* out);

// Reads `indices` (int16/int32/int64, rank >= 1, depth <= shape.dims()).
absl::Status ReadNdIndexRows(const OpKernel& kernel, const Tensor& indices,
                             const TensorShape& shape, NdIndexRows* rows);

// "[i, j]": the coordinates of row `row` of `indices`.
std::string NdIndexRowString(const Tensor& indices, int64_t row);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_ND_INDEX_UTIL_H_
