#include "runtime/kernels/element_copy.h"

#include <algorithm>
#include <cstring>
#include <string>

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

}  // namespace stepflow
