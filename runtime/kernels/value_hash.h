// Hashing tensor elements by value for the set-like kernels (Unique,
// ListDiff): equal values (by operator==, so 0.0 == -0.0) hash alike.
// Header-only, stateless.
#ifndef STEPFLOW_RUNTIME_KERNELS_VALUE_HASH_H_
#define STEPFLOW_RUNTIME_KERNELS_VALUE_HASH_H_

#include <complex>
#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>

#include "runtime/framework/types.h"

namespace stepflow {

template <typename T>
size_t ValueHash(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return std::hash<std::string>()(v);
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
                       std::is_floating_point_v<T>) {
    // std::hash<double> maps both zeros to one value.
    return std::hash<double>()(static_cast<double>(v));
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return ValueHash(v.real()) * 31 + ValueHash(v.imag());
  } else {
    return std::hash<T>()(v);
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_VALUE_HASH_H_
