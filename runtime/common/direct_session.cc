#include "runtime/common/direct_session.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/common/executor.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "runtime/common/partition_executors.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {

// One prepared signature: the executors of its partitions and how user
// feeds/fetches map onto them.
struct ExecutorsAndKeys {
  std::vector<PartitionExecutor> items;  // Sorted by device name.
  std::vector<std::string> feeds;        // Canonical, sorted; arg i = feeds[i].
  std::vector<std::string> fetches;      // Canonical, sorted; retval i.
  std::map<std::string, int> feed_index;
  std::map<std::string, int> fetch_index;
  DataTypeVector feed_types;
  DataTypeVector fetch_types;
  // Partial runs only: the client graph (to check fetch computability).
  std::unique_ptr<Graph> client_graph;
};

// Shared by a running step's executors, timer and cancellation callbacks.
// Heap-allocated and reference-counted by those closures, so a late timer
// or callback never touches freed memory.
struct StepState {
  explicit StepState(int num_executors) : pending(num_executors) {}

  absl::Mutex mu;
  int pending ABSL_GUARDED_BY(mu);
  absl::Status status ABSL_GUARDED_BY(mu);
  Notification done;
  std::atomic<bool> deadline_exceeded{false};
  CancellationManager cancellation;
  Rendezvous* rendezvous = nullptr;  // Owned reference.

  ~StepState() {
    if (rendezvous != nullptr) rendezvous->Unref();
  }

  // An executor finished. The first error aborts the rendezvous so the other
  // executors' pending Recvs fail fast; later (derived) errors are dropped so
  // the step reports its root cause.
  void ExecutorDone(const absl::Status& s) {
    bool last = false;
    bool abort = false;
    {
      absl::MutexLock l(&mu);
      if (!s.ok() && status.ok()) {
        status = s;
        abort = true;
      }
      last = --pending == 0;
    }
    if (abort) rendezvous->StartAbort(s);
    if (last) done.Notify();
  }

  absl::Status final_status() {
    absl::MutexLock l(&mu);
    return status;
  }
};

// One Run call shape (feed, fetch and target names as the caller wrote
// them, in the caller's order) resolved against its signature.
struct RunPlan {
  std::shared_ptr<ExecutorsAndKeys> executors;
  std::vector<int> feed_arg;      // inputs[i] is argument feed_arg[i].
  std::vector<int> fetch_retval;  // output_names[j] is retval fetch_retval[j].
};

struct PartialRunState {
  std::string handle;
  std::shared_ptr<ExecutorsAndKeys> executors;
  std::shared_ptr<StepState> step;
  CancellationToken session_token = 0;
  // PRun calls on one handle may overlap, as in TensorFlow: each validates
  // its feeds and fetches against these maps and records what it fed and
  // fetched under `mu`, which is never held across the waits for fetches or
  // the step's end (under the simulator's nested waits another client's
  // PRun may run inside those waits; holding a handle's mutex there would
  // order it before that client's, a false lock cycle).
  absl::Mutex mu;
  std::map<std::string, bool> fed;      // Declared feed -> fed yet.
  std::map<std::string, bool> fetched;  // Declared fetch -> fetched yet.
  bool ended = false;  // The call that completed the run has ended it.

  // Every declared feed fed and every declared fetch fetched.
  bool AllDone() const {
    for (const auto& [name, fed_yet] : fed) {
      if (!fed_yet) return false;
    }
    for (const auto& [name, fetched_yet] : fetched) {
      if (!fetched_yet) return false;
    }
    return true;
  }
};

