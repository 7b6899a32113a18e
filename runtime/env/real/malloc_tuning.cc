#include "runtime/env/real/malloc_tuning.h"

#include <malloc.h>

#include <climits>

namespace stepflow {

bool TuneMallocForTensors(size_t mmap_threshold, size_t trim_threshold) {
  if (mmap_threshold > INT_MAX || trim_threshold > INT_MAX) return false;
  // mallopt returns 1 on success.
  const bool mmap_ok =
      mallopt(M_MMAP_THRESHOLD, static_cast<int>(mmap_threshold)) == 1;
  const bool trim_ok =
      mallopt(M_TRIM_THRESHOLD, static_cast<int>(trim_threshold)) == 1;
  return mmap_ok && trim_ok;
}

bool LimitMallocArenas(int max_arenas) {
  return max_arenas >= 1 && mallopt(M_ARENA_MAX, max_arenas) == 1;
}

}  // namespace stepflow
