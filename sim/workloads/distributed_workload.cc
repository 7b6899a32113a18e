#include "sim/workloads/distributed_workload.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/master.pb.h"
#include "runtime/distributed/call_util.h"
#include "runtime/env/notification.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/tensor_util.h"
#include "sim/env/sim_allocation_faults.h"
#include "sim/env/sim_env.h"
#include "sim/trace/tensor_digest.h"
#include "sim/workloads/distributed_faults.h"
#include "sim/workloads/multi_client_graphs.h"
#include "sim/workloads/sim_cluster.h"
#include "testing/reference_eval.h"

namespace stepflow {
namespace {

constexpr int64_t kMilli = 1000 * 1000;
constexpr int64_t kMaxClogNanos = DistributedFaults::kMaxClogNanos;
constexpr int kSessionCallAttempts = 30;

int64_t Between(Random* r, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo +
         static_cast<int64_t>(r->Uniform(static_cast<uint64_t>(hi - lo + 1)));
}

// The session is gone: the master lost it (it crashed and restarted, or
// collected it; Aborted), or a worker dropped its part of it when the
// master's lease there expired (FailedPrecondition naming the task).
bool SessionNotFound(const absl::Status& s) {
  return (absl::IsAborted(s) || absl::IsFailedPrecondition(s)) &&
         absl::StrContains(s.message(), "is not found") &&
         absl::StrContains(s.message(), "Session");
}

// One step a client runs: feeds by placeholder, fetches, its timeout.
struct StepPlan {
  std::map<std::string, float> feeds;
  std::vector<std::string> fetches;
  int64_t timeout_ms = 0;
};

class DistributedRun {
 public:
  DistributedRun(uint64_t seed, const DistributedWorkloadOptions& options,
                 DistributedWorkloadResult* result)
      : options_(options), result_(result), sim_(seed, LoopOptions(options)) {}

  absl::Status Run();

 private:
  struct Client {
    int id = 0;
    std::string handle;
    int next_step = 0;
    int attempts = 0;
    bool lost = false;  // The master lost the session: create a new one.
  };

  static SimEventLoop::Options LoopOptions(
      const DistributedWorkloadOptions& o) {
    SimEventLoop::Options l = o.loop;
    l.task = "sim";
    // Every run is over (leases and the session GC included) well within
    // minutes of virtual time: a livelock fails the seed instead of
    // spinning for the loop's default day.
    const int64_t bound = o.chaos_nanos + 2 * o.session_gc_nanos +
                          2 * o.session_lease_nanos +
                          int64_t{120} * 1000 * 1000 * 1000;
    if (l.max_virtual_nanos == 0 || l.max_virtual_nanos > bound) {
      l.max_virtual_nanos = bound;
    }
    // A run takes thousands of events; millions mean a busy loop.
    constexpr uint64_t kMaxEvents = 5000000;
    if (l.max_events == 0 || l.max_events > kMaxEvents) {
      l.max_events = kMaxEvents;
    }
    return l;
  }

  void Violation(const std::string& invariant, const std::string& detail) {
    result_->violations.push_back({invariant, detail});
    sim_.loop.Trace(SIM_NOTE, "checker",
                    {{"event", "invariant_failure"},
                     {"invariant", invariant},
                     {"detail", detail}});
  }
  bool Allowed(const absl::Status& s) const;
  absl::Status BuildCluster();
  void BuildGraph();
  StepPlan DrawStep();
  void ScheduleChaos();

  // Client chains.
  void CreateSession(std::shared_ptr<Client> c);
  void RunNextStep(std::shared_ptr<Client> c);
  void CheckStep(const Client& c, int step, const StepPlan& plan,
                 const RunStepResponse& resp);
  // A step as a partial run: setup, then feeds with the first half of the
  // fetches, then the rest.
  void RunPartialStep(std::shared_ptr<Client> c, int step,
                      std::shared_ptr<StepPlan> plan);
  void PartialCall(std::shared_ptr<Client> c, int step,
                   std::shared_ptr<StepPlan> plan, std::string handle,
                   int call);
  // Counts and traces a step's (or partial call's) status and checks it is
  // allowed; true if it is OK.
  bool CheckStatus(Client* c, int step, const absl::Status& s, int64_t start,
                   int64_t bound);
  void NextStepLater(std::shared_ptr<Client> c);
  void CloseSession(std::shared_ptr<Client> c);
  void ClientDone();
  template <typename Req, typename Resp>
  void CallMaster(const std::string& method, const Req& req,
                  int64_t timeout_nanos,
                  std::function<void(const absl::Status&, Resp*)> done) {
    CallOptions opts;
    opts.timeout_nanos = timeout_nanos;
    CallTask<Req, Resp>(cluster_->client_env(), SimCluster::kMasterTask, method,
                        req, opts, std::move(done));
  }
  void Retry(std::shared_ptr<Client> c, const std::string& what,
             const absl::Status& s, std::function<void()> again,
             std::function<void()> give_up);
  int64_t StepBound(int64_t timeout_ms) const;