namespace {

std::string SignatureKey(const std::vector<std::string>& feeds,
                         const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets,
                         bool partial_run) {
  return absl::StrCat(absl::StrJoin(feeds, ","), "->",
                      absl::StrJoin(fetches, ","), "/",
                      absl::StrJoin(targets, ","), partial_run ? "/P" : "/R");
}

// The caller's names, each followed by a NUL and each list by another:
// injective as long as no name is empty or contains a NUL. For such names
// (which pruning rejects anyway) returns false, and nothing is cached.
bool RunPlanKey(const Session::FeedList& inputs,
                const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets, std::string* key) {
  key->clear();
  auto add = [key](const std::string& name) {
    if (name.empty() || name.find('\0') != std::string::npos) return false;
    key->append(name);
    key->push_back('\0');
    return true;
  };
  for (const auto& input : inputs) {
    if (!add(input.first)) return false;
  }
  key->push_back('\0');
  for (const auto& name : fetches) {
    if (!add(name)) return false;
  }
  key->push_back('\0');
  for (const auto& name : targets) {
    if (!add(name)) return false;
  }
  return true;
}

absl::Status ClosedError() {
  return absl::CancelledError("Session has been closed.");
}

// The canonical names of a PRun's feeds; InvalidArgument for a feed not
// declared at setup, fed already (before or in this call), or of the wrong
// dtype.
absl::Status CheckPartialRunFeeds(const PartialRunState& run,
                                  const Session::FeedList& inputs,
                                  std::vector<std::string>* feed_names) {
  const ExecutorsAndKeys& ek = *run.executors;
  for (const auto& [name, t] : inputs) {
    const std::string c = CanonicalTensorName(name);
    auto it = run.fed.find(c);
    if (it == run.fed.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The feed ", c, " was not specified in partial_run_setup."));
    }
    if (it->second ||
        std::count(feed_names->begin(), feed_names->end(), c) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("The feed ", c, " has already been fed."));
    }
    const DataType want = ek.feed_types[ek.feed_index.at(c)];
    if (t.dtype() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Feed for '", name, "' has dtype ", DataTypeString(t.dtype()),
          " but the graph expects ", DataTypeString(want)));
    }
    feed_names->push_back(c);
  }
  return absl::OkStatus();
}

// The canonical names of a PRun's fetches; InvalidArgument for a fetch not
// declared at setup or fetched already (before or in this call).
absl::Status CheckPartialRunFetches(
    const PartialRunState& run, const std::vector<std::string>& output_names,
    std::vector<std::string>* fetch_names) {
  for (const auto& name : output_names) {
    const std::string c = CanonicalTensorName(name);
    auto it = run.fetched.find(c);
    if (it == run.fetched.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The fetch ", c, " was not specified in partial_run_setup."));
    }
    if (it->second ||
        std::count(fetch_names->begin(), fetch_names->end(), c) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("The fetch ", c, " has already been fetched."));
    }
    fetch_names->push_back(c);
  }
  return absl::OkStatus();
}

// InvalidArgument unless every fetch can be computed from what has been fed
// (before or now): no feed node still unfed among its ancestors.
absl::Status CheckFetchesComputable(
    const PartialRunState& run, const std::vector<std::string>& feed_names,
    const std::vector<std::string>& fetch_names) {
  const Graph& graph = *run.executors->client_graph;
  std::map<std::string, bool> available = run.fed;
  for (const auto& c : feed_names) available[c] = true;
  std::map<std::string, std::string> recv_to_feed;  // Feed node -> feed.
  for (const auto& [feed, fed] : available) {
    TensorId id = ParseTensorName(feed);
    recv_to_feed[absl::StrCat("_recv_", id.node, "_", id.index)] = feed;
  }
  for (const auto& c : fetch_names) {
    TensorId id = ParseTensorName(c);
    const Node* start =
        graph.FindNodeByName(absl::StrCat("_send_", id.node, "_", id.index));
    if (start == nullptr) continue;
    std::vector<const Node*> stack = {start};
    std::vector<bool> seen(graph.num_node_ids(), false);
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (seen[n->id()]) continue;
      seen[n->id()] = true;
      auto f = recv_to_feed.find(n->name());
      if (f != recv_to_feed.end() && !available[f->second]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Fetch ", c,
            " can't be computed from the feeds that have been fed so far."));
      }
      for (const Edge* e : n->in_edges()) stack.push_back(e->src());
    }
  }
  return absl::OkStatus();
}

