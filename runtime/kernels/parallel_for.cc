#include "runtime/kernels/parallel_for.h"

#include <atomic>
#include <memory>
#include <utility>

namespace stepflow {
namespace {

struct ParallelForState {
  ParallelForState(int n, std::function<void(int)> fn,
                   std::function<void()> done)
      : remaining(n), fn(std::move(fn)), done(std::move(done)) {}

  void Run(int i) {
    fn(i);
    if (remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) done();
  }

  std::atomic<int> remaining;
  const std::function<void(int)> fn;
  const std::function<void()> done;
};

}  // namespace

void ParallelForAsync(Scheduler* scheduler, int n, std::function<void(int)> fn,
                      std::function<void()> done) {
  if (n <= 1) {
    if (n == 1) fn(0);
    done();
    return;
  }
  auto state =
      std::make_shared<ParallelForState>(n, std::move(fn), std::move(done));
  for (int i = 1; i < n; ++i) {
    scheduler->Schedule([state, i] { state->Run(i); });
  }
  state->Run(0);
}

}  // namespace stepflow
