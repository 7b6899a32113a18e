// Simulator throughput: seeds per second and trace events per second on
// the local, multi-client and distributed workloads, what trace hashing and
// recording cost compared with running without a recorder, and for the
// local and distributed workloads simulated steps per real second and
// simulated seconds per real second (time compression).
//
//   bazel run -c opt //benchmarks:sim_benchmark
//
// Every iteration simulates one whole seed (seed = iteration number + 1, so
// runs are reproducible). Counters: seeds/s, loop_events/s (event-loop
// events), trace_events/s (records hashed), steps/s, sim_s/s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "sim/workloads/distributed_workload.h"
#include "sim/workloads/local_workload.h"
#include "sim/workloads/multi_client_workload.h"
#include "sim/workloads/workload_runner.h"

namespace stepflow {
namespace {

// Simulated steps (Session::Run / RunStep calls) per real second and
// simulated seconds per real second (time compression).
void SetStepCounters(benchmark::State& state, int64_t steps,
                     int64_t virtual_nanos) {
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps),
                                                 benchmark::Counter::kIsRate);
  state.counters["sim_s/s"] = benchmark::Counter(
      static_cast<double>(virtual_nanos) / 1e9, benchmark::Counter::kIsRate);
}

void SetCounters(benchmark::State& state, uint64_t loop_events,
                 uint64_t trace_events) {
  state.counters["seeds/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["loop_events/s"] = benchmark::Counter(
      static_cast<double>(loop_events), benchmark::Counter::kIsRate);
  state.counters["trace_events/s"] = benchmark::Counter(
      static_cast<double>(trace_events), benchmark::Counter::kIsRate);
}

// Local workload, 24 steps. Arg: 0 = no recorder, 1 = hash only,
// 2 = hash + events kept in memory, 3 = hash + trace file.
void BM_LocalWorkload(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  LocalWorkloadOptions options;
  options.record_trace = mode != 0;
  options.keep_events = mode == 2;
  const char* tmp = std::getenv("TMPDIR");
  if (mode == 3) {
    options.trace_path = absl::StrCat(tmp != nullptr ? tmp : "/tmp",
                                      "/sim_benchmark_local.trace");
  }
  uint64_t seed = 0, loop_events = 0, trace_events = 0;
  int64_t steps = 0, virtual_nanos = 0;
  for (auto _ : state) {
    LocalWorkloadResult r;
    absl::Status s = RunLocalWorkload(++seed, options, &r);
    if (!s.ok() || !r.failures.empty()) {
      state.SkipWithError("local workload failed");
      break;
    }
    loop_events += r.events_run;
    trace_events += r.trace_events;
    steps += r.steps_run;
    virtual_nanos += r.virtual_nanos;
    benchmark::DoNotOptimize(r.trace_hash);
  }
  SetCounters(state, loop_events, trace_events);
  SetStepCounters(state, steps, virtual_nanos);
  static const char* const kLabels[] = {"no recorder", "hash", "hash+keep",
                                        "hash+file"};
  state.SetLabel(kLabels[mode]);
}
BENCHMARK(BM_LocalWorkload)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(3)
    ->Unit(benchmark::kMillisecond);

// Multi-client workload, default generator options. Arg: 0 = RunMultiClientPlan
// with its own hashing recorder only, 1 = through RunSimulation (events kept
// and re-recorded behind the replay header), 2 = RunSimulation + trace file.
void BM_MultiClientWorkload(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp",
                                        "/sim_benchmark_multi_client.trace");
  uint64_t seed = 0, loop_events = 0, trace_events = 0;
  for (auto _ : state) {
    ++seed;
    if (mode == 0) {
      SimWorkloadPlan plan;
      MultiClientWorkloadResult r;
      if (!GenerateMultiClientPlan(seed, MultiClientWorkloadOptions(), &plan)
               .ok() ||
          !RunMultiClientPlan(plan, MultiClientRunOptions(), &r).ok()) {
        state.SkipWithError("multi-client workload set-up failed");
        break;
      }
      loop_events += r.events_run;
      trace_events += r.trace_events;
      benchmark::DoNotOptimize(r.trace_hash);
      continue;
    }
    SimRunSpec spec;
    spec.workload = kMultiClientWorkload;
    spec.seed = seed;
    SimRunConfig config;
    if (mode == 2) config.trace_path = path;
    SimRunResult r;
    if (!RunSimulation(spec, config, &r).ok()) {
      state.SkipWithError("multi-client workload set-up failed");
      break;
    }
    loop_events += r.events_run;
    trace_events += r.trace_events;
    benchmark::DoNotOptimize(r.trace_hash);
  }
  SetCounters(state, loop_events, trace_events);
  static const char* const kLabels[] = {"RunMultiClientPlan", "RunSimulation",
                                        "RunSimulation+file"};
  state.SetLabel(kLabels[mode]);
}
BENCHMARK(BM_MultiClientWorkload)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);

// Distributed workload (sim/distributed_workload.h), default options: a
// faulty simulated cluster of 2..8 workers, 1..3 clients. Reports simulated
// distributed steps (RunStep calls) per real second and the compression of
// simulated time (virtual seconds per real second).
void BM_DistributedWorkload(benchmark::State& state) {
  uint64_t seed = 0, loop_events = 0, trace_events = 0;
  int64_t steps = 0, virtual_nanos = 0;
  for (auto _ : state) {
    DistributedWorkloadResult r;
    if (!RunDistributedWorkload(++seed, DistributedWorkloadOptions(), &r)
             .ok()) {
      state.SkipWithError("distributed workload set-up failed");
      break;
    }
    loop_events += r.events_run;
    trace_events += r.trace_events;
    steps += r.steps_run;
    virtual_nanos += r.virtual_nanos;
    benchmark::DoNotOptimize(r.trace_hash);
  }
  SetCounters(state, loop_events, trace_events);
  SetStepCounters(state, steps, virtual_nanos);
}
BENCHMARK(BM_DistributedWorkload)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stepflow