// The values of one PRun's fetches as they arrive; `done` once all have.
struct PartialRunFetches {
  explicit PartialRunFetches(size_t n) : values(n), pending(n) {}

  void Received(size_t i, const std::string& name, const absl::Status& s,
                const Tensor& v, bool is_dead) {
    absl::MutexLock l(&mu);
    if (!s.ok() && status.ok()) status = s;
    if (s.ok() && is_dead && status.ok()) {
      status = absl::InvalidArgumentError(
          absl::StrCat("The tensor returned for ", name, " was not valid."));
    }
    values[i] = v;
    if (--pending == 0) done.Notify();
  }

  absl::Mutex mu;
  std::vector<Tensor> values;
  absl::Status status;
  size_t pending;
  Notification done;
};

// Key of a client-terminated feed/fetch in the partial-run rendezvous.
absl::Status ClientKey(const DeviceAttributes& client,
                       const std::string& tensor_name,
                       Rendezvous::ParsedKey* key) {
  return Rendezvous::ParseKey(
      Rendezvous::CreateKey(client.name(), client.incarnation(), client.name(),
                            tensor_name, FrameAndIter()),
      key);
}

}  // namespace

DirectSession::DirectSession(const SessionOptions& options,
                             std::unique_ptr<DeviceMgr> device_mgr)
    : options_(options),
      env_(options.env),
      device_mgr_(std::move(device_mgr)),
      // Step ids start at a seeded random base so steps of different
      // sessions sharing one Env do not collide; positive, with room to grow.
      next_step_id_(static_cast<int64_t>(env_->random->New64() >> 16) + 1) {}

DirectSession::~DirectSession() {
  Close().IgnoreError();
  // Wait for partial runs' executors, which reference this session's devices.
  std::map<std::string, std::shared_ptr<PartialRunState>> runs;
  {
    absl::MutexLock l(&partial_runs_mu_);
    runs.swap(partial_runs_);
  }
  for (auto& [handle, run] : runs) {
    env_->scheduler->WaitFor(&run->step->done);
    session_cancellation_.DeregisterCallback(run->session_token);
  }
}

absl::Status DirectSession::CheckNotClosed() const {
  if (closed_.load()) return ClosedError();
  return absl::OkStatus();
}

absl::Status DirectSession::CheckHasGraph() const {
  absl::MutexLock l(&graph_mu_);
  if (execution_state_ == nullptr) {
    return absl::InvalidArgumentError(
        "Session was not created with a graph before Run()!");
  }
  return absl::OkStatus();
}

int64_t DirectSession::NewStepId() { return next_step_id_.fetch_add(1); }

Rendezvous* DirectSession::NewStepRendezvous(int64_t step_id) {
  if (options_.rendezvous_factory) {
    Rendezvous* r = options_.rendezvous_factory(step_id);
    if (r != nullptr) return r;
  }
  return new IntraProcessRendezvous();
}

std::shared_ptr<StepState> DirectSession::NewStep(int64_t step_id,
                                                  const ExecutorsAndKeys& ek) {
  auto step = std::make_shared<StepState>(static_cast<int>(ek.items.size()));
  step->rendezvous = NewStepRendezvous(step_id);
  return step;
}

int64_t DirectSession::StepTimeoutMs(const RunOptions& run_options) const {
  if (run_options.timeout_in_ms() > 0) return run_options.timeout_in_ms();
  return options_.config.operation_timeout_in_ms() > 0
             ? options_.config.operation_timeout_in_ms()
             : 0;
}

absl::Status DirectSession::Create(const GraphDef& graph) {
  return Create(GraphDef(graph));
}

absl::Status DirectSession::Create(GraphDef&& graph) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  if (graph.node_size() == 0) return absl::OkStatus();
  absl::MutexLock l(&graph_mu_);
  if (execution_state_ != nullptr) {
    return absl::AlreadyExistsError(
        "A Graph has already been created for this session.");
  }
  return ExtendLocked(std::move(graph));
}

absl::Status DirectSession::Extend(const GraphDef& graph) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  absl::MutexLock l(&graph_mu_);
  return ExtendLocked(graph);
}

