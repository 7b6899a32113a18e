// IntraOpScheduler: the Scheduler a CPU device's kernels see when the
// session's ConfigProto sets intra_op_parallelism_threads: the Env's own
// Scheduler, every closure, timer and wait forwarded to it unchanged, that
// reports the session's intra-op parallelism from NumThreads(). Kernels
// size their parallel work by NumThreads() (sharded_op_kernel.h, the
// convolution and matmul kernels), so the option bounds how many blocks a
// kernel's work is cut into, as TensorFlow's intra-op pool of that size
// does; the blocks still run on the Env's threads. It starts no threads and
// reads no clock of its own.
//
// Ownership: `base` is borrowed and must outlive this. Thread-safety: as
// Scheduler (immutable after construction; forwards to a thread-safe one).
#ifndef STEPFLOW_RUNTIME_COMMON_INTRA_OP_SCHEDULER_H_
#define STEPFLOW_RUNTIME_COMMON_INTRA_OP_SCHEDULER_H_

#include <cstdint>
#include <utility>

#include "runtime/env/notification.h"
#include "runtime/env/scheduler.h"

namespace stepflow {

class IntraOpScheduler : public Scheduler {
 public:
  // `num_threads` >= 1.
  IntraOpScheduler(Scheduler* base, int num_threads)
      : base_(base), num_threads_(num_threads) {}

  void Schedule(Closure fn) override { base_->Schedule(std::move(fn)); }
  TimerId ScheduleAfter(int64_t delay_nanos, Closure fn) override {
    return base_->ScheduleAfter(delay_nanos, std::move(fn));
  }
  bool CancelTimer(TimerId id) override { return base_->CancelTimer(id); }
  void WaitFor(Notification* n) override { base_->WaitFor(n); }
  int NumThreads() const override { return num_threads_; }

 private:
  Scheduler* const base_;
  const int num_threads_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_INTRA_OP_SCHEDULER_H_
