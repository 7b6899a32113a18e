// Process-wide allocator settings for binaries that move large tensors.
//
// glibc serves allocations above its mmap threshold (128 KiB at first,
// adjusted upwards as blocks are freed) with fresh mmap()s and hands freed
// memory back to the kernel (trim), so a 4 MiB tensor buffer allocated per
// step or per RPC page-faults on every byte each time. TuneMallocForTensors
// raises both thresholds, so such buffers are reused from the heap the way
// tcmalloc or jemalloc would reuse them; freed memory stays with the
// process up to `trim_threshold` bytes.
//
// Only production main()s and benchmark mains call this (never a library:
// the allocator belongs to the binary). Returns false if glibc rejected a
// setting. Thread-safety: call once at the start of main().
#ifndef STEPFLOW_RUNTIME_ENV_REAL_MALLOC_TUNING_H_
#define STEPFLOW_RUNTIME_ENV_REAL_MALLOC_TUNING_H_

#include <cstddef>

namespace stepflow {

bool TuneMallocForTensors(size_t mmap_threshold = size_t{256} << 20,
                          size_t trim_threshold = size_t{1} << 30);

// Caps glibc's arenas (default: 8 per core) at `max_arenas` (>= 1) for a
// long-running server. Each arena keeps the top of its heap resident after
// a burst (malloc_trim returns whole free pages inside an arena but never
// shrinks a per-thread arena's top), so a server that served thousands of
// sessions on a dozen RPC threads would otherwise stay well above its idle
// size after collecting them. One arena per core keeps threads on different
// cores from contending. Returns false if glibc rejected the setting.
bool LimitMallocArenas(int max_arenas);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_MALLOC_TUNING_H_
