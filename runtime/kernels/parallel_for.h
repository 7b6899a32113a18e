// ParallelForAsync: fans a loop of independent pieces of work out over a
// Scheduler without blocking, for kernels that split one large computation
// (intra-op parallelism).
//
// fn(0) runs inline on the calling thread; fn(1) .. fn(n - 1) are handed to
// scheduler->Schedule. `done` runs exactly once, after every fn(i) has
// returned, on whichever thread finished last (the caller's, when n <= 1 or
// in simulation where the Scheduler runs closures one at a time). Nothing
// waits: the caller returns while scheduled pieces may still be running, so
// fn and done must own (or share ownership of) everything they touch.
//
// Thread-safety: fn(i) for different i may run concurrently.
#ifndef STEPFLOW_RUNTIME_KERNELS_PARALLEL_FOR_H_
#define STEPFLOW_RUNTIME_KERNELS_PARALLEL_FOR_H_

#include <functional>

#include "runtime/env/scheduler.h"

namespace stepflow {

void ParallelForAsync(Scheduler* scheduler, int n, std::function<void(int)> fn,
                      std::function<void()> done);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_PARALLEL_FOR_H_
