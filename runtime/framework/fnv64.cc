#include "runtime/framework/fnv64.h"

namespace stepflow {

void Fnv64::UpdateBytes(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = state_;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= kPrime;
  }
  state_ = h;
}

void Fnv64::UpdateU64(uint64_t v) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>(v >> (8 * i));
  UpdateBytes(bytes, sizeof(bytes));
}

void Fnv64::UpdateString(absl::string_view s) {
  UpdateU64(s.size());
  UpdateBytes(s.data(), s.size());
}

uint64_t Fnv1a64(absl::string_view s) {
  Fnv64 h;
  h.UpdateBytes(s.data(), s.size());
  return h.value();
}

}  // namespace stepflow
