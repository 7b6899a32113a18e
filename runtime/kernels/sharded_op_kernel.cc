#include "runtime/kernels/sharded_op_kernel.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "runtime/env/env.h"
#include "runtime/kernels/parallel_for.h"

namespace stepflow {

int64_t ShardBlockCount(const ShardedWork& work, int threads) {
  const int64_t cost = std::max<int64_t>(work.cost_per_unit, 1);
  const double total = static_cast<double>(work.units) * cost;
  const int64_t by_cost = static_cast<int64_t>(std::min<double>(
      std::max(threads, 1), std::max(1.0, total / kMinBlockCost)));
  return std::max<int64_t>(1, std::min(by_cost, work.units));
}

void RunSharded(Scheduler* scheduler, ShardedWork work,
                std::function<void()> done) {
  if (work.units <= 0 || !work.fn) {
    done();
    return;
  }
  const int threads = scheduler == nullptr ? 1 : scheduler->NumThreads();
  const int64_t blocks = ShardBlockCount(work, threads);
  auto shared = std::make_shared<ShardedWork>(std::move(work));
  ParallelForAsync(
      scheduler, static_cast<int>(blocks),
      [shared, blocks](int i) {
        const int64_t units = shared->units;
        const int64_t begin = units * i / blocks;
        const int64_t end = units * (i + 1) / blocks;
        if (begin < end) shared->fn(begin, end);
      },
      std::move(done));
}

void ShardedOpKernel::ComputeAsync(OpKernelContext* ctx, DoneCallback done) {
  ShardedWork work;
  Prepare(ctx, &work);
  if (!ctx->status().ok()) {
    done();
    return;
  }
  Scheduler* scheduler =
      ctx->env() == nullptr ? nullptr : ctx->env()->scheduler;
  RunSharded(scheduler, std::move(work), std::move(done));
}

}  // namespace stepflow
