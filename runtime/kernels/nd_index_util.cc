#include "runtime/kernels/nd_index_util.h"

#include "absl/strings/str_join.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {

absl::Status ReadIndexValues(const OpKernel& kernel, const Tensor& t,
                             std::vector<int64_t>* out) {
  if (t.dtype() == DT_INT16) {
    const int16_t* p = t.base<int16_t>();
    out->assign(p, p + t.NumElements());
    return absl::OkStatus();
  }
  return IndexTensorToVector(kernel, t, out);
}

absl::Status ReadNdIndexRows(const OpKernel& kernel, const Tensor& indices,
                             const TensorShape& shape, NdIndexRows* rows) {
  rows->depth = indices.dim_size(indices.dims() - 1);
  rows->slice = 1;
  for (int d = static_cast<int>(rows->depth); d < shape.dims(); ++d) {
    rows->slice *= shape.dim_size(d);
  }
  int64_t n = 1;
  for (int d = 0; d + 1 < indices.dims(); ++d) n *= indices.dim_size(d);
  std::vector<int64_t> idx;
  absl::Status s = ReadIndexValues(kernel, indices, &idx);
  if (!s.ok()) return s;
  rows->offsets.assign(n, 0);
  rows->first_bad = -1;
  for (int64_t r = 0; r < n; ++r) {
    int64_t off = 0;
    for (int64_t d = 0; d < rows->depth; ++d) {
      const int64_t v = idx[r * rows->depth + d];
      const int64_t dim = shape.dim_size(static_cast<int>(d));
      if (v < 0 || v >= dim) {
        off = -1;
        break;
      }
      off = off * dim + v;
    }
    if (off >= 0) {
      off *= rows->slice;
    } else if (rows->first_bad < 0) {
      rows->first_bad = r;
    }
    rows->offsets[r] = off;
  }
  return absl::OkStatus();
}

std::string NdIndexRowString(const Tensor& indices, int64_t row) {
  const int64_t depth = indices.dim_size(indices.dims() - 1);
  std::vector<int64_t> v;
  for (int64_t d = 0; d < depth; ++d) {
    const int64_t i = row * depth + d;
    switch (indices.dtype()) {
      case DT_INT16:
        v.push_back(indices.base<int16_t>()[i]);
        break;
      case DT_INT32:
        v.push_back(indices.base<int32_t>()[i]);
        break;
      default:
        v.push_back(indices.base<int64_t>()[i]);
    }
  }
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

}  // namespace stepflow
