// ShardedOpKernel: an AsyncOpKernel whose work is a loop over independent
// units (images of a batch, output rows), cut into blocks that run on the
// Env's injected Scheduler through ParallelForAsync.
//
// A subclass checks its inputs and allocates its outputs in Prepare
// (synchronously, failing through OP_REQUIRES as a plain OpKernel does) and
// describes the remaining work in a ShardedWork. The kernel completes when
// the last block does. Blocks are contiguous ranges of units, at most one
// per Scheduler thread and none cheaper than kMinBlockCost, so a unit's
// result never depends on the thread count; with no Scheduler (or one
// thread, as in simulation) everything runs inline.
//
// Thread-safety: fn(begin, end) for disjoint ranges may run concurrently;
// it must write only the outputs of its own units. The executor keeps the
// inputs and outputs alive until the kernel completes.
#ifndef STEPFLOW_RUNTIME_KERNELS_SHARDED_OP_KERNEL_H_
#define STEPFLOW_RUNTIME_KERNELS_SHARDED_OP_KERNEL_H_

#include <cstdint>
#include <functional>

#include "runtime/env/scheduler.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {

struct ShardedWork {
  int64_t units = 0;          // the loop runs over [0, units)
  int64_t cost_per_unit = 1;  // rough element operations per unit
  std::function<void(int64_t begin, int64_t end)> fn;
};

// Below this many element operations a block is not worth a thread.
inline constexpr int64_t kMinBlockCost = int64_t{1} << 16;

// The number of blocks `work` is cut into on `threads` threads: at most
// one per thread and per unit, none cheaper than kMinBlockCost, at least 1.
int64_t ShardBlockCount(const ShardedWork& work, int threads);

// Runs work.fn over [0, work.units) in ShardBlockCount contiguous blocks,
// block i = [units * i / n, units * (i + 1) / n), the first on the calling
// thread and the rest on `scheduler` (null: all inline); then `done`, once.
void RunSharded(Scheduler* scheduler, ShardedWork work,
                std::function<void()> done);

class ShardedOpKernel : public AsyncOpKernel {
 public:
  explicit ShardedOpKernel(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) final;

 protected:
  // Checks inputs, allocates outputs and fills `work` (leaving it empty
  // when nothing remains to compute). Errors go to ctx->SetStatus.
  virtual void Prepare(OpKernelContext* ctx, ShardedWork* work) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_SHARDED_OP_KERNEL_H_
