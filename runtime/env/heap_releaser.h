// HeapReleaser: hands the memory the process's allocator holds free back to
// the operating system.
//
// The allocator belongs to the binary, so the runtime never calls it
// directly: a session calls ReleaseFreeHeap() after freeing a large
// graph's transient state (the validating import at Create, a build's
// staging), so that a million-node graph's peak resident memory is what it
// keeps, not what it once touched. Production binaries install one that
// calls malloc_trim (runtime/env/real); the simulator and tests may leave it
// null, which releases nothing.
//
// ReleaseFreeHeap() must be safe to call from any thread; it changes no
// live allocation, only whether free pages stay resident.
#ifndef STEPFLOW_RUNTIME_ENV_HEAP_RELEASER_H_
#define STEPFLOW_RUNTIME_ENV_HEAP_RELEASER_H_

#include <cstdint>

namespace stepflow {

class HeapReleaser {
 public:
  virtual ~HeapReleaser() = default;
  virtual void ReleaseFreeHeap() = 0;
};

// Graphs from this many nodes up leave transient state worth releasing
// (tens of megabytes); below it a release would only cost the next step
// page faults.
inline constexpr int64_t kReleaseFreeHeapMinNodes = 65536;

// Releases free heap through `releaser` (null: nothing) when a graph of
// `num_nodes` nodes has just been built or freed and is large enough.
inline void ReleaseFreeHeapAfterGraph(HeapReleaser* releaser,
                                      int64_t num_nodes) {
  if (releaser != nullptr && num_nodes >= kReleaseFreeHeapMinNodes) {
    releaser->ReleaseFreeHeap();
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_HEAP_RELEASER_H_
