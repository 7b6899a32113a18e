#include "runtime/c/c_api_env.h"

#include "runtime/c/c_api_internal.h"

namespace stepflow {

void SetSessionOptionsEnv(TF_SessionOptions* options, Env* env) {
  options->env = env;
}

}  // namespace stepflow
