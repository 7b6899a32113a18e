// Reading the small int32/int64 tensors shape functions take as inputs
// (block shapes, paddings, diagonal indices).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_SHAPE_TENSOR_UTIL_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_SHAPE_TENSOR_UTIL_H_

#include <cstdint>
#include <vector>

#include "runtime/framework/tensor.h"

namespace stepflow {
namespace shape_inference {

// The elements of `t` in row-major order, widened to int64. `t` must be
// DT_INT32 or DT_INT64; any other dtype gives an empty vector.
std::vector<int64_t> FlatInt64(const Tensor& t);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_SHAPE_TENSOR_UTIL_H_
