// SimEnv: an Env whose clock, scheduler and randomness come from the
// simulator, all determined by one seed.
//
//   SimEnv sim(seed);
//   SessionOptions opts;
//   opts.env = &sim.env;   // clock = scheduler = &sim.loop,
//                          // random = sim.random.Stream("runtime")
//
// The loop breaks same-time ties with the "scheduler" stream, so runtime
// draws (step ids, incarnations) and scheduling choices never shift each
// other. `env.transport` is left null (local runtime only); the logging
// ops' text is kept in `log`.
//
// Ownership: members are owned here; runtime objects given &env borrow it
// and must be destroyed before the SimEnv.
// Thread-safety: as SimEventLoop (one thread).
#ifndef STEPFLOW_SIM_SIM_ENV_H_
#define STEPFLOW_SIM_SIM_ENV_H_

#include <cstdint>

#include "runtime/env/captured_log_sink.h"
#include "runtime/env/env.h"
#include "sim/env/event_loop.h"
#include "sim/env/sim_random.h"

namespace stepflow {

struct SimEnv {
  explicit SimEnv(uint64_t seed, const SimEventLoop::Options& loop_options =
                                     SimEventLoop::Options())
      : random(seed), loop(random.Stream("scheduler"), loop_options) {
    env.clock = &loop;
    env.scheduler = &loop;
    env.random = random.Stream("runtime");
    env.log_sink = &log;
  }
  SimEnv(const SimEnv&) = delete;
  SimEnv& operator=(const SimEnv&) = delete;

  SimRandom random;  // Declared first: the loop borrows a stream.
  SimEventLoop loop;
  CapturedLogSink log;
  Env env;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SIM_ENV_H_
