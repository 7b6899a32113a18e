#include "runtime/bin/shutdown_watchdog.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace stepflow {

ShutdownWatchdog::ShutdownWatchdog(absl::Duration bound, int exit_code,
                                   std::string message) {
  thread_ = std::thread([this, bound, exit_code, message = std::move(message)] {
    Watch(bound, exit_code, message);
  });
}

ShutdownWatchdog::~ShutdownWatchdog() {
  {
    absl::MutexLock l(&mu_);
    disarmed_ = true;
  }
  thread_.join();
}

void ShutdownWatchdog::Watch(absl::Duration bound, int exit_code,
                             std::string message) {
  absl::MutexLock l(&mu_);
  if (mu_.AwaitWithTimeout(absl::Condition(&disarmed_), bound)) return;
  // stdio may be locked by a wedged thread: write(2) straight to stderr.
  message += "\n";
  const ssize_t ignored =
      ::write(STDERR_FILENO, message.data(), message.size());
  (void)ignored;
  ::_exit(exit_code);
}

}  // namespace stepflow
