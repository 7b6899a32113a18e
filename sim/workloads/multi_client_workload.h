// The mixed simulation workload: several clients drive the real runtime
// (DirectSession through the C API) inside one SimEnv, over several graphs
// of different kinds, with faults, timeouts, closes and deletes, while an
// invariant checker (sim/invariants.h) watches every op and every trace
// event.
//
// Two halves, so that a plan can be stored, edited, shrunk and replayed:
//
//   GenerateMultiClientPlan(seed, options, &plan)
//     draws everything from the seed's SimRandom "workload" stream (random
//     DAGs are sampled from testing/graph_generators with an rc::Random
//     seeded from that stream): 1..3 graphs, each a random float DAG (with
//     a drawn function library and call sites of it: calls by name,
//     PartitionedCall, StatefulPartitionedCall, If, Case, While), a
//     while loop (counter, sum or nested; closed-form results) or a linear
//     regression training graph; and a sequence of ops from 2..4 clients:
//     TF_NewGraph, imports (the initial one and, for DAGs, later extension
//     imports of more nodes), TF_NewSession, TF_SessionRun,
//     TF_SessionPRunSetup/PRun, TF_CloseSession, TF_DeleteSession,
//     TF_DeleteGraph, with random RunOptions timeouts, slow kernels
//     (SimDelay) and failing kernels (SimFail, with an allowed code). The
//     generator keeps a model of what exists and never emits an op on a
//     deleted object; it does emit, on purpose, runs on closed sessions
//     (SimOp.on_closed_session), which must fail with Cancelled.
//
//   RunMultiClientPlan(plan, options, &result)
//     is a pure function of the plan: a SimEnv(plan.seed) whose loop allows
//     nested waits, every client a chain of loop events (an op, then the
//     next op after its think time). A TF_SessionRun inside an event waits
//     with Scheduler::WaitFor, which runs other clients' events nested, so
//     steps of different clients really overlap.
//
// Ordering. Each client runs its ops in plan order. Across clients, ops on
// one graph are either shared (runs, partial runs and closes on DAG and
// loop graphs) or exclusive (graph/session creation and deletion, imports,
// and every run on a training graph): an exclusive op starts only after
// every earlier (in plan order) op on its graph has finished, a shared op
// only after every earlier exclusive op on its graph has finished. A client
// whose next op must wait is parked (never blocked) and rescheduled when an
// op finishes. So shared steps overlap freely, nothing is ever deleted
// under a running step, and training steps of one session see a known order.
//
// Invariants (names in sim/invariants.h): values, pruning, sendrecv, leaks,
// step_ids, error_codes, refcount, closed, liveness. Violations are
// collected in the result, never abort.
//
// Thread-safety: both functions are self-contained; RunMultiClientPlan drives
// its own SimEnv on the calling thread. TF_TestOnlyLiveGraphCount is process
// wide, so two RunMultiClientPlan calls must not run concurrently in one
// process.
#ifndef STEPFLOW_SIM_MIXED_WORKLOAD_H_
#define STEPFLOW_SIM_MIXED_WORKLOAD_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/sim_workload.pb.h"
#include "sim/check/invariants.h"
#include "sim/env/event_loop.h"
#include "sim/trace/trace.h"

namespace stepflow {

struct MultiClientWorkloadOptions {
  int min_graphs = 1;
  int max_graphs = 3;
  int min_clients = 2;
  int max_clients = 4;
  // Ops per client (beyond the set-up ops of the graphs it creates).
  int min_ops_per_client = 6;
  int max_ops_per_client = 14;
  // Random DAG size.
  int max_dag_nodes = 24;
  // Weight of a function call site among a random DAG's node kinds
  // (DagOptions.function_call_weight; 0: no library, no calls).
  int function_call_weight = 3;
  // Probabilities (in percent) of the optional features.
  int slow_kernel_percent = 35;     // per import: one SimDelay fault
  int failing_kernel_percent = 20;  // per DAG import: one SimFail fault
  int timeout_percent = 30;         // per run: a RunOptions timeout
  // Delay of a slow kernel: uniform in [min, max] (virtual ns).
  int64_t min_slow_nanos = 200000;
  int64_t max_slow_nanos = 8000000;
  // Client think time before each op: uniform in [0, max] (virtual ns).
  int64_t max_think_nanos = 2000000;
};

// The loop options RunMultiClientPlan uses by default: 1 us scheduling latency
// plus up to 4 us of jitter (so steps take virtual time and interleave),
// nested waits, and an event budget that turns a livelock into a
// `liveness` violation quickly.
inline SimEventLoop::Options DefaultMultiClientLoopOptions() {
  SimEventLoop::Options o;
  o.schedule_latency_nanos = 1000;
  o.schedule_jitter_nanos = 4000;
  o.allow_nested_waits = true;
  o.max_events = 20000000;
  o.task = "sim";
  return o;
}

struct MultiClientRunOptions {
  // Event-loop options; allow_nested_waits is forced on.
  SimEventLoop::Options loop = DefaultMultiClientLoopOptions();
  // Keep every trace event in the result (for tests).
  bool keep_events = false;
  // Write the trace to this file (empty: hash only).
  std::string trace_path;
};

struct MultiClientWorkloadResult {
  uint64_t seed = 0;
  int ops_run = 0;    // Plan ops executed (not skipped after a failure).
  int steps_run = 0;  // TF_SessionRun + TF_SessionPRun calls.
  int steps_ok = 0;
  // Status code name ("OK", "CANCELLED", ...) -> steps that returned it.
  std::map<std::string, int> steps_by_code;
  uint64_t events_run = 0;
  int64_t virtual_nanos = 0;
  uint64_t trace_hash = 0;
  uint64_t trace_events = 0;
  // Most event-loop events running on the stack at once (above 1: a step
  // ran nested inside another client's wait).
  int max_event_depth = 0;
  // How many times a Run started while another client's Run was waiting.
  int overlapping_steps = 0;
  // Function call sites (calls, If/Case/While) in the graphs imported.
  int function_calls = 0;
  std::vector<InvariantViolation> violations;
  // Invariant name -> how many times it was checked.
  std::map<std::string, int64_t> checks;
  std::vector<TraceEvent> events;  // Only with keep_events.
};

// Draws the plan for `seed`. InvalidArgument for inconsistent options.
absl::Status GenerateMultiClientPlan(uint64_t seed,
                                     const MultiClientWorkloadOptions& options,
                                     SimWorkloadPlan* plan);

// Runs `plan` (under SimEnv(plan.seed())). Errors are set-up failures only
// (a malformed plan: unknown graph/session names, an op on an object the
// plan deleted; the trace file); everything the runtime does wrong is a
// violation in result->violations.
absl::Status RunMultiClientPlan(const SimWorkloadPlan& plan,
                                const MultiClientRunOptions& options,
                                MultiClientWorkloadResult* result);

// One op per line, e.g.
//   "client 1: TF_SessionRun s2 feeds{n3:0=1.5} fetch{n7:0} timeout=5ms".
std::string DescribePlan(const SimWorkloadPlan& plan);
std::string DescribeOp(const SimOp& op);

// One line: seed, ops, steps by code, hash, violations.
std::string SummarizeResult(const MultiClientWorkloadResult& result);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_MIXED_WORKLOAD_H_
