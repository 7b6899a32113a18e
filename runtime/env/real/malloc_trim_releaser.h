// MallocTrimReleaser: the production HeapReleaser, glibc's malloc_trim(0),
// which returns the whole free pages of every arena (and the main arena's
// top) to the kernel. Stateless; safe from any thread.
#ifndef STEPFLOW_RUNTIME_ENV_REAL_MALLOC_TRIM_RELEASER_H_
#define STEPFLOW_RUNTIME_ENV_REAL_MALLOC_TRIM_RELEASER_H_

#include "runtime/env/heap_releaser.h"

namespace stepflow {

class MallocTrimReleaser : public HeapReleaser {
 public:
  void ReleaseFreeHeap() override;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_MALLOC_TRIM_RELEASER_H_
