// Fnv64: a fixed, unsalted 64-bit FNV-1a hash.
//
// For values that must hash the same in every process and on every run
// (simulation traces, recorded calls, tensor digests) — unlike absl::Hash
// or std::hash, which may be salted per process. Not cryptographic.
//
// Multi-byte integers are fed little-endian and strings length-prefixed, so
// a sequence of Update* calls has exactly one byte encoding (no ambiguity
// between ("ab", "c") and ("a", "bc")).
//
// The Update* calls are inline: the simulator feeds every trace record
// through them (sim/trace/trace.h). UpdateU64 folds the zero bytes above a
// value's highest non-zero byte into one multiplication (XOR with a zero
// byte leaves the state as it is, so k of them multiply it by kPrime^k):
// the same value as feeding the eight bytes one by one, in fewer dependent
// multiplications.
//
// Thread-safety: a Fnv64 is a plain value; don't share one across threads
// without external locking.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_FNV64_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_FNV64_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace stepflow {
namespace fnv64_internal {

inline constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

// x^k (mod 2^64).
constexpr uint64_t Power(uint64_t x, int k) {
  uint64_t p = 1;
  for (int i = 0; i < k; ++i) p *= x;
  return p;
}

}  // namespace fnv64_internal

class Fnv64 {
 public:
  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr uint64_t kPrime = fnv64_internal::kFnvPrime;

  Fnv64() = default;
  // Continues a hash from an earlier value() (a rolling hash).
  explicit Fnv64(uint64_t state) : state_(state) {}

  void UpdateBytes(const void* data, size_t n) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    uint64_t h = state_;
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= kPrime;
    }
    state_ = h;
  }
  // The eight bytes of `v`, little-endian.
  void UpdateU64(uint64_t v) {
    uint64_t h = state_;
    int fed = 0;
    for (; v != 0; v >>= 8, ++fed) {
      h ^= v & 0xff;
      h *= kPrime;
    }
    state_ = h * kPrimePowers[8 - fed];
  }
  void UpdateI64(int64_t v) { UpdateU64(static_cast<uint64_t>(v)); }
  // Length-prefixed.
  void UpdateString(absl::string_view s) {
    UpdateU64(s.size());
    UpdateBytes(s.data(), s.size());
  }

  uint64_t value() const { return state_; }

 private:
  // kPrimePowers[k] = kPrime^k (mod 2^64).
  static constexpr uint64_t kPrimePowers[9] = {
      fnv64_internal::Power(kPrime, 0), fnv64_internal::Power(kPrime, 1),
      fnv64_internal::Power(kPrime, 2), fnv64_internal::Power(kPrime, 3),
      fnv64_internal::Power(kPrime, 4), fnv64_internal::Power(kPrime, 5),
      fnv64_internal::Power(kPrime, 6), fnv64_internal::Power(kPrime, 7),
      fnv64_internal::Power(kPrime, 8)};

  uint64_t state_ = kOffsetBasis;
};

// FNV-1a of the raw bytes of `s` (no length prefix).
uint64_t Fnv1a64(absl::string_view s);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_FNV64_H_
