#include "runtime/distributed/master_session.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/call_util.h"
#include "runtime/distributed/master_session_internal.h"
#include "runtime/distributed/status_group.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/planted_bug.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/graph/partition.h"

namespace stepflow {

namespace {

using master_session_internal::ClosedError;
using master_session_internal::OperationTimeoutNanos;

// How long past a step's deadline the master waits for the workers'
// answers (well inside the client's grace, kMasterCallGraceMs).
constexpr int64_t kAnswerMarginNanos = 300 * 1000 * 1000;

std::string TaskOf(const std::string& device) {
  DeviceNameUtils::ParsedName p;
  if (!DeviceNameUtils::ParseFullName(device, &p)) return device;
  return DeviceNameUtils::TaskName(p);
}

}  // namespace

void SetWorkerDevices(const GetStatusResponse& status, WorkerInfo* info) {
  info->devices.assign(status.device_attributes().begin(),
                       status.device_attributes().end());
  for (const DeviceAttributes& d : info->devices) {
    info->incarnation = d.incarnation();
  }
  std::sort(info->devices.begin(), info->devices.end(),
            [](const DeviceAttributes& a, const DeviceAttributes& b) {
              return a.name() < b.name();
            });
}

MasterSession::MasterSession(Env* env, std::string handle, ConfigProto config,
                             std::vector<WorkerInfo> workers,
                             MasterIdentity master)
    : env_(env),
      handle_(std::move(handle)),
      config_(std::move(config)),
      master_(std::move(master)),
      view_(MakeView(std::move(workers))) {}

void MasterSession::NameMaster(CreateWorkerSessionRequest* req) const {
  if (master_.incarnation == 0) return;
  req->set_master_task(master_.task);
  req->set_master_incarnation(static_cast<int64_t>(master_.incarnation));
}

bool MasterSession::Unresponsive(const std::string& task) const {
  absl::MutexLock l(&mu_);
  return unresponsive_.count(task) > 0;
}

void MasterSession::SetUnresponsive(const std::string& task,
                                    bool unresponsive) {
  absl::MutexLock l(&mu_);
  if (unresponsive) {
    unresponsive_.insert(task);
  } else {
    unresponsive_.erase(task);
  }
}

MasterSession::~MasterSession() = default;

const WorkerInfo* MasterSession::ClusterView::FindWorker(
    const std::string& task) const {
  for (const WorkerInfo& w : workers) {
    if (w.task == task) return &w;
  }
  return nullptr;
}

std::shared_ptr<const MasterSession::ClusterView> MasterSession::MakeView(
    std::vector<WorkerInfo> workers) {
  auto view = std::make_shared<ClusterView>();
  view->workers = std::move(workers);
  if (!view->workers.empty() && !view->workers[0].devices.empty()) {
    view->client_device = view->workers[0].devices[0];
    for (const DeviceAttributes& d : view->workers[0].devices) {
      DeviceNameUtils::ParsedName p;
      if (DeviceNameUtils::ParseFullName(d.name(), &p) && p.type == "CPU" &&
          p.id == 0) {
        view->client_device = d;
        break;
      }
    }
  }
  return view;
}

std::shared_ptr<const MasterSession::ClusterView> MasterSession::view() const {
  absl::MutexLock l(&mu_);
  return view_;
}

std::vector<WorkerInfo> MasterSession::workers() const {
  return view()->workers;
}

absl::Status MasterSession::NewExecutionState(
    const ClusterView& view, const GraphDef& graph,
    std::unique_ptr<GraphExecutionState>* out) {
  GraphExecutionState::Options opts;
  for (const WorkerInfo& w : view.workers) {
    for (const DeviceAttributes& d : w.devices) opts.devices.push_back(d);
  }
  std::sort(opts.devices.begin(), opts.devices.end(),
            [](const DeviceAttributes& a, const DeviceAttributes& b) {
              return a.name() < b.name();
            });
  opts.client_device = view.client_device;
  opts.allow_soft_placement = config_.allow_soft_placement();
  opts.log_device_placement = config_.log_device_placement();
  opts.log_sink = [](const std::string& line) {
    absl::FPrintF(stderr, "%s\n", line);
  };
  return GraphExecutionState::Create(opts, graph, out);
}

absl::Status MasterSession::Initialize(const GraphDef& graph) {
  if (graph.node_size() == 0) return absl::OkStatus();
  std::unique_ptr<GraphExecutionState> state;
  SF_RETURN_IF_ERROR(NewExecutionState(*view(), graph, &state));
  absl::MutexLock l(&mu_);
  state_ = std::move(state);
  return absl::OkStatus();
}

int64_t MasterSession::graph_version() const {
  absl::MutexLock l(&mu_);
  return graph_version_;
}

int MasterSession::NumRunningSteps() const {
  absl::MutexLock l(&mu_);
  return running_steps_;
}

bool MasterSession::HasCallsInFlight() const {
  absl::MutexLock l(&mu_);
  int idle_partial_runs = 0;
  for (const auto& [handle, pr] : partial_runs_) {
    if (!pr->busy) ++idle_partial_runs;
  }
  return running_steps_ > idle_partial_runs;
}

size_t MasterSession::NumSignatures() const {
  absl::MutexLock l(&mu_);
  return signatures_.size();
}

absl::Status MasterSession::Extend(const ExtendSessionRequest& req,
                                   ExtendSessionResponse* resp) {
  std::shared_ptr<GraphExecutionState> state;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return ClosedError();
    if (req.current_graph_version() != graph_version_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Session ", handle_, " is at graph version ", graph_version_,
          " but the extension was made for version ",
          req.current_graph_version()));
    }
    state = state_;
  }
  if (state == nullptr) {
    SF_RETURN_IF_ERROR(Initialize(req.graph_def()));
  } else {
    std::unique_ptr<GraphExecutionState> next;
    SF_RETURN_IF_ERROR(state->Extend(req.graph_def(), &next));
    absl::MutexLock l(&mu_);
    state_ = std::move(next);
  }
  absl::MutexLock l(&mu_);
  resp->set_new_graph_version(++graph_version_);
  return absl::OkStatus();
}

