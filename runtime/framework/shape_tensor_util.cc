#include "runtime/framework/shape_tensor_util.h"

namespace stepflow {
namespace shape_inference {

std::vector<int64_t> FlatInt64(const Tensor& t) {
  std::vector<int64_t> values;
  const int64_t n = t.NumElements();
  values.reserve(n);
  if (t.dtype() == DT_INT32) {
    auto flat = t.flat<int32_t>();
    for (int64_t i = 0; i < n; ++i) values.push_back(flat(i));
  } else if (t.dtype() == DT_INT64) {
    auto flat = t.flat<int64_t>();
    for (int64_t i = 0; i < n; ++i) values.push_back(flat(i));
  }
  return values;
}

}  // namespace shape_inference
}  // namespace stepflow
