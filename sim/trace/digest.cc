#include "sim/trace/digest.h"

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

uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace stepflow