absl::Status DirectSession::ExtendLocked(GraphDef graph) {
  if (execution_state_ == nullptr) {
    if (graph.node_size() == 0) return absl::OkStatus();
    GraphExecutionState::Options opts;
    for (const Device* d : device_mgr_->ListDevices()) {
      opts.devices.push_back(d->attributes());
    }
    opts.client_device = device_mgr_->ClientDevice()->attributes();
    opts.allow_soft_placement = options_.config.allow_soft_placement();
    opts.log_device_placement = options_.config.log_device_placement();
    opts.log_sink = [](const std::string& line) {
      absl::FPrintF(stderr, "%s\n", line);
    };
    opts.heap_releaser = env_->heap_releaser;
    const RewriterConfig& rewrites =
        options_.config.graph_options().rewrite_options();
    opts.fuse_conv_epilogues = !rewrites.disable_meta_optimizer() &&
                               rewrites.remapping() != RewriterConfig::OFF;
    const int64_t num_nodes = graph.node_size();
    std::unique_ptr<GraphExecutionState> state;
    SF_RETURN_IF_ERROR(
        GraphExecutionState::Create(opts, std::move(graph), &state));
    execution_state_ = std::move(state);
    // Create's validating import is freed: only the serialized graph stays.
    ReleaseFreeHeapAfterGraph(env_->heap_releaser, num_nodes);
    return absl::OkStatus();
  }
  std::unique_ptr<GraphExecutionState> next;
  SF_RETURN_IF_ERROR(execution_state_->Extend(graph, &next));
  execution_state_ = std::move(next);
  // Cached executors stay valid: Extend only adds nodes, and a cached
  // signature's pruned graph cannot reach nodes that did not exist.
  return absl::OkStatus();
}

absl::Status DirectSession::GetOrCreateExecutors(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, bool partial_run,
    std::shared_ptr<ExecutorsAndKeys>* out) {
  const std::string key = SignatureKey(feeds, fetches, targets, partial_run);
  {
    absl::MutexLock l(&executors_mu_);
    auto it = executors_.find(key);
    if (it != executors_.end()) {
      *out = it->second;
      return absl::OkStatus();
    }
  }
  BuildGraphOptions opts;
  opts.feeds = feeds;
  opts.fetches = fetches;
  opts.targets = targets;
  opts.use_function_convention = !partial_run;
  std::shared_ptr<ExecutorsAndKeys> ek;
  SF_RETURN_IF_ERROR(BuildExecutors(opts, &ek));
  absl::MutexLock l(&executors_mu_);
  // Another thread may have built the same signature concurrently; keep the
  // first so every Run of a signature shares executors.
  auto [it, inserted] = executors_.emplace(key, ek);
  *out = it->second;
  return absl::OkStatus();
}

absl::Status DirectSession::GetOrCreateRunPlan(
    const FeedList& inputs, const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names,
    std::shared_ptr<const RunPlan>* plan) {
  std::string key;
  const bool cacheable = RunPlanKey(inputs, output_names, target_names, &key);
  if (cacheable) {
    absl::MutexLock l(&executors_mu_);
    auto it = run_plans_.find(key);
    if (it != run_plans_.end()) {
      *plan = it->second;
      return absl::OkStatus();
    }
  }
  // Canonical names. Feeds keep duplicates so pruning reports them; fetches
  // and targets are de-duplicated (a repeated fetch gets the value twice).
  std::vector<std::string> feeds;
  feeds.reserve(inputs.size());
  for (const auto& [name, t] : inputs)
    feeds.push_back(CanonicalTensorName(name));
  std::vector<std::string> fetch_names;
  fetch_names.reserve(output_names.size());
  for (const auto& name : output_names) {
    fetch_names.push_back(CanonicalTensorName(name));
  }
  std::vector<std::string> sorted_feeds = feeds;
  std::sort(sorted_feeds.begin(), sorted_feeds.end());
  auto built = std::make_shared<RunPlan>();
  SF_RETURN_IF_ERROR(GetOrCreateExecutors(
      sorted_feeds, SortedUnique(fetch_names), SortedUnique(target_names),
      /*partial_run=*/false, &built->executors));
  for (const std::string& feed : feeds) {
    built->feed_arg.push_back(built->executors->feed_index.at(feed));
  }
  for (const std::string& fetch : fetch_names) {
    built->fetch_retval.push_back(built->executors->fetch_index.at(fetch));
  }
  if (!cacheable) {
    *plan = std::move(built);
    return absl::OkStatus();
  }
  absl::MutexLock l(&executors_mu_);
  *plan = run_plans_.emplace(std::move(key), std::move(built)).first->second;
  return absl::OkStatus();
}