absl::Status MasterSession::BuildSignature(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::shared_ptr<Signature>* out) {
  std::shared_ptr<GraphExecutionState> state;
  std::shared_ptr<const ClusterView> view;
  {
    absl::MutexLock l(&mu_);
    state = state_;
    view = view_;
  }
  if (state == nullptr) {
    return absl::InvalidArgumentError(
        "Session was not created with a graph before Run()!");
  }
  BuildGraphOptions opts;
  opts.feeds = feeds;
  opts.fetches = fetches;
  opts.targets = targets;
  opts.use_function_convention = false;
  std::unique_ptr<ClientGraph> client;
  SF_RETURN_IF_ERROR(state->BuildGraph(opts, &client));

  auto sig = std::make_shared<Signature>();
  sig->view = view;
  for (size_t i = 0; i < feeds.size(); ++i) {
    sig->feed_types[feeds[i]] = client->feed_types[i];
  }
  PartitionOptions popts;
  popts.node_to_loc = [](const Node* n) {
    return TaskOf(n->assigned_device_name());
  };
  Graph* g = client->graph.get();
  popts.new_name = [this, g](const std::string& prefix) {
    while (true) {
      std::string name = absl::StrCat(prefix, "/_", next_node_id_++);
      if (g->FindNodeByName(name) == nullptr) return name;
    }
  };
  popts.get_incarnation = [view](const std::string& device) -> uint64_t {
    for (const WorkerInfo& w : view->workers) {
      for (const DeviceAttributes& d : w.devices) {
        if (d.name() == device) return d.incarnation();
      }
    }
    return 0;
  };
  popts.take_node_defs = true;  // The client graph is not used again.
  std::map<std::string, GraphDef> partitions;
  SF_RETURN_IF_ERROR(Partition(popts, g, &partitions));
  for (auto& [task, def] : partitions) {
    if (view->FindWorker(task) == nullptr) {
      return absl::InternalError(
          absl::StrCat("Partition for unknown task ", task));
    }
    Signature::Part part;
    part.task = task;
    for (const NodeDef& n : def.node()) {
      if (n.op() != "_Recv" && n.op() != "_Send") continue;
      bool client_terminated = false;
      std::string tensor_name;
      if (!GetNodeAttr(n, "client_terminated", &client_terminated).ok() ||
          !client_terminated ||
          !GetNodeAttr(n, "tensor_name", &tensor_name).ok()) {
        continue;
      }
      (n.op() == "_Recv" ? part.feeds : part.fetches).push_back(tensor_name);
    }
    part.graph_def = std::move(def);
    sig->parts.push_back(std::move(part));
  }
  *out = std::move(sig);
  return absl::OkStatus();
}

