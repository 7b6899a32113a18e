// One entry point for every simulation workload, used by the simulate and
// replay binaries, the shrinker, the fuzzer and the benchmark.
//
// A SimRunSpec names everything a run depends on: the workload ("local":
// sim/local_workload.h; "mixed": sim/workloads/multi_client_workload.h;
// "distributed": sim/distributed_workload.h), the seed, the workload's options
// as key/value pairs, for the multi-client workload optionally a serialized
// SimWorkloadPlan (empty: generated from the seed), and a planted bug
// (runtime/framework/planted_bug.h; test-only, default none). The spec
// round-trips through a trace header (SpecTraceHeader / SpecFromTraceHeader):
// the header carries the workload name, seed, options, planted bug and the plan
// that actually ran, so replaying a trace re-runs exactly the same simulation —
// for a generated plan too.
//
// Options ("key=value"): local — steps, trace_kernels, slow_delay_ns, fifo,
// latency_ns, jitter_ns, liveness_bound_ms (sim/workloads/local_workload.h);
// multi_client — the MultiClientWorkloadOptions fields min_graphs, max_graphs,
// min_clients, max_clients, min_ops_per_client, max_ops_per_client,
// max_dag_nodes, function_call_weight, slow_kernel_percent,
// failing_kernel_percent, timeout_percent, min_slow_ns, max_slow_ns,
// max_think_ns, and the loop's fifo, latency_ns, jitter_ns
// (sim/workloads/multi_client_workload.h); distributed — the
// DistributedWorkloadOptions fields (DistributedWorkloadParams).
//
// RunSimulation runs the spec under a fresh SimEnv with a TraceRecorder
// (streamed to config.trace_path if set) and reports every invariant the
// run broke as a SimInvariantFailure {invariant, detail}. Invariant names
// are the workloads' stable short names ("values", "error_codes",
// "liveness", "sendrecv", "refcount", ...). A failing run is not an error:
// errors are bad specs (InvalidArgument: unknown workload, option or bug
// name, unparseable plan) and set-up failures (trace file, session
// creation).
//
// Determinism: the result (failures, hash, counts) is a function of the
// spec. Not thread-safe: a planted bug is process-wide while a run is in
// progress, so runs must not overlap.
#ifndef STEPFLOW_SIM_WORKLOAD_RUNNER_H_
#define STEPFLOW_SIM_WORKLOAD_RUNNER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/planted_bug.h"
#include "sim/trace/trace.h"

namespace stepflow {

inline constexpr char kLocalWorkload[] = "local";
inline constexpr char kMultiClientWorkload[] = "multi_client";
// The multi-client workload's former name, still accepted (older traces
// and scripts say "mixed").
inline constexpr char kMultiClientWorkloadAlias[] = "mixed";

// The registered name for `name` (kMultiClientWorkload for its alias).
std::string CanonicalWorkloadName(const std::string& name);
inline constexpr char kDistributedWorkload[] = "distributed";

struct SimRunSpec {
  std::string workload = kLocalWorkload;
  uint64_t seed = 1;
  // Workload options ("steps" -> "24", ...); unnamed options keep their
  // defaults.
  TraceFields options;
  // Multi-client workload: a serialized SimWorkloadPlan to run instead of the
  // one generated from `seed` (the SimEnv still uses `seed`).
  std::string plan;
  PlantedBug planted_bug = PlantedBug::kNone;
};

struct SimInvariantFailure {
  std::string invariant;
  std::string detail;
};

struct SimRunResult {
  std::vector<SimInvariantFailure> failures;
  uint64_t trace_hash = 0;
  uint64_t trace_events = 0;
  uint64_t events_run = 0;    // Event-loop events.
  int64_t virtual_nanos = 0;  // Simulated time at the end.
  int steps_run = 0;          // Session::Run / PRun calls.
  int ops_run = 0;            // Plan ops (multi_client); steps (local).
  // Function call sites imported (multi_client; 0 for the others).
  int function_calls = 0;
  // The serialized plan that ran (multi_client; empty for local).
  std::string plan;
  // Every event, with config.keep_events.
  std::vector<TraceEvent> events;
};

struct SimRunConfig {
  // Stream the trace (header from SpecTraceHeader) to this file.
  std::string trace_path;
  bool keep_events = false;
  // Called with every trace event as it is recorded (progress reports);
  // for the multi-client workload, whose runner records into its own recorder,
  // once the run is over.
  std::function<void(const TraceEvent&)> observer;
};

absl::Status RunSimulation(const SimRunSpec& spec, const SimRunConfig& config,
                           SimRunResult* result);

// The serialized plan a multi-client spec runs: spec.plan if set, else
// the one generated from spec.seed and spec.options. InvalidArgument for
// other workloads and bad options.
absl::Status GenerateSpecPlan(const SimRunSpec& spec, std::string* plan);

// The header of a trace of `spec`; `plan` is the serialized plan that runs
// (multi_client), which may differ from spec.plan when that is empty.
TraceHeader SpecTraceHeader(const SimRunSpec& spec, const std::string& plan);
// The spec a trace header describes. InvalidArgument if the header lacks a
// workload name or names an unknown planted bug.
absl::Status SpecFromTraceHeader(const TraceHeader& header, SimRunSpec* spec);

// The distinct invariant names of `failures`, sorted.
std::vector<std::string> FailedInvariants(
    const std::vector<SimInvariantFailure>& failures);

// "key=value,key=value" <-> TraceFields (values must not contain ',').
std::string FormatOptions(const TraceFields& options);
absl::Status ParseOptions(const std::string& text, TraceFields* options);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_WORKLOAD_RUNNER_H_
