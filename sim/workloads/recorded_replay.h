// Replaying a recorded real run (sim/workloads/recorded_run.h) against the
// real Master and Workers in the simulator, in virtual time.
//
// The replay builds a SimCluster (sim/workloads/sim_cluster.h) of the
// recorded tasks (same names, same CPUs; the master with the recorded
// options and the recorded master task's CPU:0 as client device), then
// re-issues the client's calls — the recorded request bytes — to the
// master from the simulated client task, and applies the recorded faults
// (a task's crash and restart; the master's task takes the master down
// too). Handles are translated: a request naming a session, partial run
// or callable handle the recorded run was given is sent with the one the
// simulated master gave for the same call.
//
// Timing: item k (a call or a fault, in recorded start order) is issued
// once virtual time reaches its recorded start and every item that
// finished before it started in the recorded run has finished here: the
// recorded order and concurrency are kept, and virtual time follows the
// recorded offsets wherever the simulated run is not slower. A crash comes
// sooner if the task has by then given as many worker answers as its
// recorded incarnation did (RecordedFault::answers): a task killed in the
// middle of a step dies at the same point of the step here. Messages take
// a fixed 50 us (loopback-like: a refused connection is learnt before
// anything that takes several hops). Nothing reads real time, so a
// recording replays the same every time (the seed only breaks same-time
// ties).
//
// Compared, as a list of events recorded vs replayed:
//   1. for each client call, "<method> <outcome>" (call_outcome.h: the
//      status code and, for OK answers, the fetched values' digest, graph
//      versions, device counts);
//   2. then, when the recording has the workers' side, per (worker task,
//      method, status code) the number of answers the workers gave —
//      RegisterGraph, RunGraph, RecvTensor, CleanupGraph, the worker
//      sessions... — over the whole run: "worker-side: <task> <method>
//      code=<CODE> x<n>". Left out: heartbeats (GetStatus: how many there
//      are follows real time), error answers while a crashed task is down
//      (from its crash to its restart), and every answer from the start of
//      a client call that was in flight at the crash (the step the kill
//      interrupted) to the next client call after it (its clean-up): how
//      many calls were in flight at the instant of the kill, and how far
//      that step had got on each task, is not recorded. Worker calls are
//      compared as counts, not one by one: their interleaving across tasks
//      depends on threads.
// The first index at which the lists differ is the departure, reported
// with both records.
//
// Limits: the recording says neither when a killed process died (only
// how many answers it gave, its last answer and the restart), nor the
// client's deadlines (calls are re-issued without one), nor the real
// threads' interleaving. A kill between sessions or steps replays exactly;
// so, in every trial so far, did a kill in the middle of a step (the
// simulated task dies after as many answers). A kill whose effect hinged
// on a race between two real threads may still depart near the kill, and
// the report then shows where.
//
// Errors: InvalidArgument for a run the simulator cannot host (no client
// calls, more than 8 tasks); a departure is not an error.
// Thread-safety: as RunSimulation (a planted bug is process-wide).
#ifndef STEPFLOW_SIM_WORKLOADS_RECORDED_REPLAY_H_
#define STEPFLOW_SIM_WORKLOADS_RECORDED_REPLAY_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/planted_bug.h"
#include "sim/workloads/recorded_run.h"

namespace stepflow {

struct RecordedReplayOptions {
  uint64_t seed = 1;
  PlantedBug planted_bug = PlantedBug::kNone;
};

// (worker task, method, "code=<CODE>") -> how many such answers.
using WorkerAnswers =
    std::map<std::tuple<std::string, std::string, std::string>, int64_t>;

struct RecordedReplayResult {
  // "<method> <outcome>" per client call, recorded and replayed ("<no
  // answer>" for a call the simulated master never answered).
  // Then the worker-side answer counts (see above).
  std::vector<std::string> recorded;
  std::vector<std::string> replayed;
  // The first client_calls entries are the client calls.
  int64_t client_calls = 0;
  // Each client call's replayed outcome alone (call_outcome.h).
  std::vector<std::string> outcomes;
  // The workers' compared answers in the replay.
  WorkerAnswers worker_answers;
  // -1 when every call's outcome matches.
  int64_t divergence_index = -1;
  int faults_applied = 0;
  int64_t worker_calls_recorded = 0;
  int64_t rpcs = 0;  // Simulated network calls.
  uint64_t events_run = 0;
  int64_t virtual_nanos = 0;
  // FNV-1a over the replayed lines: the same recording gives the same hash.
  uint64_t hash = 0;
};

absl::Status ReplayRecordedRun(const RecordedRun& run,
                               const RecordedReplayOptions& options,
                               RecordedReplayResult* result);

// The recorded timeline, one line per client call ("<start>-<end> client
// <task> <method> <outcome>"), fault and, with `worker_calls`, worker call
// ("peer"), by start time.
std::string DescribeRecordedRun(const RecordedRun& run, bool worker_calls);

// The report: calls, faults, the departure with both records or
// "replays identically", the hash.
std::string DescribeRecordedReplay(const RecordedRun& run,
                                   const RecordedReplayResult& result);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_WORKLOADS_RECORDED_REPLAY_H_