void MasterSession::GetOrCreateSignature(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, SignatureCallback done) {
  const std::string key =
      absl::StrCat(absl::StrJoin(feeds, ","), "->", absl::StrJoin(fetches, ","),
                   "/", absl::StrJoin(targets, ","));
  std::shared_ptr<Signature> cached;
  {
    absl::MutexLock l(&mu_);
    auto it = signatures_.find(key);
    if (it != signatures_.end() && it->second->view == view_) {
      cached = it->second;
    }
  }
  if (cached != nullptr) {
    done(absl::OkStatus(), cached);
    return;
  }
  std::shared_ptr<Signature> sig;
  absl::Status s = BuildSignature(feeds, fetches, targets, &sig);
  if (!s.ok()) {
    done(s, nullptr);
    return;
  }
  auto self = shared_from_this();
  auto group =
      StatusGroup::Create(static_cast<int>(sig->parts.size()),
                          [self, key, sig, done](const absl::Status& s) {
                            if (!s.ok()) {
                              done(s, nullptr);
                              return;
                            }
                            std::shared_ptr<Signature> winner;
                            {
                              absl::MutexLock l(&self->mu_);
                              // A concurrent Run may have registered the same
                              // signature; keep the first (the other's graphs
                              // go with the worker session), unless it was
                              // built for workers that have restarted since.
                              auto& slot = self->signatures_[key];
                              if (slot == nullptr || slot->view != self->view_)
                                slot = sig;
                              winner = slot;
                            }
                            done(absl::OkStatus(), winner);
                          });
  for (size_t i = 0; i < sig->parts.size(); ++i) {
    Signature::Part* part = &sig->parts[i];
    const WorkerInfo* w = sig->view->FindWorker(part->task);
    RegisterGraphRequest req;
    req.set_session_handle(handle_);
    *req.mutable_graph_def() = part->graph_def;
    req.set_create_worker_session_called(true);
    *req.mutable_graph_options() = config_.graph_options();
    *req.mutable_config_proto() = config_;
    req.set_worker_incarnation(w->incarnation);
    CallOptions opts;
    opts.cancellation = &cancellation_;
    opts.timeout_nanos = OperationTimeoutNanos(config_);
    CallTask<RegisterGraphRequest, RegisterGraphResponse>(
        env_, part->task, "WorkerService/RegisterGraph", req, opts,
        [group, part, sig](const absl::Status& s, RegisterGraphResponse* r) {
          if (s.ok()) part->graph_handle = r->graph_handle();
          group->Report(s);
        });
  }
}

void MasterSession::RunStep(const RunStepRequest& req, RunStepResponse* resp,
                            DoneCallback done) {
  if (!req.partial_run_handle().empty()) {
    PartialRunStep(req, resp, std::move(done));
    return;
  }
  absl::Status begun = BeginStep("Run");
  if (!begun.ok()) {
    done(begun);
    return;
  }
  auto step = std::make_shared<Step>(shared_from_this());
  step->request = &req;
  step->response = resp;
  step->done = std::move(done);
  step->timeout_ms =
      req.options().timeout_in_ms() > 0
          ? req.options().timeout_in_ms()
          : std::max<int64_t>(0, config_.operation_timeout_in_ms());
  if (step->timeout_ms > 0) {
    step->deadline_nanos =
        env_->clock->NowNanos() + step->timeout_ms * int64_t{1000000};
  }

  std::vector<std::string> feeds;
  for (const NamedTensorProto& f : req.feed()) {
    feeds.push_back(CanonicalTensorName(f.name()));
  }
  std::sort(feeds.begin(), feeds.end());
  std::vector<std::string> fetches;
  for (const std::string& f : req.fetch()) {
    fetches.push_back(CanonicalTensorName(f));
  }
  std::vector<std::string> targets(req.target().begin(), req.target().end());

  auto self = shared_from_this();
  fetches = SortedUnique(std::move(fetches));
  targets = SortedUnique(std::move(targets));
  PrepareSignature(step, feeds, fetches, targets,
                   [self, step](std::shared_ptr<Signature> sig) {
                     step->signature = std::move(sig);
                     self->RunPartitions(step);
                   });
}

