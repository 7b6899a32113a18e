// In-process C++ callers' hook into the C API (not part of the stable C
// header): the Env that sessions created through the C API run in, so a
// benchmark or a simulation can give them its own clock, scheduler and
// random source.
//
// Thread-safety: as for the other TF_SessionOptions setters, one thread per
// options object.
#ifndef STEPFLOW_RUNTIME_C_C_API_ENV_H_
#define STEPFLOW_RUNTIME_C_C_API_ENV_H_

#include "runtime/c/c_api.h"
#include "runtime/env/env.h"

namespace stepflow {

// Sessions created with `options` from now on run in `env` (borrowed; it
// must outlive them). Null restores the default, the process Env
// (runtime/env/real/process_env.h).
void SetSessionOptionsEnv(TF_SessionOptions* options, Env* env);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_C_C_API_ENV_H_