absl::Status DirectSession::BuildExecutors(
    const BuildGraphOptions& opts, std::shared_ptr<ExecutorsAndKeys>* out) {
  std::shared_ptr<GraphExecutionState> state;
  {
    absl::MutexLock l(&graph_mu_);
    state = execution_state_;
  }
  if (state == nullptr) {
    return absl::InvalidArgumentError(
        "Session was not created with a graph before Run()!");
  }
  std::unique_ptr<ClientGraph> client;
  SF_RETURN_IF_ERROR(state->BuildGraph(opts, &client));
  num_executor_builds_.fetch_add(1);

  auto ek = std::make_shared<ExecutorsAndKeys>();
  ek->feeds = opts.feeds;
  ek->fetches = opts.fetches;
  ek->feed_types = client->feed_types;
  ek->fetch_types = client->fetch_types;
  for (size_t i = 0; i < opts.feeds.size(); ++i)
    ek->feed_index[opts.feeds[i]] = i;
  for (size_t i = 0; i < opts.fetches.size(); ++i) {
    ek->fetch_index[opts.fetches[i]] = i;
  }
  if (!opts.use_function_convention) {
    // Keep a copy of the client graph for PRun's computability checks.
    GraphDef def;
    client->graph->ToGraphDef(&def);
    ek->client_graph = std::make_unique<Graph>();
    GraphConstructorOptions gopts;
    gopts.allow_internal_ops = true;
    gopts.infer_shapes = false;  // A copy of a graph already checked.
    SF_RETURN_IF_ERROR(
        ConvertGraphDefToGraph(gopts, def, ek->client_graph.get()));
  }

  PartitionExecutorsOptions popts;
  popts.env = env_;
  popts.device_mgr = device_mgr_.get();
  popts.op_segment = &op_segment_;
  popts.function_runtimes = &function_runtimes_;
  const int64_t num_nodes = client->graph->num_nodes();
  SF_RETURN_IF_ERROR(
      BuildPartitionExecutors(popts, std::move(client->graph), &ek->items));
  // What the build staged (kernel lookups, edge tables) is freed.
  ReleaseFreeHeapAfterGraph(env_->heap_releaser, num_nodes);
  *out = std::move(ek);
  return absl::OkStatus();
}

