#include "benchmarks/state_util.h"

namespace stepflow::bench {

void SetSecondsPerIteration(benchmark::State& state, const std::string& name) {
  state.counters[name] =
      benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
}

void SkipWithStatus(benchmark::State& state, const absl::Status& s) {
  state.SkipWithError(s.ToString().c_str());
}

}  // namespace stepflow::bench