  void Probe();
  void CheckLeaks();
  // Step states held by the live workers.
  size_t LiveWorkerSteps() const;
  void CheckDeviceMemory(Worker* w);

  const DistributedWorkloadOptions options_;
  DistributedWorkloadResult* const result_;
  SimEnv sim_;
  Random* workload_ = nullptr;
  std::unique_ptr<SimAllocationFaults> allocation_faults_;
  std::unique_ptr<SimCluster> cluster_;
  std::unique_ptr<DistributedFaults> faults_;
  bool budgets_ = false;  // Tight device memory budgets this seed.
  SimNetworkOptions network_;
  ConfigProto config_;
  GraphDef graph_;
  std::vector<std::string> placeholders_;
  std::vector<std::string> fetchable_;
  int clients_left_ = 0;
  Notification all_done_;
};

absl::Status DistributedRun::BuildCluster() {
  workload_ = sim_.random.Stream("workload");
  SimClusterOptions co;
  co.cpus.clear();
  const int workers = static_cast<int>(Between(
      workload_, std::max(1, options_.min_workers),
      std::min(8, std::max(options_.min_workers, options_.max_workers))));
  for (int i = 0; i < workers; ++i) {
    co.cpus.push_back(static_cast<int>(
        Between(workload_, 1, std::max(1, options_.max_cpus))));
    co.worker_skew_nanos.push_back(Between(workload_,
                                           -options_.max_clock_skew_nanos,
                                           options_.max_clock_skew_nanos));
  }
  co.master_skew_nanos = Between(workload_, -options_.max_clock_skew_nanos,
                                 options_.max_clock_skew_nanos);
  co.master.session_gc_nanos = options_.session_gc_nanos;
  co.master.task = SimCluster::kMasterTask;
  co.master.health_check_interval_nanos = options_.health_check_interval_nanos;
  co.master.health_check_max_missed = options_.health_check_max_missed;
  co.worker.session_lease_nanos = options_.session_lease_nanos;
  if (options_.alloc_fault_per_mille > 0) {
    allocation_faults_ = std::make_unique<SimAllocationFaults>(
        &sim_.loop, sim_.random.Stream("allocation_faults"),
        options_.alloc_fault_per_mille);
    co.worker.memory.allocation_faults = allocation_faults_.get();
  }
  budgets_ = workload_->Uniform(100) <
             static_cast<uint64_t>(std::max(0, options_.budget_percent));
  if (budgets_) {
    // A few scalars' worth: enough for a step alone, not always for
    // several at once (partial runs hold theirs between calls).
    co.worker.memory.per_device_memory_limit = Between(workload_, 64, 512);
  }
  // Broken connections and duplicates start with the chaos phase.
  co.network.drop_per_mille = 0;
  co.network.duplicate_per_mille = 0;
  network_ = co.network;
  absl::Status s = SimCluster::Create(&sim_, co, &cluster_);
  if (!s.ok()) return s;
  result_->workers = workers;
  config_.set_operation_timeout_in_ms(options_.operation_timeout_ms);
  sim_.loop.Trace(SIM_NOTE, "workload",
                  {{"event", "cluster"},
                   {"workers", workers},
                   {"cpus", absl::StrJoin(co.cpus, ",")},
                   {"device_memory_limit",
                    absl::StrCat(co.worker.memory.per_device_memory_limit)}});
  return absl::OkStatus();
}

void DistributedRun::BuildGraph() {
  // Every device of every worker, in task order.
  std::vector<std::string> devices;
  for (int i = 0; i < cluster_->num_workers(); ++i) {
    for (int d = 0;
         d < static_cast<int>(
                 cluster_->worker(i)->device_mgr()->ListDevices().size());
         ++d) {
      devices.push_back(
          absl::StrCat(SimCluster::WorkerTask(i), "/device:CPU:", d));
    }
  }
  const int nodes = static_cast<int>(
      Between(workload_, options_.min_nodes,
              std::max(options_.min_nodes, options_.max_nodes)));
  graph_ = multi_client::BuildDagExtension(
      GraphDef(), static_cast<int>(devices.size()), "n", nodes, workload_);
  for (NodeDef& n : *graph_.mutable_node()) {
    const size_t colon = n.device().rfind(':');
    int index = 0;
    if (colon != std::string::npos &&
        absl::SimpleAtoi(n.device().substr(colon + 1), &index) && index >= 0 &&
        index < static_cast<int>(devices.size())) {
      n.set_device(devices[index]);
    }
    if (n.op() == "Placeholder") placeholders_.push_back(n.name());
    if (n.op() != "NoOp" && n.op() != "Placeholder") {
      fetchable_.push_back(n.name());
    }
  }
}

StepPlan DistributedRun::DrawStep() {
  StepPlan p;
  for (const std::string& ph : placeholders_) {
    p.feeds[ph] = static_cast<float>(Between(workload_, -16, 16)) / 4.0f;
  }
  for (const std::string& f : fetchable_) {
    if (workload_->Uniform(3) == 0) p.fetches.push_back(f);
  }
  if (p.fetches.empty() && !fetchable_.empty()) {
    p.fetches.push_back(fetchable_[workload_->Uniform(fetchable_.size())]);
  }
  p.timeout_ms = Between(workload_, options_.min_step_timeout_ms,
                         options_.max_step_timeout_ms);
  if (workload_->Uniform(100) <
      static_cast<uint64_t>(std::max(0, options_.no_timeout_percent))) {
    p.timeout_ms = 0;
  }
  return p;
}

int64_t DistributedRun::StepBound(int64_t timeout_ms) const {
  if (timeout_ms == 0) {
    // No timeout: a step waiting on a hung or unreachable worker ends when
    // the health checks miss it (the missed checks, plus the one in flight
    // and its own deadline), never at the heal. Without health checks
    // nothing ends it before the heal.
    timeout_ms = options_.health_check_interval_nanos > 0
                     ? (options_.health_check_interval_nanos *
                            (options_.health_check_max_missed + 2) +
                        options_.operation_timeout_ms * kMilli) /
                           kMilli
                     : options_.chaos_nanos / kMilli;
  }
  // Refresh (GetStatus + CreateWorkerSession), registration, the step, the
  // first cleanup attempt: each bounded by a deadline; plus the network's
  // worst case to and from the master (connection timeout, clogs, tails).
  return timeout_ms * kMilli + 4 * options_.operation_timeout_ms * kMilli +
         2 * network_.connection_timeout_nanos + 2 * kMaxClogNanos +
         2 * (network_.min_latency_nanos + network_.max_extra_latency_nanos) +
         1000 * kMilli;
}

void DistributedRun::ScheduleChaos() {
  DistributedFaultOptions fo;
  fo.faults = options_.faults;
  fo.crashes = options_.crashes;
  fo.partitions = options_.partitions;
  fo.clogs = options_.clogs;
  fo.hangs = options_.hangs;
  fo.master_crashes = options_.master_crashes;
  fo.drop_per_mille = options_.drop_per_mille;
  fo.duplicate_per_mille = options_.duplicate_per_mille;
  fo.chaos_nanos = options_.chaos_nanos;
  faults_ = std::make_unique<DistributedFaults>(
      &sim_, cluster_.get(), workload_, allocation_faults_.get(), fo,
      [this](const std::string& invariant, const std::string& detail) {
        Violation(invariant, detail);
      });
  faults_->Schedule();
}

bool DistributedRun::Allowed(const absl::Status& s) const {
  if (absl::IsResourceExhausted(s)) {
    return budgets_ || allocation_faults_ != nullptr;
  }
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s) ||
         absl::IsAborted(s) || SessionNotFound(s);
}

void DistributedRun::Retry(std::shared_ptr<Client> c, const std::string& what,
                           const absl::Status& s, std::function<void()> again,
                           std::function<void()> give_up) {
  if (!Allowed(s)) {
    Violation("error_codes", absl::StrCat("client ", c->id, ": ", what,
                                          " failed with ", s.ToString()));
    give_up();
    return;
  }
  if (++c->attempts >= kSessionCallAttempts) {
    Violation(
        "liveness",
        absl::StrCat("client ", c->id, ": ", what, " still fails after ",
                     c->attempts, " attempts (healed ",
                     faults_->healed() ? "yes" : "no", "): ", s.ToString()));
    give_up();
    return;
  }
  const int64_t backoff =
      std::min<int64_t>(2000, 50 << std::min(c->attempts, 6)) * kMilli;
  sim_.loop.ScheduleAfterLabeled(backoff, "client retry", std::move(again));
}

void DistributedRun::CreateSession(std::shared_ptr<Client> c) {
  CreateSessionRequest req;
  *req.mutable_graph_def() = graph_;
  *req.mutable_config() = config_;
  CallMaster<CreateSessionRequest, CreateSessionResponse>(
      "MasterService/CreateSession", req, StepBound(0),
      [this, c](const absl::Status& s, CreateSessionResponse* r) {
        sim_.loop.Trace(SIM_SESSION, absl::StrCat("client", c->id),
                        {{"event", "create"},
                         {"status", absl::StatusCodeToString(s.code())}});
        if (s.ok()) {
          c->handle = r->session_handle();
          c->attempts = 0;
          RunNextStep(c);
          return;
        }
        Retry(
            c, "CreateSession", s, [this, c] { CreateSession(c); },
            [this] { ClientDone(); });
      });
}

void DistributedRun::RunNextStep(std::shared_ptr<Client> c) {
  if (c->next_step >= options_.steps_per_client) {
    CloseSession(c);
    return;
  }
  const int step = c->next_step++;
  auto plan = std::make_shared<StepPlan>(DrawStep());
  if (workload_->Uniform(100) <
      static_cast<uint64_t>(std::max(0, options_.partial_run_percent))) {
    RunPartialStep(c, step, plan);
    return;
  }
  RunStepRequest req;
  req.set_session_handle(c->handle);
  for (const auto& [name, value] : plan->feeds) {
    NamedTensorProto* f = req.add_feed();
    f->set_name(name);
    TensorToProto(Tensor::Scalar<float>(value), f->mutable_tensor());
  }
  for (const std::string& f : plan->fetches) req.add_fetch(f);
  req.mutable_options()->set_timeout_in_ms(plan->timeout_ms);
  req.set_request_id(static_cast<int64_t>(
      cluster_->client_env()->random->NewNonZero64() >> 1));
  const std::string who = absl::StrCat("client", c->id);
  sim_.loop.Trace(SIM_STEP_START, who,
                  {{"step", step},
                   {"fetches", absl::StrJoin(plan->fetches, ",")},
                   {"timeout_ms", plan->timeout_ms}});
  ++result_->steps_run;
  const int64_t start = sim_.loop.NowNanos();
  const int64_t bound = StepBound(plan->timeout_ms);
  CallMaster<RunStepRequest, RunStepResponse>(
      "MasterService/RunStep", req, bound,
      [this, c, step, plan, start, bound](const absl::Status& s,
                                          RunStepResponse* r) {
        if (CheckStatus(c.get(), step, s, start, bound)) {
          ++result_->steps_ok;
          CheckStep(*c, step, *plan, *r);
        }
        NextStepLater(c);
      });
}

bool DistributedRun::CheckStatus(Client* client, int step,
                                 const absl::Status& s, int64_t start,
                                 int64_t bound) {
  const Client& c = *client;
  const std::string code = absl::StatusCodeToString(s.code());
  ++result_->steps_by_code[code];
  sim_.loop.Trace(SIM_STEP_DONE, absl::StrCat("client", c.id),
                  {{"step", step}, {"status", code}});
  if (s.ok()) return true;
  if (SessionNotFound(s)) client->lost = true;
  if (absl::IsDeadlineExceeded(s) && sim_.loop.NowNanos() - start >= bound) {
    Violation("liveness",
              absl::StrCat("client ", c.id, " step ", step,
                           ": the master did not answer within ",
                           bound / kMilli, " ms (", s.ToString(), ")"));
  } else if (!Allowed(s)) {
    Violation("error_codes", absl::StrCat("client ", c.id, " step ", step, ": ",
                                          s.ToString()));
  }
  return false;
}

void DistributedRun::NextStepLater(std::shared_ptr<Client> c) {
  const int64_t think = Between(workload_, 0, 200 * kMilli);
  if (c->lost) {
    // The master lost the session (it restarted): start a new one.
    c->lost = false;
    c->attempts = 0;
    sim_.loop.ScheduleAfterLabeled(think, "client recreate",
                                   [this, c] { CreateSession(c); });
    return;
  }
  sim_.loop.ScheduleAfterLabeled(think, "client think",
                                 [this, c] { RunNextStep(c); });
}

void DistributedRun::RunPartialStep(std::shared_ptr<Client> c, int step,
                                    std::shared_ptr<StepPlan> plan) {
  PartialRunSetupRequest req;
  req.set_session_handle(c->handle);
  for (const auto& [name, value] : plan->feeds) req.add_feed(name);
  for (const std::string& f : plan->fetches) req.add_fetch(f);
  req.set_request_id(static_cast<int64_t>(
      cluster_->client_env()->random->NewNonZero64() >> 1));
  sim_.loop.Trace(SIM_STEP_START, absl::StrCat("client", c->id),
                  {{"step", step},
                   {"partial", "setup"},
                   {"fetches", absl::StrJoin(plan->fetches, ",")}});
  ++result_->steps_run;
  const int64_t start = sim_.loop.NowNanos();
  const int64_t bound = StepBound(0);
  CallMaster<PartialRunSetupRequest, PartialRunSetupResponse>(
      "MasterService/PartialRunSetup", req, bound,
      [this, c, step, plan, start, bound](const absl::Status& s,
                                          PartialRunSetupResponse* r) {
        if (!CheckStatus(c.get(), step, s, start, bound)) {
          NextStepLater(c);
          return;
        }
        PartialCall(c, step, plan, r->partial_run_handle(), 0);
      });
}

void DistributedRun::PartialCall(std::shared_ptr<Client> c, int step,
                                 std::shared_ptr<StepPlan> plan,
                                 std::string handle, int call) {
  // Call 0 feeds everything and fetches the first half; call 1 the rest.
  const size_t half = (plan->fetches.size() + 1) / 2;
  auto part = std::make_shared<StepPlan>();
  part->feeds = plan->feeds;
  part->fetches.assign(
      plan->fetches.begin() + (call == 0 ? 0 : half),
      call == 0 ? plan->fetches.begin() + half : plan->fetches.end());
  RunStepRequest req;
  req.set_session_handle(c->handle);
  req.set_partial_run_handle(handle);
  if (call == 0) {
    for (const auto& [name, value] : plan->feeds) {
      NamedTensorProto* f = req.add_feed();
      f->set_name(name);
      TensorToProto(Tensor::Scalar<float>(value), f->mutable_tensor());
    }
  }
  for (const std::string& f : part->fetches) req.add_fetch(f);
  req.set_request_id(static_cast<int64_t>(
      cluster_->client_env()->random->NewNonZero64() >> 1));
  const int64_t start = sim_.loop.NowNanos();
  const int64_t bound = StepBound(0);
  CallMaster<RunStepRequest, RunStepResponse>(
      "MasterService/RunStep", req, bound,
      [this, c, step, plan, part, handle, call, start, bound](
          const absl::Status& s, RunStepResponse* r) {
        if (!CheckStatus(c.get(), step, s, start, bound)) {
          NextStepLater(c);  // The partial run ended with the failure.
          return;
        }
        CheckStep(*c, step, *part, *r);
        if (call == 0 && part->fetches.size() < plan->fetches.size()) {
          PartialCall(c, step, plan, handle, 1);
          return;
        }
        ++result_->steps_ok;
        NextStepLater(c);
      });
}

void DistributedRun::CheckStep(const Client& c, int step, const StepPlan& plan,
                               const RunStepResponse& resp) {
  graph_testing::ReferenceOutcome want;
  absl::Status s = graph_testing::ReferenceEvaluate(graph_, plan.feeds,
                                                    plan.fetches, {}, &want);
  if (!s.ok() || !want.error_codes.empty()) return;  // Outside the reference.
  const std::string where = absl::StrCat("client ", c.id, " step ", step);
  if (resp.tensor_size() != static_cast<int>(plan.fetches.size())) {
    Violation("values",
              absl::StrCat(where, ": ", resp.tensor_size(), " values for ",
                           plan.fetches.size(), " fetches"));
    return;
  }
  for (size_t i = 0; i < plan.fetches.size(); ++i) {
    Tensor t;
    float got = 0;
    if (!TensorFromProto(resp.tensor(i).tensor(), &t).ok() ||
        t.dtype() != DT_FLOAT || t.NumElements() != 1) {
      Violation("values", absl::StrCat(where, ": fetch ", plan.fetches[i],
                                       " is not a float scalar"));
      continue;
    }
    got = t.flat<float>()(0);
    if (std::memcmp(&got, &want.values[i], sizeof(float)) != 0) {
      Violation("values",
                absl::StrCat(where, ": fetch ", plan.fetches[i], " = ", got,
                             ", reference ", want.values[i]));
    }
  }
}

void DistributedRun::CloseSession(std::shared_ptr<Client> c) {
  CloseSessionRequest req;
  req.set_session_handle(c->handle);
  CallMaster<CloseSessionRequest, CloseSessionResponse>(
      "MasterService/CloseSession", req, StepBound(0),
      [this, c](const absl::Status& s, CloseSessionResponse*) {
        sim_.loop.Trace(SIM_SESSION, absl::StrCat("client", c->id),
                        {{"event", "close"},
                         {"status", absl::StatusCodeToString(s.code())}});
        // A repeated close (the first one's answer was lost), or a close
        // after the master restarted, finds no session: that is fine.
        if (s.ok() || SessionNotFound(s)) {
          ClientDone();
          return;
        }
        Retry(
            c, "CloseSession", s, [this, c] { CloseSession(c); },
            [this] { ClientDone(); });
      });
}

void DistributedRun::ClientDone() {
  if (--clients_left_ == 0) all_done_.Notify();
}

size_t DistributedRun::LiveWorkerSteps() const {
  size_t n = 0;
  for (int i = 0; i < cluster_->num_workers(); ++i) {
    if (Worker* w = cluster_->worker(i)) n += w->NumSteps();
  }
  return n;
}

void DistributedRun::Probe() {
  auto session = cluster_->NewSession(config_);
  absl::Status s = session->Create(graph_);
  const size_t steps_before = LiveWorkerSteps();
  StepPlan plan = DrawStep();
  Session::FeedList feeds;
  for (const auto& [name, value] : plan.feeds) {
    feeds.push_back({name, Tensor::Scalar<float>(value)});
  }
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run(feeds, plan.fetches, {}, &out);
  sim_.loop.Trace(SIM_NOTE, "probe",
                  {{"event", "healed_step"},
                   {"status", absl::StatusCodeToString(s.code())}});
  if (!s.ok()) {
    Violation("liveness", absl::StrCat("a new session's step on the healed "
                                       "cluster failed: ",
                                       s.ToString()));
  } else {
    RunStepResponse resp;
    for (const Tensor& t : out)
      TensorToProto(t, resp.add_tensor()->mutable_tensor());
    CheckStep(Client(), -1, plan, resp);
    // On the healed cluster the step's CleanupGraphs arrive: its state
    // must not outlive it while the session stays open (a worker drops a
    // session's leftover steps with the session, so the leak check after
    // the close alone would not see a missing cleanup).
    sim_.loop.RunFor(options_.operation_timeout_ms * 1000000);
    if (LiveWorkerSteps() > steps_before) {
      Violation("leaks",
                absl::StrCat("the healed cluster's step left ",
                             LiveWorkerSteps() - steps_before,
                             " step states on the workers after it finished "
                             "(no CleanupGraph)"));
    }
  }
  absl::Status closed = session->Close();
  if (!closed.ok()) {
    Violation("liveness", absl::StrCat("closing the probe session failed: ",
                                       closed.ToString()));
  }
}

void DistributedRun::CheckLeaks() {
  if (cluster_->master()->NumSessions() != 0) {
    Violation("leaks",
              absl::StrCat("the master still has ",
                           cluster_->master()->NumSessions(), " sessions"));
  }
  for (int i = 0; i < cluster_->num_workers(); ++i) {
    Worker* w = cluster_->worker(i);
    if (w == nullptr) continue;
    if (w->NumSessions() != 0 || w->NumRegisteredGraphs() != 0 ||
        w->NumSteps() != 0) {
      Violation("leaks",
                absl::StrCat(w->task(), " still has ", w->NumSessions(),
                             " sessions, ", w->NumRegisteredGraphs(),
                             " graphs and ", w->NumSteps(), " steps"));
    }
    CheckDeviceMemory(w);
  }
  if (cluster_->network()->NumPendingCalls() != 0) {
    Violation("leaks", absl::StrCat(cluster_->network()->NumPendingCalls(),
                                    " network calls never completed"));
  }
  for (const std::string& stale : cluster_->stale_recvs()) {
    Violation("stale_recv", stale);
  }
}

void DistributedRun::CheckDeviceMemory(Worker* w) {
  for (Device* d : w->device_mgr()->ListDevices()) {
    std::optional<AllocatorStats> stats = d->GetAllocator()->GetStats();
    if (stats.has_value() && stats->bytes_in_use != 0) {
      Violation("leaks",
                absl::StrCat(d->name(), " still holds ", stats->bytes_in_use,
                             " bytes in ", stats->num_allocs, " allocations"));
    }
  }
}

absl::Status DistributedRun::Run() {
  TraceRecorder own;
  TraceRecorder* recorder =
      options_.recorder != nullptr ? options_.recorder : &own;
  sim_.loop.set_recorder(recorder);
  bool failed = false;
  sim_.loop.set_failure_handler([this, &failed](const SimFailure& f) {
    failed = true;
    Violation("liveness",
              absl::StrCat("simulator: ", SimFailureKindName(f.kind), ": ",
                           f.message));
    // Let the world unwind (clients keep retrying into a healed cluster).
    sim_.loop.AllowTeardown(1000000, int64_t{600} * 1000 * kMilli);
  });
  absl::Status s = BuildCluster();
  if (!s.ok()) return s;
  BuildGraph();

  const int clients = static_cast<int>(
      Between(workload_, std::max(1, options_.min_clients),
              std::max(options_.min_clients, options_.max_clients)));
  result_->clients = clients;
  clients_left_ = clients;
  ScheduleChaos();
  for (int i = 0; i < clients; ++i) {
    auto c = std::make_shared<Client>();
    c->id = i;
    const int64_t at = Between(workload_, 0, 100 * kMilli);
    sim_.loop.ScheduleAfterLabeled(at, "client start",
                                   [this, c] { CreateSession(c); });
  }
  if (sim_.loop.RunUntilNotified(&all_done_, "clients") && !failed) {
    // The heal may still be ahead (short runs): reach it, then probe.
    if (!faults_->healed())
      sim_.loop.RunFor(options_.chaos_nanos - sim_.loop.NowNanos() + 1);
    Probe();
  }
  sim_.loop.RunUntilIdle();
  if (!failed) CheckLeaks();

  result_->faults_applied = faults_->applied();
  result_->restarts = cluster_->restarts();
  result_->rpcs = cluster_->network()->stats().calls;
  result_->virtual_nanos = sim_.loop.NowNanos();
  result_->events_run = sim_.loop.events_run();
  cluster_.reset();
  sim_.loop.set_recorder(nullptr);
  result_->trace_hash = recorder->hash();
  result_->trace_events = recorder->event_count();
  return absl::OkStatus();
}

}  // namespace

