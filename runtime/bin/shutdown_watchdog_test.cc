// ShutdownWatchdog: ends a wedged process at its bound with its exit code
// and message, and does nothing when disarmed in time.
#include "runtime/bin/shutdown_watchdog.h"

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace stepflow {
namespace {

TEST(ShutdownWatchdogTest, DisarmedInTimeLetsTheProcessLive) {
  const absl::Time start = absl::Now();
  { ShutdownWatchdog watchdog(absl::Seconds(30), 3, "should not fire"); }
  // Destruction does not wait for the bound.
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ShutdownWatchdogTest, WedgedTeardownExitsAtTheBound) {
  EXPECT_EXIT(
      {
        const absl::Time start = absl::Now();
        ShutdownWatchdog watchdog(absl::Milliseconds(200), 7,
                                  "grpc_server: teardown wedged");
        absl::Notification never;
        // A teardown that never finishes; the watchdog ends the process.
        never.WaitForNotificationWithTimeout(absl::Seconds(30));
        // Reached only if the watchdog did not fire in time.
        std::fprintf(stderr, "waited %s\n",
                     absl::FormatDuration(absl::Now() - start).c_str());
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(7), "teardown wedged");
}

TEST(ShutdownWatchdogTest, ExitCodeZeroIsPossible) {
  EXPECT_EXIT(
      {
        ShutdownWatchdog watchdog(absl::Milliseconds(50), 0, "forced exit");
        absl::Notification never;
        never.WaitForNotificationWithTimeout(absl::Seconds(30));
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "forced exit");
}

}  // namespace
}  // namespace stepflow
