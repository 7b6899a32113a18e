// The distributed simulation workload: a SimCluster (sim/sim_cluster.h) of
// the real master and 2..8 workers with 1..3 CPU devices each, driven by
// concurrent clients through a faulty simulated network, then healed and
// checked.
//
// From the seed ("workload" stream) a run draws the cluster (workers, CPUs,
// clock skews), a random float DAG (sim/workloads/multi_client_graphs.h) spread
// over every device of every worker, 1..3 clients and a fault schedule. Each
// client creates a master session (retrying
// Unavailable/Aborted/DeadlineExceeded), runs `steps_per_client` RunSteps —
// random fetches of the DAG, quarter- integer feeds, a random step timeout;
// partial_run_percent of them as partial runs: setup, the feeds with half the
// fetches, the rest — with calls overlapping across clients, then closes its
// session (retrying the same way). Clients speak the master's RPCs directly,
// asynchronously, so steps overlap without nested waits.
//
// Chaos phase [0, chaos): the fault schedule of
// sim/workloads/distributed_faults.h (worker and master crashes, hung
// workers, partitions, clogs, broken connections, duplicated requests),
// heavy-tailed latency throughout, and injected allocation failures
// (alloc_fault_per_mille of device reservations fail); budget_percent of
// seeds also give every device a tight memory budget for the whole run.
// The master health-checks its workers and the workers lease their
// sessions to it (health_check_interval, session_lease). no_timeout_percent
// of the steps run without a timeout: only the health checks can end such
// a step on a hung worker. At `chaos` the network heals and every crashed
// task restarts. A client whose session the master lost (it crashed)
// creates a new one and goes on.
//
// Invariants (names as in sim/workload_runner.h):
//   values       an OK step's fetches equal the single-process reference
//                (testing/reference_eval.h), bit for bit;
//   error_codes  a failed step or session call failed with Unavailable,
//                DeadlineExceeded or Aborted only (or ResourceExhausted
//                where memory faults or budgets are on);
//   liveness     every RunStep answers before a bound derived from its
//                timeout and the operation timeout (a hang shows up as the
//                client's own deadline), the loop never deadlocks, and
//                after the heal a new session's step succeeds at once;
//   leaks        once everything is closed and the loop is idle (the
//                master's session GC and the workers' leases included): no
//                master session, no worker session, graph, step state or
//                allocated device memory on any live worker, no pending
//                network call;
//   stale_recv   no RecvTensor answered for a step already cleaned up, or
//                naming another incarnation (SimCluster's probe).
// Every RPC, fault, step and check is traced; the same seed gives the same
// trace hash in any process.
#ifndef STEPFLOW_SIM_DISTRIBUTED_WORKLOAD_H_
#define STEPFLOW_SIM_DISTRIBUTED_WORKLOAD_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sim/env/event_loop.h"
#include "sim/trace/trace.h"

namespace stepflow {

struct DistributedWorkloadOptions {
  int min_workers = 2;
  int max_workers = 8;
  int max_cpus = 3;
  int min_clients = 1;
  int max_clients = 3;
  int steps_per_client = 6;
  // Steps run as partial runs (setup, feeds + half the fetches, the rest).
  int partial_run_percent = 25;
  int min_nodes = 6;
  int max_nodes = 18;
  // Fault events in the chaos window (0..faults, drawn).
  int faults = 4;
  bool crashes = true;
  bool partitions = true;
  bool clogs = true;
  bool hangs = true;
  bool master_crashes = true;
  int drop_per_mille = 15;
  int duplicate_per_mille = 15;
  int64_t chaos_nanos = int64_t{3} * 1000 * 1000 * 1000;
  int64_t max_clock_skew_nanos = 50 * 1000 * 1000;
  int64_t min_step_timeout_ms = 300;
  int64_t max_step_timeout_ms = 2000;
  int64_t operation_timeout_ms = 1000;
  // The master's session garbage collection: sessions orphaned by a lost
  // CreateSession answer are closed after this much idle time.
  int64_t session_gc_nanos = int64_t{30} * 1000 * 1000 * 1000;
  // The master's heartbeat period (0: no health checks, no leases) and the
  // missed heartbeats that make a worker unresponsive.
  int64_t health_check_interval_nanos = 200 * 1000 * 1000;
  int health_check_max_missed = 3;
  // Workers drop the sessions of a master not heard from this long.
  int64_t session_lease_nanos = int64_t{2} * 1000 * 1000 * 1000;
  // Device reservations refused during the chaos phase, per mille.
  int alloc_fault_per_mille = 3;
  // Seeds (percent) whose devices get a tight memory budget.
  int budget_percent = 20;
  // Steps run without a timeout (percent).
  int no_timeout_percent = 20;
  SimEventLoop::Options loop;
  // Record into this recorder (borrowed; null: an own one, hash only).
  TraceRecorder* recorder = nullptr;
};

struct DistributedWorkloadResult {
  uint64_t seed = 0;
  int workers = 0;
  int clients = 0;
  int steps_run = 0;
  int steps_ok = 0;
  std::map<std::string, int> steps_by_code;
  int faults_applied = 0;
  int restarts = 0;
  int64_t rpcs = 0;
  // {invariant, detail} for each violation.
  std::vector<std::pair<std::string, std::string>> violations;
  uint64_t events_run = 0;
  int64_t virtual_nanos = 0;
  uint64_t trace_hash = 0;
  uint64_t trace_events = 0;
};

absl::Status RunDistributedWorkload(uint64_t seed,
                                    const DistributedWorkloadOptions& options,
                                    DistributedWorkloadResult* result);

// Options <-> "key=value" params (names as the fields, *_nanos as *_ns,
// booleans as 0/1). InvalidArgument for an unknown key or a bad value.
TraceFields DistributedWorkloadParams(
    const DistributedWorkloadOptions& options);
absl::Status DistributedWorkloadOptionsFromParams(
    const TraceFields& params, DistributedWorkloadOptions* options);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_DISTRIBUTED_WORKLOAD_H_