absl::Status RunDistributedWorkload(uint64_t seed,
                                    const DistributedWorkloadOptions& options,
                                    DistributedWorkloadResult* result) {
  *result = DistributedWorkloadResult();
  result->seed = seed;
  if (options.steps_per_client < 0 || options.chaos_nanos <= 0 ||
      options.min_step_timeout_ms <= 0 || options.operation_timeout_ms <= 0) {
    return absl::InvalidArgumentError(
        "distributed workload: steps_per_client >= 0, chaos_ns, "
        "min_step_timeout_ms and operation_timeout_ms > 0");
  }
  DistributedRun run(seed, options, result);
  return run.Run();
}

namespace {

struct IntField {
  const char* name;
  int DistributedWorkloadOptions::*field;
};
struct Int64Field {
  const char* name;
  int64_t DistributedWorkloadOptions::*field;
};
struct BoolField {
  const char* name;
  bool DistributedWorkloadOptions::*field;
};

constexpr IntField kIntFields[] = {
    {"min_workers", &DistributedWorkloadOptions::min_workers},
    {"max_workers", &DistributedWorkloadOptions::max_workers},
    {"max_cpus", &DistributedWorkloadOptions::max_cpus},
    {"min_clients", &DistributedWorkloadOptions::min_clients},
    {"max_clients", &DistributedWorkloadOptions::max_clients},
    {"steps_per_client", &DistributedWorkloadOptions::steps_per_client},
    {"min_nodes", &DistributedWorkloadOptions::min_nodes},
    {"max_nodes", &DistributedWorkloadOptions::max_nodes},
    {"faults", &DistributedWorkloadOptions::faults},
    {"partial_run_percent", &DistributedWorkloadOptions::partial_run_percent},
    {"drop_per_mille", &DistributedWorkloadOptions::drop_per_mille},
    {"duplicate_per_mille", &DistributedWorkloadOptions::duplicate_per_mille},
    {"health_check_max_missed",
     &DistributedWorkloadOptions::health_check_max_missed},
    {"alloc_fault_per_mille",
     &DistributedWorkloadOptions::alloc_fault_per_mille},
    {"budget_percent", &DistributedWorkloadOptions::budget_percent},
    {"no_timeout_percent", &DistributedWorkloadOptions::no_timeout_percent},
};
constexpr Int64Field kInt64Fields[] = {
    {"chaos_ns", &DistributedWorkloadOptions::chaos_nanos},
    {"max_clock_skew_ns", &DistributedWorkloadOptions::max_clock_skew_nanos},
    {"min_step_timeout_ms", &DistributedWorkloadOptions::min_step_timeout_ms},
    {"max_step_timeout_ms", &DistributedWorkloadOptions::max_step_timeout_ms},
    {"operation_timeout_ms", &DistributedWorkloadOptions::operation_timeout_ms},
    {"session_gc_ns", &DistributedWorkloadOptions::session_gc_nanos},
    {"health_check_interval_ns",
     &DistributedWorkloadOptions::health_check_interval_nanos},
    {"session_lease_ns", &DistributedWorkloadOptions::session_lease_nanos},
};
constexpr BoolField kBoolFields[] = {
    {"crashes", &DistributedWorkloadOptions::crashes},
    {"partitions", &DistributedWorkloadOptions::partitions},
    {"clogs", &DistributedWorkloadOptions::clogs},
    {"hangs", &DistributedWorkloadOptions::hangs},
    {"master_crashes", &DistributedWorkloadOptions::master_crashes},
};

}  // namespace

