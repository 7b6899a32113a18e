#include "runtime/env/real/process_env.h"

#include "runtime/env/real/real_env.h"

namespace stepflow {

Env* ProcessEnv() {
  // Leaked on purpose; see the header.
  static RealEnv* const real_env = RealEnv::Create(0).release();
  return real_env->env();
}

}  // namespace stepflow
