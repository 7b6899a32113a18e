#include "runtime/env/real/real_env.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace stepflow {

absl::Status CheckThreadCountFlag(absl::string_view flag, int threads) {
  if (threads < 0 || threads > kMaxInterOpThreads) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", threads,
                     " is out of range: it must be between 0 (one ",
                     "per core) and ", kMaxInterOpThreads));
  }
  return absl::OkStatus();
}

std::unique_ptr<RealEnv> RealEnv::Create(int inter_op_threads) {
  inter_op_threads = std::min(inter_op_threads, kMaxInterOpThreads);
  // Debian's Abseil is built without NDEBUG, which leaves its debug-only
  // mutex deadlock detector on: every Mutex::Lock then takes a global lock
  // and updates a lock graph (about a third of the instructions of a small
  // Session::Run). Production Envs run without it, as release Abseil does.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::unique_ptr<RealEnv> real(new RealEnv());
  real->clock_ = std::make_unique<SystemClock>();
  real->random_ = std::make_unique<SystemRandom>();
  real->scheduler_ = std::make_unique<ThreadPoolScheduler>(inter_op_threads,
                                                           real->clock_.get());
  real->env_.clock = real->clock_.get();
  real->env_.random = real->random_.get();
  real->env_.scheduler = real->scheduler_.get();
  real->env_.transport = nullptr;
  real->env_.log_sink = &real->log_sink_;
  real->env_.heap_releaser = &real->heap_releaser_;
  return real;
}

}  // namespace stepflow
