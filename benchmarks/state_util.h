// Helpers on benchmark::State shared by the benchmark binaries.
//
// Both act on the row whose State they are given, from the thread running
// it; they keep nothing.
#ifndef STEPFLOW_BENCHMARKS_STATE_UTIL_H_
#define STEPFLOW_BENCHMARKS_STATE_UTIL_H_

#include <string>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"

namespace stepflow::bench {

// Sets counter `name` (e.g. "per_run", "per_step") to the seconds one
// iteration took: wall time for a row that uses real time, CPU time
// otherwise. Printed with an SI prefix ("1.2m").
void SetSecondsPerIteration(benchmark::State& state, const std::string& name);

// Ends the row as skipped, with `s` (not OK) as its error.
void SkipWithStatus(benchmark::State& state, const absl::Status& s);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_STATE_UTIL_H_
