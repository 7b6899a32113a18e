// CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the
// checksum checkpoint files use for their header, entry table and every
// tensor's bytes. A portable table-driven software implementation: no
// hardware instructions, no dependencies, same result on every host.
//
// Crc32c("123456789") == 0xE3069283 (the standard check value).
// Extend lets a checksum be computed over data arriving in pieces:
// Extend(Crc32c(a), b) == Crc32c(a + b).
//
// Mask/Unmask: the stored form of a checksum in LevelDB tables and tensor
// bundles (a rotation plus a constant, so that a CRC of data that itself
// holds CRCs is not degenerate).
//
// Pure functions; thread-safe.
#ifndef STEPFLOW_RUNTIME_KERNELS_CRC32C_H_
#define STEPFLOW_RUNTIME_KERNELS_CRC32C_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace stepflow {
namespace crc32c {

// The CRC of `n` bytes at `data` continuing from `crc` (the CRC of what came
// before; 0 for nothing).
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(absl::string_view s) {
  return Extend(0, s.data(), s.size());
}

inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CRC32C_H_
