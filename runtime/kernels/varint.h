// Base-128 varints (7 bits per byte, least significant group first, high
// bit set on every byte but the last), as LevelDB tables and tensor
// bundles store lengths and offsets.
//
// Pure inline functions; thread-safe.
#ifndef STEPFLOW_RUNTIME_KERNELS_VARINT_H_
#define STEPFLOW_RUNTIME_KERNELS_VARINT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace stepflow {

inline void PutVarint64(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Consumes one varint from the front of `*in`. False (with `*in` partly
// consumed) if it is truncated or longer than 10 bytes.
inline bool GetVarint64(absl::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_VARINT_H_