absl::Status MasterSession::BeginStep(const char* what) {
  absl::MutexLock l(&mu_);
  if (closed_) return ClosedError();
  if (state_ == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Session was not created with a graph before ", what, "()!"));
  }
  ++running_steps_;
  return absl::OkStatus();
}

void MasterSession::PrepareSignature(
    std::shared_ptr<Step> step, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    std::function<void(std::shared_ptr<Signature>)> then) {
  auto self = shared_from_this();
  RefreshWorkersIfNeeded(
      [self, step, feeds, fetches, targets, then](const absl::Status& s) {
        if (!s.ok()) {
          self->FinishStep(step, s);
          return;
        }
        self->GetOrCreateSignature(
            feeds, fetches, targets,
            [self, step, then](const absl::Status& s,
                               std::shared_ptr<Signature> sig) {
              if (!s.ok()) {
                self->FinishStep(step, s);
                return;
              }
              then(std::move(sig));
            });
      });
}

void MasterSession::PartialRunSetup(const PartialRunSetupRequest& req,
                                    PartialRunSetupResponse* resp,
                                    DoneCallback done) {
  // The partial run counts as a running step until its last call or
  // failure.
  absl::Status begun = BeginStep("PRunSetup");
  if (!begun.ok()) {
    done(begun);
    return;
  }
  auto pr = std::make_shared<PartialRun>();
  std::vector<std::string> feeds, fetches;
  for (const std::string& f : req.feed()) {
    feeds.push_back(CanonicalTensorName(f));
  }
  for (const std::string& f : req.fetch()) {
    fetches.push_back(CanonicalTensorName(f));
  }
  feeds = SortedUnique(std::move(feeds));
  fetches = SortedUnique(std::move(fetches));
  std::vector<std::string> targets =
      SortedUnique({req.target().begin(), req.target().end()});
  pr->pending_feeds.insert(feeds.begin(), feeds.end());
  pr->pending_fetches.insert(fetches.begin(), fetches.end());
  pr->busy = true;

  auto step = std::make_shared<Step>(shared_from_this());
  step->partial = pr;
  step->partial_setup = true;
  step->request = &step->setup_request;
  step->response = &step->setup_response;
  auto self = shared_from_this();
  step->done = [resp, pr, done](const absl::Status& s) {
    if (s.ok()) resp->set_partial_run_handle(pr->handle);
    done(s);
  };
  PrepareSignature(
      step, feeds, fetches, targets,
      [self, step, pr](std::shared_ptr<Signature> sig) {
        step->signature = sig;
        pr->signature = sig;
        pr->step_id =
            static_cast<int64_t>(self->env_->random->NewNonZero64() >> 1);
        pr->handle = absl::StrFormat("%s/partial_%016x", self->handle_,
                                     static_cast<uint64_t>(pr->step_id));
        self->RunPartitions(step);
      });
}

void MasterSession::PartialRunStep(const RunStepRequest& req,
                                   RunStepResponse* resp, DoneCallback done) {
  const std::string& handle = req.partial_run_handle();
  std::shared_ptr<PartialRun> pr;
  absl::Status s;
  bool last = false;
  {
    absl::MutexLock l(&mu_);
    auto it = partial_runs_.find(handle);
    if (closed_) {
      s = ClosedError();
    } else if (it == partial_runs_.end()) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "Partial run '", handle,
          "' is not found: call PRunSetup first (or it already ended)"));
    } else if (it->second->busy) {
      s = absl::FailedPreconditionError(absl::StrCat(
          "Partial run '", handle, "' already has a call in progress"));
    } else {
      pr = it->second;
      for (const NamedTensorProto& f : req.feed()) {
        if (pr->pending_feeds.count(CanonicalTensorName(f.name())) == 0) {
          s = absl::InvalidArgumentError(absl::StrCat(
              "The feed ", f.name(),
              " was not specified in the partial run setup, or has already "
              "been fed."));
          break;
        }
      }
      for (const std::string& f : req.fetch()) {
        if (!s.ok()) break;
        if (pr->pending_fetches.count(CanonicalTensorName(f)) == 0) {
          s = absl::InvalidArgumentError(absl::StrCat(
              "The fetch ", f,
              " was not specified in the partial run setup, or has already "
              "been fetched."));
        }
      }
      if (s.ok()) {
        for (const NamedTensorProto& f : req.feed()) {
          pr->pending_feeds.erase(CanonicalTensorName(f.name()));
        }
        for (const std::string& f : req.fetch()) {
          pr->pending_fetches.erase(CanonicalTensorName(f));
        }
        last = pr->pending_feeds.empty() && pr->pending_fetches.empty();
        pr->busy = true;
      }
    }
  }
  if (!s.ok()) {
    done(s);
    return;
  }
  auto step = std::make_shared<Step>(shared_from_this());
  step->partial = pr;
  step->partial_last = last;
  step->request = &req;
  step->response = resp;
  step->done = std::move(done);
  step->signature = pr->signature;
  RunPartitions(step);
}

