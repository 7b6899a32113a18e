// RealEnv: owns the production services (SystemClock, SystemRandom,
// ThreadPoolScheduler, StdioLogSink) and the Env bundle pointing at them.
// Only production main()s, the C API and tests construct one; runtime code
// receives env().
//
// Destruction drains the scheduler first (so closures still running may use
// the clock and random), then frees the clock and random. Objects built
// with env() must be destroyed before the RealEnv.
//
// Create() also turns off Abseil's debug-only mutex deadlock detection for
// the process (Debian's Abseil leaves it on; release builds never run it).
//
// Thread-safety: env() and the services are safe from any thread.
#ifndef STEPFLOW_RUNTIME_ENV_REAL_REAL_ENV_H_
#define STEPFLOW_RUNTIME_ENV_REAL_REAL_ENV_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/env/env.h"
#include "runtime/env/real/malloc_trim_releaser.h"
#include "runtime/env/real/random.h"
#include "runtime/env/real/stdio_log_sink.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"

namespace stepflow {

// The most inter-op threads a binary's flag may ask for.
inline constexpr int kMaxInterOpThreads = 1024;

// OK if `threads` (the value of --<flag>) is in [0, kMaxInterOpThreads];
// InvalidArgument naming the flag and the range otherwise.
absl::Status CheckThreadCountFlag(absl::string_view flag, int threads);

class RealEnv {
 public:
  // `inter_op_threads` worker threads (0 = one per hardware thread); values
  // above kMaxInterOpThreads are clamped to it (callers check flags with
  // CheckThreadCountFlag first).
  static std::unique_ptr<RealEnv> Create(int inter_op_threads);
  ~RealEnv() = default;
  RealEnv(const RealEnv&) = delete;
  RealEnv& operator=(const RealEnv&) = delete;

  Env* env() { return &env_; }
  ThreadPoolScheduler* scheduler() { return scheduler_.get(); }

 private:
  RealEnv() = default;

  // Declaration order matters: the scheduler is destroyed first.
  std::unique_ptr<SystemClock> clock_;
  std::unique_ptr<SystemRandom> random_;
  StdioLogSink log_sink_;
  MallocTrimReleaser heap_releaser_;
  std::unique_ptr<ThreadPoolScheduler> scheduler_;
  Env env_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_REAL_ENV_H_
