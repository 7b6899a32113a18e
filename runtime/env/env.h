// Env: the bundle of injected services every runtime object is built with.
//
// An Env is borrowed, never owned, by the objects it is given to, and must
// outlive them. Only runtime/bin (production main()s), tests and the
// simulator construct Envs; runtime code receives one.
#ifndef STEPFLOW_RUNTIME_ENV_ENV_H_
#define STEPFLOW_RUNTIME_ENV_ENV_H_

#include "runtime/env/clock.h"
#include "runtime/env/heap_releaser.h"
#include "runtime/env/log_sink.h"
#include "runtime/env/random.h"
#include "runtime/env/scheduler.h"

namespace stepflow {

class Transport;  // runtime/env/transport.h (distributed runtime).

struct Env {
  Clock* clock = nullptr;
  Scheduler* scheduler = nullptr;
  Random* random = nullptr;
  Transport* transport = nullptr;  // May be null for local-only use.
  // Where Print/PrintV2 write; null drops their text.
  LogSink* log_sink = nullptr;
  // Returns free heap pages to the OS after a large graph's build; null
  // releases nothing.
  HeapReleaser* heap_releaser = nullptr;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_ENV_H_
