// main() for the benchmark binaries.
//
// Debian builds Abseil without NDEBUG, so every absl::Mutex::Lock runs
// Abseil's debug-only deadlock detector (a global lock and a hash lookup per
// acquisition). Release builds of Abseil never do that, so the benchmarks
// switch it off before running, unless the first argument is
// --keep_mutex_deadlock_detection (to measure what it costs).
//
// The allocator is tuned as the production binaries tune it
// (runtime/env/real/malloc_tuning.h): large buffers stay on the heap, for
// ours and the peers alike.
#include <cstring>

#include <benchmark/benchmark.h>

#include "absl/synchronization/mutex.h"
#include "runtime/env/real/malloc_tuning.h"

int main(int argc, char** argv) {
  bool keep = false;
  if (argc > 1 && std::strcmp(argv[1], "--keep_mutex_deadlock_detection") == 0) {
    keep = true;
    for (int i = 1; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
  }
  if (!keep) absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  stepflow::TuneMallocForTensors();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
