// main() for the benchmark binaries without flags of their own: the
// process set up as benchmarks/run_benchmarks.h says (Abseil's debug-only
// mutex deadlock detector off unless --keep_mutex_deadlock_detection comes
// first, the allocator tuned as in production), then google-benchmark.
#include "benchmarks/run_benchmarks.h"

int main(int argc, char** argv) {
  return stepflow::bench::RunBenchmarks(argc, argv);
}
