// The process's default real Env, for callers that have none to pass: the
// C API (C programs cannot construct an Env) and the C++ client when its
// SessionOptions name none. A real clock, a thread pool with one thread per
// hardware thread and entropy-seeded random, created on first use and
// deliberately never destroyed (sessions a program forgets to delete may
// still use it during exit).
//
// Thread-safe.
#ifndef STEPFLOW_RUNTIME_ENV_REAL_PROCESS_ENV_H_
#define STEPFLOW_RUNTIME_ENV_REAL_PROCESS_ENV_H_

#include "runtime/env/env.h"

namespace stepflow {

Env* ProcessEnv();

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_PROCESS_ENV_H_
