// The process memory budget's size, decided where the real machine may be
// read (production main()s): physical memory, the address-space limit
// (ulimit -v), and --memory_limit flag values. The runtime core never
// reads these; it gets the number (as a MemoryBudget) injected.
//
// Thread-safety: thread-safe (pure functions of the system's state).
#ifndef STEPFLOW_RUNTIME_ENV_REAL_MEMORY_LIMIT_H_
#define STEPFLOW_RUNTIME_ENV_REAL_MEMORY_LIMIT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace stepflow {

// Physical memory in bytes (0 if the system will not say).
int64_t PhysicalMemoryBytes();

// The address-space limit (RLIMIT_AS) in bytes, 0 when unlimited.
int64_t AddressSpaceLimitBytes();

// The default process budget: 80% of the smaller of physical memory and the
// address-space limit (the rest is code, stacks, protobufs and other
// non-tensor memory). 0 (no budget) only if neither is known.
int64_t DefaultProcessMemoryLimit();

// Parses a --memory_limit value: bytes, with an optional binary suffix
// (K, M, G, T; "4G" = 4 GiB, "1.5G" allowed), or "0" for no limit.
// InvalidArgument naming the flag value otherwise.
absl::Status ParseMemoryLimit(const std::string& text, int64_t* bytes);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_MEMORY_LIMIT_H_
