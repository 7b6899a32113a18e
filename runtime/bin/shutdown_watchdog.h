// ShutdownWatchdog: bounds a process's shutdown. Armed at construction;
// unless it is destroyed within `bound`, it writes `message` to stderr and
// ends the process with _exit(exit_code) — without running destructors or
// atexit handlers, so a teardown wedged in a kernel, a gRPC shutdown or a
// thread join cannot keep the process alive past the bound.
//
//   {
//     ShutdownWatchdog watchdog(absl::Seconds(10), 0, "teardown wedged");
//     server.reset();   // normally returns well within the bound
//   }
//
// Production main()s only (it owns a thread and reads the real clock).
// Thread-safety: construct and destroy on one thread.
#ifndef STEPFLOW_RUNTIME_BIN_SHUTDOWN_WATCHDOG_H_
#define STEPFLOW_RUNTIME_BIN_SHUTDOWN_WATCHDOG_H_

#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace stepflow {

class ShutdownWatchdog {
 public:
  ShutdownWatchdog(absl::Duration bound, int exit_code, std::string message);
  // Disarms the watchdog and joins its thread.
  ~ShutdownWatchdog();
  ShutdownWatchdog(const ShutdownWatchdog&) = delete;
  ShutdownWatchdog& operator=(const ShutdownWatchdog&) = delete;

 private:
  void Watch(absl::Duration bound, int exit_code, std::string message);

  absl::Mutex mu_;
  bool disarmed_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_BIN_SHUTDOWN_WATCHDOG_H_
