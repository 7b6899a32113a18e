// The local-session simulation workload: the real DirectSession, on three
// simulated CPU devices, run step after step inside a SimEnv.
//
// Graph (devices CPU:0..2 of /job:localhost/replica:0/task:0, so every
// cross-device edge becomes a _Send/_Recv pair through the step's
// rendezvous):
//   x    = Placeholder(float)        CPU:0
//   two  = Const(2.0)                CPU:1
//   a    = AddV2(x, two)             CPU:1
//   m    = Mul(a, a)                 CPU:2
//   i    = Identity(m)               CPU:0
//   b    = Mul(x, two)               CPU:2
//   s    = AddV2(i, b)               CPU:1
//   slow = SimDelay(s, delay)        CPU:2   (sim/sim_ops.h)
// Step k feeds x (a quarter-integer drawn from the "workload" stream, so
// every value is exact in float) and, by k mod 4, fetches
//   0: {a, m, s}            no timeout
//   1: {s, i} + target b    timeout 1000 ms (never reached)
//   2: {slow}               timeout 4 x delay + 1 ms (completes after
//                           `delay`)
//   3: {slow, a}            timeout delay / 2 -> DeadlineExceeded
// and checks every fetched value (and the status) against plain C++
// arithmetic. A mismatch is a workload failure, listed in the result under
// the name of the invariant it breaks: `values` (a wrong fetched value),
// `error_codes` (a status other than the expected one), `liveness` (a step
// that should complete ran into its deadline; steps without a timeout run
// under `liveness_bound_ms`, so a lost message cannot hang the run, or
// events were left pending at the end).
//
// Everything nondeterministic comes from the seed: the loop's tie-breaking
// ("scheduler" stream), step ids and incarnations ("runtime"), inputs
// ("workload"). The trace records every scheduler pick and timer, every
// kernel (with traced devices), and every step's inputs, status and
// outputs; the same seed must give the same trace hash in any process.
//
// Failures of the simulator itself (deadlock, budget) go to
// options.failure_handler, or by default print the seed and the command
// that replays it, then abort.
#ifndef STEPFLOW_SIM_LOCAL_WORKLOAD_H_
#define STEPFLOW_SIM_LOCAL_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sim/env/event_loop.h"
#include "sim/trace/trace.h"

namespace stepflow {

struct LocalWorkloadOptions {
  int steps = 24;
  // Record kernels through TracedCpuDevice (NewTracedDirectSession); when
  // false the session comes from NewSession({target ""}) with plain CPU
  // devices and the trace holds scheduler and step events only.
  bool trace_kernels = true;
  // SimDelay's delay (virtual ns); a multiple of 2 ms keeps the timeouts
  // whole milliseconds.
  int64_t slow_delay_nanos = 4000000;
  SimEventLoop::Options loop;
  // Write the trace to this file (empty: hash only).
  std::string trace_path;
  // Keep every trace event in the result (for tests).
  bool keep_events = false;
  // Null: print the failure with the seed and abort.
  SimEventLoop::FailureHandler failure_handler;
  // Steps that need no timeout run with this one (virtual ms; 0 = none):
  // a step still running after it is a `liveness` failure.
  int64_t liveness_bound_ms = 60000;
  // False runs without any recorder attached (no hashing, no events; for
  // measuring the tracing overhead): trace_hash and trace_events are 0.
  bool record_trace = true;
  // Record into this recorder (borrowed) instead of an own one; trace_path
  // and keep_events are then ignored and kernel_order_hash is 0. The caller
  // opens and closes any file.
  TraceRecorder* recorder = nullptr;
};

struct LocalWorkloadResult {
  uint64_t seed = 0;
  int steps_run = 0;
  int steps_ok = 0;
  int steps_deadline_exceeded = 0;
  // Wrong values or unexpected statuses, one line each, and the invariant
  // each one breaks ("values", "error_codes", "liveness"), index for index.
  std::vector<std::string> failures;
  std::vector<std::string> failure_invariants;
  uint64_t events_run = 0;    // Event-loop events.
  int64_t virtual_nanos = 0;  // Simulated time at the end.
  uint64_t trace_hash = 0;
  uint64_t trace_events = 0;
  // FNV over the (device, node) of every SIM_KERNEL_START in order: the
  // kernel interleaving alone, free of step ids and times.
  uint64_t kernel_order_hash = 0;
  std::vector<TraceEvent> events;  // Only with keep_events.
};

// A one-line description of the workload for trace headers.
std::string DescribeLocalWorkload(const LocalWorkloadOptions& options);

// The options a replay needs, as trace-header params (steps,
// trace_kernels, slow_delay_ns, fifo, latency_ns, jitter_ns,
// liveness_bound_ms), and back: FromParams starts from `*options` and
// overrides what `params` names; InvalidArgument for an unknown key or a
// malformed value.
TraceFields LocalWorkloadParams(const LocalWorkloadOptions& options);
absl::Status LocalWorkloadOptionsFromParams(const TraceFields& params,
                                            LocalWorkloadOptions* options);

// Runs the workload for `seed`. Errors are set-up failures (graph or
// session creation, trace file); step-level mismatches are reported in
// result->failures.
absl::Status RunLocalWorkload(uint64_t seed,
                              const LocalWorkloadOptions& options,
                              LocalWorkloadResult* result);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_LOCAL_WORKLOAD_H_