absl::Status DirectSession::Run(const RunOptions& run_options,
                                const FeedList& inputs,
                                const std::vector<std::string>& output_names,
                                const std::vector<std::string>& target_names,
                                std::vector<Tensor>* outputs,
                                RunMetadata* run_metadata) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  SF_RETURN_IF_ERROR(CheckHasGraph());
  std::shared_ptr<const RunPlan> plan;
  SF_RETURN_IF_ERROR(
      GetOrCreateRunPlan(inputs, output_names, target_names, &plan));
  const ExecutorsAndKeys& ek = *plan->executors;
  FunctionCallFrame call_frame(ek.feed_types, ek.fetch_types);
  SF_RETURN_IF_ERROR(SetRunArgs(*plan, inputs, &call_frame));

  const int64_t step_id = NewStepId();
  std::shared_ptr<StepState> step = NewStep(step_id, ek);
  StepCancellation cancellation;
  SF_RETURN_IF_ERROR(RegisterStepCancellation(step, StepTimeoutMs(run_options),
                                              &cancellation));
  std::unique_ptr<StepStatsCollector> stats;
  if (run_options.trace_level() > RunOptions::NO_TRACE) {
    stats = std::make_unique<StepStatsCollector>();
  }
  RunExecutorsAndWait(ek, step_id, step, &call_frame, stats.get());
  DeregisterStepCancellation(cancellation);
  SF_RETURN_IF_ERROR(RunStatus(*step, step_id, cancellation.timeout_ms));

  std::vector<Tensor> retvals;
  SF_RETURN_IF_ERROR(call_frame.ConsumeRetvals(&retvals));
  outputs->clear();
  outputs->reserve(plan->fetch_retval.size());
  for (const int index : plan->fetch_retval) outputs->push_back(retvals[index]);
  if (run_metadata != nullptr) {
    if (stats != nullptr) stats->Finalize(run_metadata->mutable_step_stats());
    if (run_options.output_partition_graphs()) {
      for (const PartitionExecutor& item : ek.items) {
        item.graph->ToGraphDef(run_metadata->add_partition_graphs());
      }
    }
  }
  return absl::OkStatus();
}

absl::Status DirectSession::SetRunArgs(const RunPlan& plan,
                                       const FeedList& inputs,
                                       FunctionCallFrame* call_frame) {
  const ExecutorsAndKeys& ek = *plan.executors;
  std::vector<Tensor> args(ek.feeds.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int index = plan.feed_arg[i];
    const Tensor& t = inputs[i].second;
    if (t.dtype() != ek.feed_types[index]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Feed for '", inputs[i].first, "' has dtype ",
                       DataTypeString(t.dtype()), " but the graph expects ",
                       DataTypeString(ek.feed_types[index])));
    }
    args[index] = t;
  }
  return call_frame->SetArgs(std::move(args));
}

absl::Status DirectSession::RegisterStepCancellation(
    const std::shared_ptr<StepState>& step, int64_t timeout_ms,
    StepCancellation* cancellation) {
  // The step is cancelled when the session closes...
  cancellation->token = session_cancellation_.get_cancellation_token();
  if (!session_cancellation_.RegisterCallback(
          cancellation->token, [step] { step->cancellation.StartCancel(); })) {
    return ClosedError();
  }
  // ... or when its deadline passes.
  cancellation->timeout_ms = timeout_ms;
  if (timeout_ms > 0) {
    cancellation->timer =
        env_->scheduler->ScheduleAfter(timeout_ms * 1000000, [step] {
          step->deadline_exceeded.store(true);
          step->cancellation.StartCancel();
        });
  }
  return absl::OkStatus();
}

void DirectSession::DeregisterStepCancellation(
    const StepCancellation& cancellation) {
  if (cancellation.timer != 0) env_->scheduler->CancelTimer(cancellation.timer);
  session_cancellation_.DeregisterCallback(cancellation.token);
}

void DirectSession::RunExecutorsAndWait(const ExecutorsAndKeys& ek,
                                        int64_t step_id,
                                        const std::shared_ptr<StepState>& step,
                                        FunctionCallFrame* call_frame,
                                        StepStatsCollector* stats) {
  ScopedStepContainer step_container(step_id, [this](const std::string& c) {
    for (Device* d : device_mgr_->ListDevices()) {
      d->resource_manager()->Cleanup(c).IgnoreError();
    }
  });
  Executor::Args exec_args;
  exec_args.step_id = step_id;
  exec_args.rendezvous = step->rendezvous;
  exec_args.call_frame = call_frame;
  exec_args.cancellation_manager = &step->cancellation;
  exec_args.stats_collector = stats;
  exec_args.step_container = &step_container;
  // Every partition but the last starts through the scheduler; the last
  // runs on this thread, so a one-device step of cheap kernels (the
  // common case) needs no thread hand-off and no wake-up.
  for (size_t i = 0; i + 1 < ek.items.size(); ++i) {
    ek.items[i].executor->RunAsync(
        exec_args, [step](const absl::Status& s) { step->ExecutorDone(s); });
  }
  if (!ek.items.empty()) {
    step->ExecutorDone(ek.items.back().executor->Run(exec_args));
  }
  env_->scheduler->WaitFor(&step->done);
}

