// The string hashes TensorFlow's bucketing ops use, bit for bit:
// Fingerprint64 (FarmHash's 64-bit fingerprint), Hash64 (64-bit
// MurmurHash2, "MurmurHash64A", with TensorFlow's seed) and SipHash-2-4
// under a 128-bit key. Pure functions; thread-safe.
#ifndef STEPFLOW_RUNTIME_KERNELS_STRING_HASH_H_
#define STEPFLOW_RUNTIME_KERNELS_STRING_HASH_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace stepflow {

uint64_t Fingerprint64(absl::string_view s);

// MurmurHash64A of `s` with `seed` (0xDECAFCAFFE in StringToHashBucket).
uint64_t Hash64(absl::string_view s, uint64_t seed);

// SipHash-2-4 of `s` under the key (k0, k1).
uint64_t SipHash24(const uint64_t key[2], absl::string_view s);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_STRING_HASH_H_
