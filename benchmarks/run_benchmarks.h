// RunBenchmarks: the body of every benchmark binary's main().
//
// It sets the process up as the benchmarks measure it, then hands the
// arguments to google-benchmark and runs the registered benchmarks:
//  * Debian builds Abseil without NDEBUG, so every absl::Mutex::Lock runs
//    Abseil's debug-only deadlock detector (a global lock and a hash lookup
//    per acquisition). Release builds of Abseil never do that, so it is
//    switched off, unless the first argument is
//    --keep_mutex_deadlock_detection (to measure what it costs); that
//    argument is removed.
//  * The allocator is tuned as the production binaries tune it
//    (runtime/env/real/malloc_tuning.h): large buffers stay on the heap,
//    for ours and the peers alike.
//
// A binary with flags or context of its own passes BenchmarkMainHooks:
// `take_flag` sees every other argument first and keeps google-benchmark
// from seeing those it takes; `setup` then registers benchmarks (e.g. from
// a flag) and adds context lines. Both run after the two settings above,
// so whatever `setup` builds is built in the measured setup.
//
// Returns main()'s exit status: 0 once the benchmarks ran (a failing row is
// reported as skipped, not here); 1 for an argument that neither the hooks
// nor google-benchmark take; 2 when `setup` fails, after printing
// "<program>: <status>" to stderr (no benchmark runs).
//
// Thread-safety: call once, from main(), before any other thread starts.
#ifndef STEPFLOW_BENCHMARKS_RUN_BENCHMARKS_H_
#define STEPFLOW_BENCHMARKS_RUN_BENCHMARKS_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace stepflow::bench {

struct BenchmarkMainHooks {
  // Offered each argument in order (--keep_mutex_deadlock_detection in
  // first place excepted); returns true to take it. Unset: none is taken.
  std::function<bool(absl::string_view arg)> take_flag;
  // Runs once the flags are taken, before google-benchmark reads the rest.
  // Unset: nothing to do.
  std::function<absl::Status()> setup;
};

int RunBenchmarks(int argc, char** argv,
                  const BenchmarkMainHooks& hooks = BenchmarkMainHooks());

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_RUN_BENCHMARKS_H_