absl::Status DirectSession::RunStatus(StepState& step, int64_t step_id,
                                      int64_t timeout_ms) const {
  absl::Status status = step.final_status();
  if (status.ok()) return status;
  if (step.deadline_exceeded.load()) {
    return absl::DeadlineExceededError(
        absl::StrCat("Step ", step_id, " exceeded its deadline of ", timeout_ms,
                     " ms and was cancelled"));
  }
  if (absl::IsCancelled(status) && closed_.load()) return ClosedError();
  return status;
}

absl::Status DirectSession::PRunSetup(
    const std::vector<std::string>& input_names,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names, std::string* handle) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  std::vector<std::string> feeds;
  for (const auto& n : input_names) feeds.push_back(CanonicalTensorName(n));
  std::sort(feeds.begin(), feeds.end());
  std::vector<std::string> fetches;
  for (const auto& n : output_names) fetches.push_back(CanonicalTensorName(n));
  fetches = SortedUnique(fetches);
  std::shared_ptr<ExecutorsAndKeys> ek;
  SF_RETURN_IF_ERROR(GetOrCreateExecutors(
      feeds, fetches, SortedUnique(target_names), /*partial_run=*/true, &ek));

  auto run = std::make_shared<PartialRunState>();
  run->executors = ek;
  for (const auto& f : ek->feeds) run->fed[f] = false;
  for (const auto& f : ek->fetches) run->fetched[f] = false;
  const int64_t step_id = NewStepId();
  run->step = NewStep(step_id, *ek);
  std::shared_ptr<StepState> step = run->step;
  run->session_token = session_cancellation_.get_cancellation_token();
  if (!session_cancellation_.RegisterCallback(run->session_token, [step] {
        step->cancellation.StartCancel();
        step->rendezvous->StartAbort(ClosedError());
      })) {
    return ClosedError();
  }

  Executor::Args exec_args;
  exec_args.step_id = step_id;
  exec_args.rendezvous = step->rendezvous;
  exec_args.cancellation_manager = &step->cancellation;
  for (auto& item : ek->items) {
    item.executor->RunAsync(
        exec_args, [step](const absl::Status& s) { step->ExecutorDone(s); });
  }
  *handle =
      absl::StrCat(step_id, ";", ek->feeds.size(), ";", ek->fetches.size());
  run->handle = *handle;
  absl::MutexLock l(&partial_runs_mu_);
  partial_runs_[*handle] = std::move(run);
  return absl::OkStatus();
}

size_t DirectSession::num_partial_runs() const {
  absl::MutexLock l(&partial_runs_mu_);
  return partial_runs_.size();
}

absl::Status DirectSession::PRun(const std::string& handle,
                                 const FeedList& inputs,
                                 const std::vector<std::string>& output_names,
                                 std::vector<Tensor>* outputs) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  std::shared_ptr<PartialRunState> run;
  SF_RETURN_IF_ERROR(FindPartialRun(handle, &run));
  // Validate the whole request before sending anything.
  std::vector<std::string> feed_names;
  std::vector<std::string> fetch_names;
  absl::Status s;
  {
    absl::MutexLock l(&run->mu);
    s = CheckPartialRunFeeds(*run, inputs, &feed_names);
    if (s.ok()) s = CheckPartialRunFetches(*run, output_names, &fetch_names);
    if (s.ok()) s = CheckFetchesComputable(*run, feed_names, fetch_names);
  }
  if (!s.ok()) return EndPartialRun(run.get(), s);

  SF_RETURN_IF_ERROR(SendPartialRunFeeds(run.get(), inputs, feed_names));
  SF_RETURN_IF_ERROR(RecvPartialRunFetches(run.get(), fetch_names, outputs));
  {
    absl::MutexLock l(&run->mu);
    for (const auto& c : fetch_names) run->fetched[c] = true;
    if (run->ended || !run->AllDone()) return absl::OkStatus();
    run->ended = true;
  }
  EndPartialRun(run.get(), absl::OkStatus()).IgnoreError();
  return run->step->final_status();
}