void MasterSession::RunPartitions(std::shared_ptr<Step> step) {
  const RunStepRequest& req = *step->request;
  const Signature& sig = *step->signature;
  std::map<std::string, const TensorProto*> feed_values;
  absl::Status feeds_ok = FeedValues(req, sig, &feed_values);
  if (!feeds_ok.ok()) {
    FinishStep(step, feeds_ok);
    return;
  }
  std::set<std::string> fetched;
  for (const std::string& f : req.fetch()) {
    fetched.insert(CanonicalTensorName(f));
  }

  step->step_id = step->partial != nullptr
                      ? step->partial->step_id
                      : static_cast<int64_t>(env_->random->NewNonZero64() >> 1);
  step->results.resize(sig.parts.size());
  auto self = shared_from_this();
  auto group = StatusGroup::Create(
      static_cast<int>(sig.parts.size()),
      [self, step](const absl::Status& s) { self->FinishStep(step, s); });
  if (master_.monitor != nullptr) {
    std::vector<std::string> tasks;
    for (const auto& part : sig.parts) tasks.push_back(part.task);
    std::weak_ptr<Step> weak = step;
    step->watch_id = master_.monitor->Watch(
        std::move(tasks),
        [self, weak](const std::string& task, const absl::Status& s) {
          self->SetUnresponsive(task, true);
          std::shared_ptr<Step> st = weak.lock();
          if (st == nullptr) return;
          {
            absl::MutexLock l(&st->mu);
            st->health_error = s;
          }
          st->cancellation.StartCancel();
        });
  }
  for (size_t i = 0; i < sig.parts.size(); ++i) {
    RunGraphRequest rg = PartRequest(*step, i, feed_values, fetched);
    if (step->partial != nullptr && !step->partial_setup &&
        !step->partial_last && rg.send_size() == 0 && rg.recv_key_size() == 0) {
      group->Report(absl::OkStatus());  // Nothing for this task this time.
      continue;
    }
    CallRunGraph(step, i, std::move(rg), group);
  }
}

absl::Status MasterSession::FeedValues(
    const RunStepRequest& req, const Signature& sig,
    std::map<std::string, const TensorProto*>* values) {
  for (const NamedTensorProto& f : req.feed()) {
    const std::string name = CanonicalTensorName(f.name());
    auto it = sig.feed_types.find(name);
    if (it != sig.feed_types.end() && f.tensor().dtype() != it->second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Feed for '", f.name(), "' has dtype ",
                       DataTypeString(f.tensor().dtype()),
                       " but the graph expects ", DataTypeString(it->second)));
    }
    (*values)[name] = &f.tensor();
  }
  return absl::OkStatus();
}

int64_t MasterSession::StepTimeoutNanos(const Step& step) {
  // Partial runs have no deadline (as in TensorFlow).
  return step.partial != nullptr ? 0 : step.timeout_ms * 1000000;
}

