#include "runtime/env/real/malloc_trim_releaser.h"

#include <malloc.h>

namespace stepflow {

void MallocTrimReleaser::ReleaseFreeHeap() { malloc_trim(0); }

}  // namespace stepflow