absl::Status DirectSession::FindPartialRun(
    const std::string& handle, std::shared_ptr<PartialRunState>* run) const {
  absl::MutexLock l(&partial_runs_mu_);
  auto it = partial_runs_.find(handle);
  if (it == partial_runs_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must run 'setup' before performing partial runs! Unknown partial "
        "run handle '",
        handle, "'."));
  }
  *run = it->second;
  return absl::OkStatus();
}

absl::Status DirectSession::EndPartialRun(PartialRunState* run,
                                          const absl::Status& status) {
  if (!status.ok()) run->step->rendezvous->StartAbort(status);
  env_->scheduler->WaitFor(&run->step->done);
  session_cancellation_.DeregisterCallback(run->session_token);
  absl::MutexLock l(&partial_runs_mu_);
  partial_runs_.erase(run->handle);
  return status;
}

absl::Status DirectSession::SendPartialRunFeeds(
    PartialRunState* run, const FeedList& inputs,
    const std::vector<std::string>& feed_names) {
  const DeviceAttributes& client = device_mgr_->ClientDevice()->attributes();
  for (size_t i = 0; i < inputs.size(); ++i) {
    Rendezvous::ParsedKey key;
    SF_RETURN_IF_ERROR(ClientKey(client, feed_names[i], &key));
    absl::Status s = run->step->rendezvous->Send(
        key, Rendezvous::Args(), inputs[i].second, /*is_dead=*/false);
    if (!s.ok()) return EndPartialRun(run, s);
    absl::MutexLock l(&run->mu);
    run->fed[feed_names[i]] = true;
  }
  return absl::OkStatus();
}

absl::Status DirectSession::RecvPartialRunFetches(
    PartialRunState* run, const std::vector<std::string>& fetch_names,
    std::vector<Tensor>* outputs) {
  const DeviceAttributes& client = device_mgr_->ClientDevice()->attributes();
  auto f = std::make_shared<PartialRunFetches>(fetch_names.size());
  for (size_t i = 0; i < fetch_names.size(); ++i) {
    Rendezvous::ParsedKey key;
    SF_RETURN_IF_ERROR(ClientKey(client, fetch_names[i], &key));
    run->step->rendezvous->RecvAsync(
        key, Rendezvous::Args(),
        [f, i, name = fetch_names[i]](
            const absl::Status& s, const Rendezvous::Args&,
            const Rendezvous::Args&, const Tensor& v,
            bool is_dead) { f->Received(i, name, s, v, is_dead); });
  }
  if (!fetch_names.empty()) env_->scheduler->WaitFor(&f->done);
  absl::Status status;
  {
    absl::MutexLock l(&f->mu);
    status = f->status;
    if (status.ok()) *outputs = std::move(f->values);
  }
  if (status.ok()) return status;
  // The step's own error explains a failed fetch best.
  absl::Status root = run->step->final_status();
  return EndPartialRun(run, root.ok() ? status : root);
}

absl::Status DirectSession::ListDevices(
    std::vector<DeviceAttributes>* devices) {
  devices->clear();
  for (const Device* d : device_mgr_->ListDevices()) {
    devices->push_back(d->attributes());
  }
  return absl::OkStatus();
}

absl::Status DirectSession::Close() {
  if (closed_.exchange(true)) return absl::OkStatus();
  session_cancellation_.StartCancel();
  return absl::OkStatus();
}

absl::Status DirectSession::Reset(const std::vector<std::string>& containers) {
  SF_RETURN_IF_ERROR(CheckNotClosed());
  for (Device* d : device_mgr_->ListDevices()) {
    ResourceMgr* rm = d->resource_manager();
    if (containers.empty()) {
      SF_RETURN_IF_ERROR(rm->Cleanup(rm->default_container()));
    }
    for (const auto& c : containers) SF_RETURN_IF_ERROR(rm->Cleanup(c));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