RunGraphRequest MasterSession::PartRequest(
    const Step& step, size_t part_index,
    const std::map<std::string, const TensorProto*>& feed_values,
    const std::set<std::string>& fetched) const {
  const Signature::Part& part = step.signature->parts[part_index];
  const RunStepRequest& req = *step.request;
  const DeviceAttributes& client = step.signature->view->client_device;
  RunGraphRequest rg;
  if (step.partial != nullptr) {
    rg.set_is_partial(true);
    rg.set_is_last_partial_run(step.partial_last);
  }
  rg.set_session_handle(handle_);
  rg.set_create_worker_session_called(true);
  rg.set_graph_handle(part.graph_handle);
  rg.set_step_id(step.step_id);
  rg.mutable_exec_opts()->set_record_timeline(req.options().trace_level() >
                                              RunOptions::NO_TRACE);
  rg.mutable_exec_opts()->set_deadline_nanos(StepTimeoutNanos(step));
  for (const std::string& feed : part.feeds) {
    auto it = feed_values.find(feed);
    if (it == feed_values.end()) continue;
    NamedTensorProto* send = rg.add_send();
    send->set_name(Rendezvous::CreateKey(client.name(), client.incarnation(),
                                         client.name(), feed, FrameAndIter()));
    *send->mutable_tensor() = *it->second;
  }
  for (const std::string& fetch : part.fetches) {
    if (fetched.count(fetch) == 0) continue;  // A later partial run's.
    rg.add_recv_key(Rendezvous::CreateKey(client.name(), client.incarnation(),
                                          client.name(), fetch,
                                          FrameAndIter()));
  }
  return rg;
}

void MasterSession::CallRunGraph(std::shared_ptr<Step> step, size_t part,
                                 RunGraphRequest rg,
                                 std::shared_ptr<StatusGroup> group) {
  const Signature& sig = *step->signature;
  const std::string& task = sig.parts[part].task;
  rg.set_request_id(static_cast<int64_t>(env_->random->NewNonZero64() >> 1));
  rg.set_worker_incarnation(sig.view->FindWorker(task)->incarnation);
  // Errors come back in the body: an answered error (the worker is alive)
  // is then told apart from a call that got no answer.
  rg.set_store_errors_in_response_body(true);
  CallOptions opts;
  // The workers end the step at its deadline and answer; the call waits a
  // little longer, so that only a task that is hung goes unanswered.
  opts.timeout_nanos = StepTimeoutNanos(*step);
  if (opts.timeout_nanos > 0) opts.timeout_nanos += kAnswerMarginNanos;
  opts.cancellation = &step->cancellation;
  auto self = shared_from_this();
  CallTask<RunGraphRequest, RunGraphResponse>(
      env_, task, "WorkerService/RunGraph", rg, opts,
      [self, group, step, part, task](const absl::Status& call_status,
                                      RunGraphResponse* r) {
        absl::Status s = call_status;
        const bool answered = s.ok() || !IsRetriableRpcError(s);
        if (s.ok() && r->status_code() != 0) {
          s = NameTask(
              absl::Status(static_cast<absl::StatusCode>(r->status_code()),
                           r->status_error_message()),
              task);
        }
        if (absl::IsCancelled(call_status)) {
          // Cancelled by the step itself: says nothing about the task.
        } else {
          self->SetUnresponsive(task, !answered);
        }
        if (s.ok()) {
          step->results[part] = std::move(*r);
        } else {
          if (!answered) {
            absl::MutexLock l(&step->mu);
            if (step->unanswered.ok()) step->unanswered = s;
          }
          // A worker that answered DeadlineExceeded hit the step's own
          // deadline, as every other call will: cancelling them now would
          // hide which task never answered.
          if (!(answered && absl::IsDeadlineExceeded(s))) {
            step->cancellation.StartCancel();
          }
          // Perhaps this worker restarted. Noted here, per worker: the
          // step's combined status may carry another task's error instead
          // (StatusGroup lets Aborted give way), and the next step must
          // still check the incarnations first.
          if (absl::IsAborted(s) || IsRetriableRpcError(s)) {
            absl::MutexLock l(&self->mu_);
            self->needs_refresh_ = true;
          }
        }
        group->Report(s);
      });
}

void MasterSession::FinishStep(std::shared_ptr<Step> step,
                               absl::Status status) {
  if (step->watch_id != 0) master_.monitor->Unwatch(step->watch_id);
  if (!status.ok()) {
    absl::MutexLock l(&step->mu);
    if (!step->health_error.ok()) {
      status = step->health_error;  // The task the monitor found hung.
    } else if (!step->unanswered.ok()) {
      status = step->unanswered;  // Over errors other workers answered.
    }
  }
  status = DeadlineError(*step, std::move(status));
  if (step->partial != nullptr && PartialRunGoesOn(*step, status)) {
    Answer(step, status);
    return;
  }
  if (step->step_id == 0 || step->signature == nullptr ||
      PlantedBugActive(PlantedBug::kSkipCleanupGraph)) {
    Answer(step, status);
    StepEnded();
    return;
  }
  // CleanupGraph on every task of the step, whatever happened. A step that
  // succeeded answers once its workers are clean; a failed one answers at
  // once (its error names the task that failed; an unreachable worker must
  // not hold the answer for another operation timeout) and cleans up behind.
  const bool answer_first = !status.ok();
  if (answer_first) Answer(step, status);
  auto self = shared_from_this();
  CleanupStep(*step->signature, step->step_id,
              [self, step, status, answer_first] {
                if (!answer_first) self->Answer(step, status);
                self->StepEnded();
              });
}