TraceFields DistributedWorkloadParams(const DistributedWorkloadOptions& o) {
  TraceFields p;
  for (const IntField& f : kIntFields)
    p.push_back({f.name, absl::StrCat(o.*(f.field))});
  for (const Int64Field& f : kInt64Fields)
    p.push_back({f.name, absl::StrCat(o.*(f.field))});
  for (const BoolField& f : kBoolFields)
    p.push_back({f.name, o.*(f.field) ? "1" : "0"});
  p.push_back({"fifo", o.loop.randomize_ties ? "0" : "1"});
  return p;
}

absl::Status DistributedWorkloadOptionsFromParams(
    const TraceFields& params, DistributedWorkloadOptions* o) {
  for (const auto& [key, value] : params) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(value, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("distributed workload option ", key, ": '", value,
                       "' is not an integer"));
    }
    bool known = false;
    for (const IntField& f : kIntFields) {
      if (key != f.name) continue;
      if (v < 0 || v > (1 << 20)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "distributed workload option ", key, " out of range: ", v));
      }
      o->*(f.field) = static_cast<int>(v);
      known = true;
    }
    for (const Int64Field& f : kInt64Fields) {
      if (key != f.name) continue;
      if (v < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("distributed workload option ", key, " is negative"));
      }
      o->*(f.field) = v;
      known = true;
    }
    for (const BoolField& f : kBoolFields) {
      if (key != f.name) continue;
      o->*(f.field) = v != 0;
      known = true;
    }
    if (key == "fifo") {
      o->loop.randomize_ties = v == 0;
      known = true;
    }
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown distributed workload option '", key, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
