// The multi-client workload's invariant checker. Every check appends violations
// to a list instead of failing: a simulation always runs to its end and reports
// everything it found. Each invariant has a stable short name (below) used in
// reports, tests and replay tooling:
//
//   values       fetched values equal the reference's (a plain interpreter
//                of the graph, closed-form loop results, SGD in double);
//                a step's status is one the reference allows.
//   pruning      with RunOptions.output_partition_graphs, the partitions'
//                user nodes plus feed/fetch nodes are exactly the reference
//                pruned set (testing/reference_prune.h, function convention).
//   sendrecv     per session, step and full rendezvous key (which carries
//                frame:iter): at most one successful Send and at most one
//                successful Recv; no Recv left uncompleted after a step.
//   leaks        after a session's steps finish: no live rendezvous, no
//                rendezvous entries dropped at destruction, no per-step
//                resource containers on its devices, no cancellation
//                registrations or partial runs left in the session.
//   step_ids     a session never reuses a step id.
//   error_codes  every status is OK, Cancelled, DeadlineExceeded,
//                InvalidArgument, NotFound, FailedPrecondition or a code the
//                plan injected — never Internal or Unknown.
//   refcount     live TF_Graphs equal the model's (a graph is freed exactly
//                when TF_DeleteGraph was called and its last session was
//                deleted).
//   closed       a run or partial run started on a closed session fails
//                with Cancelled.
//   liveness     the simulator itself failed (deadlock, budget).
//
// Thread-safety: none (the simulator's one thread).
#ifndef STEPFLOW_SIM_INVARIANTS_H_
#define STEPFLOW_SIM_INVARIANTS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"
#include "sim/trace/trace.h"

namespace stepflow {

inline constexpr char kInvariantValues[] = "values";
inline constexpr char kInvariantPruning[] = "pruning";
inline constexpr char kInvariantSendRecv[] = "sendrecv";
inline constexpr char kInvariantLeaks[] = "leaks";
inline constexpr char kInvariantStepIds[] = "step_ids";
inline constexpr char kInvariantErrorCodes[] = "error_codes";
inline constexpr char kInvariantRefcount[] = "refcount";
inline constexpr char kInvariantClosed[] = "closed";
inline constexpr char kInvariantLiveness[] = "liveness";

// Every name above, in this order.
std::vector<std::string> AllInvariantNames();

struct InvariantViolation {
  std::string invariant;  // One of the names above.
  std::string detail;     // Where (op, session, step) and what.
};

// What a step's reference says about its outcome.
struct StepExpectation {
  // The step may fail with one of these codes (from the graph itself:
  // injected failures, unfed placeholders, uninitialized variables). If
  // `must_fail`, OK is wrong.
  std::set<absl::StatusCode> error_codes;
  bool must_fail = false;
  // Whether a timeout was set (DeadlineExceeded allowed) and whether the
  // session was closed while the step ran (Cancelled allowed).
  bool timeout_set = false;
  bool closed_during_step = false;
  // Reference values, one per fetch, when the step succeeds; empty
  // `values` with check_values set means "no fetches".
  bool check_values = false;
  std::vector<double> values;
  // |actual - expected| <= tolerance * max(1, |expected|); 0 = exact
  // (NaN equals NaN).
  double tolerance = 0;
};

// Read-only counters of one session, sampled when none of its steps runs.
struct LeakSnapshot {
  int64_t live_rendezvous = 0;
  int64_t pending_recvs = 0;
  // Entries (unreceived values, waiting Recvs) found in rendezvous
  // destroyed since the previous snapshot.
  int64_t leaked_rendezvous_entries = 0;
  std::vector<std::string> step_containers;  // "__per_step_*" left over.
  int64_t cancellation_registrations = 0;
  int64_t partial_runs = 0;
};

class InvariantChecker {
 public:
  explicit InvariantChecker(std::vector<InvariantViolation>* out);

  // Adds codes allowed by error_codes (the plan's injected codes).
  void AllowErrorCode(absl::StatusCode code);

  // Records a violation.
  void Report(const std::string& invariant, const std::string& detail);

  // error_codes: `status` has an allowed code.
  void CheckErrorCode(const std::string& where, const absl::Status& status);

  // values: `status` and `outputs` against `expect`. float/int32 scalars.
  void CheckStep(const std::string& where, const StepExpectation& expect,
                 const absl::Status& status,
                 const std::vector<Tensor>& outputs);

  // closed: a step started on a closed session returned `status`.
  void CheckClosedSessionStep(const std::string& where,
                              const absl::Status& status);

  // pruning: `partitions` (RunMetadata.partition_graphs) against the
  // reference set. Nodes the partitioner adds (_Send, _Recv, "_cloop*",
  // names with a "/_<n>" suffix) are left out; _arg_/_retval_ stay. A node
  // "c/<anything>" where c is one of `call_sites` (a user node lowering
  // expanded: an inlined call, an If/Case/While) counts as c, so the
  // comparison is over the user graph's nodes.
  void CheckPruning(const std::string& where,
                    const std::set<std::string>& expected,
                    const std::vector<GraphDef>& partitions,
                    const std::set<std::string>& call_sites = {});

  // leaks (and sendrecv's "every Recv completed") for one idle session.
  void CheckLeaks(const std::string& where, const LeakSnapshot& snapshot);

  // refcount.
  void CheckRefcount(const std::string& where, int64_t expected_live,
                     int64_t actual_live);

  // sendrecv and step_ids, from the trace (the recorder's observer).
  void OnTraceEvent(const TraceEvent& event);

  int violations() const { return static_cast<int>(out_->size()); }
  // How many times each invariant was checked (a check that can never run
  // proves nothing; tests assert these are positive).
  const std::map<std::string, int64_t>& checks() const { return checks_; }

 private:
  std::vector<InvariantViolation>* const out_;
  std::set<absl::StatusCode> allowed_codes_;
  std::map<std::string, int64_t> checks_;
  // (task, step id) seen in SIM_NOTE new_step.
  std::set<std::pair<std::string, std::string>> steps_seen_;
  // (task, step, key) -> successful sends / receives.
  std::map<std::tuple<std::string, std::string, std::string>, int> sends_;
  std::map<std::tuple<std::string, std::string, std::string>, int> recvs_;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_INVARIANTS_H_
