// MultiClientRunner: executes a multi-client plan (RunMultiClientPlan,
// multi_client_workload.h). Internal to the multi_client_workload library;
// its pieces live in one file per concept:
//   multi_client_runner.cc  the driver: clients, ordering, failures, teardown
//   multi_client_ops.cc     the client ops through the C API
//   multi_client_checks.cc  expectations and invariant checks
//   multi_client_trace.cc   the trace recorder and step events
//
// Ownership: the plan, options and result are borrowed for the runner's
// lifetime. Thread-safety: single-threaded (everything runs on the
// simulation's event loop).
#ifndef STEPFLOW_SIM_WORKLOADS_MULTI_CLIENT_RUNNER_H_
#define STEPFLOW_SIM_WORKLOADS_MULTI_CLIENT_RUNNER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/config.pb.h"
#include "proto/sim_workload.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/framework/tensor.h"
#include "sim/check/invariants.h"
#include "sim/env/sim_env.h"
#include "sim/trace/trace.h"
#include "sim/trace/traced_rendezvous.h"
#include "sim/workloads/multi_client_graphs.h"
#include "sim/workloads/multi_client_workload.h"

namespace stepflow {

inline constexpr double kTrainingTolerance = 1e-4;

inline absl::Status FromC(const TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(TF_GetCode(s)),
                      TF_Message(s));
}

// Owns a TF_Status for one call.
class CStatus {
 public:
  CStatus() : s_(TF_NewStatus()) {}
  ~CStatus() { TF_DeleteStatus(s_); }
  CStatus(const CStatus&) = delete;
  CStatus& operator=(const CStatus&) = delete;
  TF_Status* get() { return s_; }
  absl::Status status() const { return FromC(s_); }

 private:
  TF_Status* s_;
};

class MultiClientRunner {
 public:
  MultiClientRunner(const SimWorkloadPlan& plan,
                    const MultiClientRunOptions& options,
                    MultiClientWorkloadResult* result)
      : plan_(plan),
        options_(options),
        result_(result),
        checker_(&result->violations),
        recorder_(RecorderOptions(options, &checker_)) {}

  absl::Status Run();

 private:
  struct GraphState {
    const SimGraph* spec = nullptr;
    TF_Graph* graph = nullptr;
    bool created = false;
    bool delete_requested = false;
    bool freed = false;
    int live_sessions = 0;
    GraphDef nodes;  // Everything imported, faults applied.
    std::map<std::string, TF_Operation*> ops;
  };
  struct SessionState {
    std::string name;
    std::string graph;
    TF_Session* session = nullptr;
    bool closed = false;
    bool deleted = false;
    int in_flight = 0;
    int open_pruns = 0;
    std::shared_ptr<RendezvousStats> stats;
    int64_t leaked_seen = 0;
    // Training graphs: what the variables hold.
    bool vars_known = true;
    bool vars_initialized = false;
    multi_client::SgdState sgd;
  };
  struct PRunState {
    std::string session;
    const char* handle = nullptr;
    bool failed = false;
    std::map<std::string, float> fed;
    std::set<std::string> declared_fetches;
    std::set<std::string> fetched;
    std::vector<std::string> targets;
  };
  struct ClientState {
    std::vector<int> ops;
    size_t next = 0;
    bool parked = false;
    bool done = false;
  };

  absl::Status Validate();
  bool Exclusive(const SimOp& op) const;
  bool Ready(int index) const;
  void ScheduleNext(int client);
  void ClientEvent(int client);
  void WakeParked();
  absl::Status Execute(int index);
  void AfterOp(int index);

  // A TF_SessionRun / TF_SessionPRun call's arguments, resolved from a RUN
  // or PRUN op.
  struct RunCall {
    std::vector<TF_Output> inputs;
    std::vector<TF_Output> outputs;
    std::vector<const TF_Operation*> targets;
    std::vector<TF_Tensor*> input_values;  // Owned until the call.
    std::map<std::string, float> float_feeds;
    int32_t fed_n = -1;  // The int32 feed (loop bound), if any.
  };