bool MasterSession::PartialRunGoesOn(const Step& step,
                                     const absl::Status& status) {
  const bool goes_on = status.ok() && !step.partial_last;
  absl::MutexLock l(&mu_);
  if (goes_on) {
    // The partial run goes on: its state stays on the workers.
    step.partial->busy = false;
    if (step.partial_setup) partial_runs_[step.partial->handle] = step.partial;
  } else {
    partial_runs_.erase(step.partial->handle);
  }
  return goes_on;
}

void MasterSession::Answer(const std::shared_ptr<Step>& step,
                           absl::Status status) {
  const RunStepRequest& req = *step->request;
  RunStepResponse* resp = step->response;
  if (status.ok()) {
    status = FillResponse(*step, resp);
  } else {
    status = StepError(status);
  }
  if (!status.ok()) resp->clear_tensor();
  DoneCallback done = std::move(step->done);
  if (!status.ok() && req.store_errors_in_response_body()) {
    resp->set_status_code(static_cast<int>(status.code()));
    resp->set_status_error_message(std::string(status.message()));
    status = absl::OkStatus();
  }
  done(status);
}

absl::Status MasterSession::DeadlineError(const Step& step,
                                          absl::Status status) {
  // Once the deadline has passed, the workers' Cancelled or Aborted answers
  // (whichever task noticed first cancels the others) are its consequence.
  if (step.partial != nullptr || step.deadline_nanos == 0 ||
      !(absl::IsCancelled(status) || absl::IsAborted(status)) ||
      env_->clock->NowNanos() < step.deadline_nanos) {
    return status;
  }
  {
    absl::MutexLock l(&mu_);
    if (closed_) return status;
  }
  return absl::DeadlineExceededError(
      absl::StrCat("Step exceeded its deadline of ", step.timeout_ms,
                   " ms and was cancelled (", status.message(), ")"));
}

absl::Status MasterSession::StepError(absl::Status status) {
  absl::MutexLock l(&mu_);
  if (absl::IsCancelled(status) && closed_) status = ClosedError();
  if (absl::IsAborted(status) || IsRetriableRpcError(status)) {
    // Perhaps a worker restarted: check before the next step.
    needs_refresh_ = true;
  }
  return status;
}

absl::Status MasterSession::FillResponse(const Step& step,
                                         RunStepResponse* resp) {
  // Fetched values by key, then in the request's order.
  std::map<std::string, const TensorProto*> by_name;
  for (const RunGraphResponse& r : step.results) {
    for (const NamedTensorProto& t : r.recv()) {
      Rendezvous::ParsedKey key;
      if (Rendezvous::ParseKey(t.name(), &key).ok()) {
        by_name[key.edge_name] = &t.tensor();
      }
    }
  }
  const RunStepRequest& req = *step.request;
  for (const std::string& f : req.fetch()) {
    const std::string name = CanonicalTensorName(f);
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return absl::InternalError(
          absl::StrCat("No value came back for fetch ", name));
    }
    NamedTensorProto* out = resp->add_tensor();
    out->set_name(f);
    *out->mutable_tensor() = *it->second;
  }
  // (resp->mutable_metadata() only where there is something to add: an
  // empty metadata message would still go on the wire.)
  for (const RunGraphResponse& r : step.results) {
    for (const auto& d : r.step_stats().dev_stats()) {
      *resp->mutable_metadata()->mutable_step_stats()->add_dev_stats() = d;
    }
  }
  if (req.options().output_partition_graphs() && step.signature) {
    for (const auto& part : step.signature->parts) {
      *resp->mutable_metadata()->add_partition_graphs() = part.graph_def;
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
