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
// Thread-safety: a Fnv64 is a plain value; don't share one across threads
// without external locking.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_FNV64_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_FNV64_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace stepflow {

class Fnv64 {
 public:
  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr uint64_t kPrime = 0x100000001b3ULL;

  Fnv64() = default;
  // Continues a hash from an earlier value() (a rolling hash).
  explicit Fnv64(uint64_t state) : state_(state) {}

  void UpdateBytes(const void* data, size_t n);
  void UpdateU64(uint64_t v);
  void UpdateI64(int64_t v) { UpdateU64(static_cast<uint64_t>(v)); }
  // Length-prefixed.
  void UpdateString(absl::string_view s);

  uint64_t value() const { return state_; }

 private:
  uint64_t state_ = kOffsetBasis;
};

// FNV-1a of the raw bytes of `s` (no length prefix).
uint64_t Fnv1a64(absl::string_view s);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_FNV64_H_
