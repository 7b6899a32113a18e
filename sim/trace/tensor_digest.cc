#include "sim/trace/tensor_digest.h"

#include <string>

#include "runtime/framework/types.h"

namespace stepflow {

void HashTensorInto(const Tensor& t, Fnv64* h) {
  h->UpdateU64(static_cast<uint64_t>(t.dtype()));
  if (!t.IsInitialized()) {
    h->UpdateString("uninitialized");
    return;
  }
  h->UpdateU64(static_cast<uint64_t>(t.dims()));
  for (int d = 0; d < t.dims(); ++d) h->UpdateI64(t.dim_size(d));
  if (t.dtype() == DT_STRING) {
    const std::string* s = t.base<std::string>();
    for (int64_t i = 0; i < t.NumElements(); ++i) h->UpdateString(s[i]);
  } else if (DataTypeIsMemcpyable(t.dtype())) {
    size_t bytes = static_cast<size_t>(t.NumElements()) *
                   static_cast<size_t>(DataTypeSize(t.dtype()));
    if (bytes > t.TotalBytes()) bytes = t.TotalBytes();
    h->UpdateU64(bytes);
    if (bytes > 0) h->UpdateBytes(t.raw_data(), bytes);
  }
}

uint64_t TensorDigest(const Tensor& t) {
  Fnv64 h;
  HashTensorInto(t, &h);
  return h.value();
}

}  // namespace stepflow
