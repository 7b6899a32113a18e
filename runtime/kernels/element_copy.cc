#include "runtime/kernels/element_copy.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

template <typename T>
void CopyObjects(const Tensor& src, int64_t src_offset, Tensor* dst,
                 int64_t dst_offset, int64_t n) {
  const T* from = src.base<const T>() + src_offset;
  std::copy(from, from + n, dst->base<T>() + dst_offset);
}

}  // namespace

bool CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n) {
  if (n <= 0) return true;
  switch (src.dtype()) {
    case DT_STRING:
      CopyObjects<std::string>(src, src_offset, dst, dst_offset, n);
      return true;
    case DT_RESOURCE:
      CopyObjects<ResourceHandleProto>(src, src_offset, dst, dst_offset, n);
      return true;
    case DT_VARIANT:
      CopyObjects<Variant>(src, src_offset, dst, dst_offset, n);
      return true;
    default:
      break;
  }
  if (!DataTypeIsMemcpyable(src.dtype())) return false;
  const int64_t size = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->raw_data()) + dst_offset * size,
              static_cast<const char*>(src.raw_data()) + src_offset * size,
              static_cast<size_t>(n * size));
  return true;
}

bool SetZeros(Tensor* t) {
  if (t->dtype() == DT_VARIANT) {
    t->flat<Variant>().setConstant(Variant());
    return true;
  }
  bool ok = false;
  SF_SWITCH_ALL_TYPES(t->dtype(),
                      {
                        if constexpr (!std::is_same_v<T, std::string>) {
                          t->flat<T>().setConstant(T());
                          ok = true;
                        }
                      },
                      {});
  return ok;
}

absl::Status MergePartialShapes(const PartialTensorShape& a,
                                const PartialTensorShape& b,
                                PartialTensorShape* out) {
  if (a.unknown_rank()) {
    *out = b;
    return absl::OkStatus();
  }
  if (b.unknown_rank()) {
    *out = a;
    return absl::OkStatus();
  }
  if (a.dims() != b.dims()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Incompatible shapes during merge: ", a.DebugString(),
                     " vs. ", b.DebugString()));
  }
  std::vector<int64_t> dims(a.dims());
  for (int d = 0; d < a.dims(); ++d) {
    const int64_t x = a.dim_size(d), y = b.dim_size(d);
    if (x >= 0 && y >= 0 && x != y) {
      return absl::InvalidArgumentError(
          absl::StrCat("Incompatible shapes during merge: ", a.DebugString(),
                       " vs. ", b.DebugString()));
    }
    dims[d] = x >= 0 ? x : y;
  }
  *out = PartialTensorShape(dims);
  return absl::OkStatus();
}

TensorShape ToTensorShape(const PartialTensorShape& p) {
  std::vector<int64_t> dims(p.dims() > 0 ? p.dims() : 0);
  for (int d = 0; d < p.dims(); ++d) dims[d] = p.dim_size(d);
  return TensorShape(dims);
}

}  // namespace stepflow
