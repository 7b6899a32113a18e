// Helpers for loops written over GCC vector types and compiled once per
// vector ISA (cpu_isa.h): unaligned loads and stores and bit casts, with
// internal linkage and built on compiler builtins only, so that a copy
// compiled with a wide ISA's flags is never shared with baseline code.
//
// Include only from the private loop headers of such loops.
#ifndef STEPFLOW_RUNTIME_KERNELS_ISA_LOOP_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_ISA_LOOP_UTIL_H_

#include <cstdint>

namespace stepflow {
namespace isa_loop {
namespace {

// Lanes of float vector type V.
template <typename V>
constexpr int64_t kLanes = sizeof(V) / sizeof(float);

template <typename V>
inline V Load(const float* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof(V));
  return v;
}

template <typename V>
inline void Store(float* p, V v) {
  __builtin_memcpy(p, &v, sizeof(V));
}

template <typename To, typename From>
inline To BitCast(From v) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To t;
  __builtin_memcpy(&t, &v, sizeof(To));
  return t;
}

}  // namespace
}  // namespace isa_loop
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_ISA_LOOP_UTIL_H_