  // The client ops (multi_client_ops.cc): each returns InvalidArgument for
  // a malformed plan (an op on an object it never created or already
  // deleted) and OK otherwise, whatever the C API answered (the checker
  // judges that).
  absl::Status DoImport(const SimOp& op, const std::string& where);
  absl::Status DoNewSession(const SimOp& op, const std::string& where);
  absl::Status DoRun(int index, const SimOp& op, const std::string& where);
  absl::Status DoPRunSetup(const SimOp& op, const std::string& where);
  absl::Status DoPRun(int index, const SimOp& op, const std::string& where);
  void DoDeleteSession(const SimOp& op, const std::string& where);
  void DoDeleteGraph(const SimOp& op, const std::string& where);
  // DoRun's pieces: the op's endpoints (fetches, targets, then feeds), its
  // feed tensors, and the TF_SessionRun call itself (which frees the feed
  // tensors and returns the run's status).
  absl::Status ResolveRun(const GraphState& g, const SimOp& op,
                          RunCall* call) const;
  static void MakeRunFeeds(const SimOp& op, RunCall* call);
  // DoPRun's pieces, likewise: endpoints (feeds, then fetches) and feed
  // tensors, then the TF_SessionPRun call.
  absl::Status PreparePRun(const GraphState& g, const SimOp& op,
                           RunCall* call) const;
  absl::Status CallSessionPRun(const std::string& where, const PRunState& p,
                               SessionState* s, RunCall* call,
                               std::vector<Tensor>* results);
  absl::Status CallSessionRun(const SimOp& op, const std::string& where,
                              SessionState* s, RunCall* call,
                              std::vector<Tensor>* results,
                              RunMetadata* metadata);

  // TF_Output for an endpoint of `g`; InvalidArgument if unknown.
  absl::Status Output(const GraphState& g, const std::string& endpoint,
                      TF_Output* out) const;

  // Checking (multi_client_checks.cc).
  void CheckLeaks(SessionState& s, const std::string& where);
  void CheckRefcount(const std::string& where);
  int64_t ExpectedLiveGraphs() const;
  StepExpectation DagExpectation(const GraphState& g,
                                 const std::map<std::string, float>& feeds,
                                 const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets,
                                 const std::string& where);
  // What a RUN op on `g` must produce, by graph kind; InvalidArgument when
  // the plan fetches what no reference covers.
  absl::Status RunExpectation(const GraphState& g, const SessionState& s,
                              const SimOp& op, const RunCall& call,
                              const std::string& where,
                              StepExpectation* expect);
  static absl::Status LoopExpectation(const GraphState& g, int32_t fed_n,
                                      const std::vector<std::string>& fetches,
                                      const std::string& where,
                                      StepExpectation* expect);
  static StepExpectation TrainingExpectation(const SessionState& s,
                                             const SimOp& op);
  // The training graph's variables after a RUN op ended with `run_status`.
  static void UpdateTrainingState(const GraphState& g, const SimOp& op,
                                  const absl::Status& run_status,
                                  SessionState* s);
  // What a PRUN op must produce: its own fetches' values, or any error the
  // whole partial run may meet; InvalidArgument once an earlier call failed.
  StepExpectation PRunExpectation(const GraphState& g, const PRunState& p,
                                  const SimOp& op, bool failed_before,
                                  const std::string& where);
  // The partial run's bookkeeping after a PRUN op ended with `run_status`.
  static void UpdatePRunState(const SimOp& op, const absl::Status& run_status,
                              PRunState* p, SessionState* s);
  // The partition graphs a RUN op returned hold exactly the reference
  // pruning of its signature.
  void CheckRunPruning(const GraphState& g, const SimOp& op,
                       const RunMetadata& metadata, const std::string& where);

  // Tracing (multi_client_trace.cc).
  static TraceRecorder::Options RecorderOptions(
      const MultiClientRunOptions& options, InvariantChecker* checker);
  absl::Status OpenTraceFile();
  void TraceOpStart(int index, const SimOp& op);
  void RecordStep(const SimOp& op, int index, const absl::Status& status,
                  const std::vector<Tensor>& outputs);
  // Fills the result's counters and trace summary, ends the simulation and
  // closes the trace file (its error, if any).
  absl::Status FinishTrace();

  void OnFailure(const SimFailure& failure);
  void Teardown();

  const SimWorkloadPlan& plan_;
  const MultiClientRunOptions& options_;
  MultiClientWorkloadResult* const result_;
  InvariantChecker checker_;
  TraceRecorder recorder_;  // Outlives sim_ (declared before it).
  std::unique_ptr<SimEnv> sim_;

  std::map<std::string, GraphState> graphs_;
  std::map<std::string, SessionState> sessions_;
  std::map<std::string, PRunState> pruns_;
  std::map<int, ClientState> clients_;
  // Plan indices of the ops on each graph, in plan order.
  std::map<std::string, std::vector<int>> graph_ops_;
  std::vector<bool> finished_;
  int64_t base_live_graphs_ = 0;
  int runs_waiting_ = 0;
  bool stopped_ = false;
  absl::Status plan_error_;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_WORKLOADS_MULTI_CLIENT_RUNNER_H_
