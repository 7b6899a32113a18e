#include "benchmarks/run_benchmarks.h"

#include <cstdio>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

#include "absl/synchronization/mutex.h"
#include "runtime/env/real/malloc_tuning.h"

namespace stepflow::bench {
namespace {

constexpr char kKeepDeadlockDetection[] = "--keep_mutex_deadlock_detection";

// argv[0] without its directories.
const char* ProgramName(const char* argv0) {
  const char* slash = std::strrchr(argv0, '/');
  return slash != nullptr ? slash + 1 : argv0;
}

}  // namespace

int RunBenchmarks(int argc, char** argv, const BenchmarkMainHooks& hooks) {
  const bool keep =
      argc > 1 && std::strcmp(argv[1], kKeepDeadlockDetection) == 0;
  int kept = 1;
  for (int i = keep ? 2 : 1; i < argc; ++i) {
    if (hooks.take_flag && hooks.take_flag(argv[i])) continue;
    argv[kept++] = argv[i];
  }
  argc = kept;
  if (!keep) {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  }
  TuneMallocForTensors();
  if (hooks.setup) {
    const absl::Status s = hooks.setup();
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", ProgramName(argv[0]),
                   s.ToString().c_str());
      return 2;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace stepflow::bench
