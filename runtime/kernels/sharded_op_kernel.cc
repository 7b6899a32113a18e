#include "runtime/kernels/sharded_op_kernel.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "runtime/kernels/parallel_for.h"

namespace stepflow {

void ShardedOpKernel::ComputeAsync(OpKernelContext* ctx, DoneCallback done) {
  auto work = std::make_shared<ShardedWork>();
  Prepare(ctx, work.get());
  if (!ctx->status().ok() || work->units <= 0 || !work->fn) {
    done();
    return;
  }
  Scheduler* scheduler =
      ctx->env() == nullptr ? nullptr : ctx->env()->scheduler;
  const int64_t threads = scheduler == nullptr ? 1 : scheduler->NumThreads();
  const int64_t cost = std::max<int64_t>(work->cost_per_unit, 1);
  const double total = static_cast<double>(work->units) * cost;
  const int64_t by_cost = static_cast<int64_t>(
      std::min<double>(threads, std::max(1.0, total / kMinBlockCost)));
  const int64_t blocks =
      std::max<int64_t>(1, std::min({threads, by_cost, work->units}));
  const int64_t units = work->units;
  ParallelForAsync(
      scheduler, static_cast<int>(blocks),
      [work, blocks, units](int i) {
        const int64_t begin = units * i / blocks;
        const int64_t end = units * (i + 1) / blocks;
        if (begin < end) work->fn(begin, end);
      },
      std::move(done));
}

}  // namespace stepflow
