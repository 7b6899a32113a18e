#include "benchmarks/c_api_table.h"

namespace stepflow::bench {

const CApi& StepflowCApi() {
  static const CApi* api = [] {
    CApi* a = new CApi;
    a->name = "stepflow";
#define STEPFLOW_BENCH_C_API_SET(fn) a->fn = &::fn;
    STEPFLOW_BENCH_C_API_FUNCTIONS(STEPFLOW_BENCH_C_API_SET)
#undef STEPFLOW_BENCH_C_API_SET
    return a;
  }();
  return *api;
}

}  // namespace stepflow::bench
