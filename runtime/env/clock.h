// Clock: the only source of time for runtime code.
//
// Production code gets a SystemClock (runtime/env/real); the simulator gets a
// virtual clock. Runtime code must never read time any other way (enforced by
// //tools/seam:seam_test).
//
// Thread-safety: implementations must be safe to call from any thread.
#ifndef STEPFLOW_RUNTIME_ENV_CLOCK_H_
#define STEPFLOW_RUNTIME_ENV_CLOCK_H_

#include <cstdint>

namespace stepflow {

class Clock {
 public:
  virtual ~Clock() = default;

  // Nanoseconds since an arbitrary, fixed epoch. Monotonic non-decreasing.
  virtual int64_t NowNanos() const = 0;

  int64_t NowMicros() const { return NowNanos() / 1000; }
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_CLOCK_H_
