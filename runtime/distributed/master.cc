#include "runtime/distributed/master.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/call_util.h"
#include "runtime/distributed/status_group.h"

namespace stepflow {
namespace {

template <typename T>
const T* As(const google::protobuf::Message& msg) {
  return msg.GetDescriptor() == T::descriptor() ? static_cast<const T*>(&msg)
                                                : nullptr;
}
template <typename T>
T* As(google::protobuf::Message* msg) {
  return msg->GetDescriptor() == T::descriptor() ? static_cast<T*>(msg)
                                                 : nullptr;
}

// Sorted, without duplicates, and `own_task` (if one of them) first: its
// CPU:0 becomes the sessions' client device.
std::vector<std::string> OwnTaskFirst(std::vector<std::string> v,
                                      const std::string& own_task) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  auto own = std::find(v.begin(), v.end(), own_task);
  if (own != v.end()) std::rotate(v.begin(), own, own + 1);
  return v;
}

int64_t TimeoutNanos(const ConfigProto& config) {
  return std::max<int64_t>(0, config.operation_timeout_in_ms()) * 1000000;
}

}  // namespace

Master::Master(Env* env, std::vector<std::string> worker_tasks,
               const Options& options)
    : env_(env),
      worker_tasks_(OwnTaskFirst(std::move(worker_tasks), options.task)),
      options_(options) {
  if (options_.health_check_interval_nanos > 0) {
    identity_.task = options_.task;
    identity_.incarnation = env_->random->NewNonZero64();
    WorkerMonitor::Options mo;
    mo.interval_nanos = options_.health_check_interval_nanos;
    mo.max_missed = options_.health_check_max_missed;
    mo.master_task = identity_.task;
    mo.master_incarnation = identity_.incarnation;
    identity_.monitor =
        std::make_shared<WorkerMonitor>(env_, worker_tasks_, mo);
  }
}

void Master::UpdateMonitorLocked() {
  if (identity_.monitor != nullptr) {
    identity_.monitor->SetActive(!sessions_.empty());
  }
}

Master::~Master() {
  absl::MutexLock l(&mu_);
  if (identity_.monitor != nullptr) identity_.monitor->SetActive(false);
  for (auto& [handle, entry] : sessions_) {
    if (entry.gc_timer != 0) env_->scheduler->CancelTimer(entry.gc_timer);
  }
}

int64_t Master::NumCollectedSessions() const {
  absl::MutexLock l(&mu_);
  return collected_;
}

void Master::ArmGc(const std::string& handle, int64_t delay) {
  SessionEntry& entry = sessions_[handle];
  entry.gc_timer = env_->scheduler->ScheduleAfter(
      std::max<int64_t>(delay, 1), [this, handle] { CollectIfIdle(handle); });
}

void Master::CollectIfIdle(const std::string& handle) {
  std::shared_ptr<MasterSession> session;
  {
    absl::MutexLock l(&mu_);
    auto it = sessions_.find(handle);
    if (it == sessions_.end()) return;
    it->second.gc_timer = 0;
    const int64_t idle = env_->clock->NowNanos() - it->second.last_use_nanos;
    if (idle < options_.session_gc_nanos ||
        it->second.session->HasCallsInFlight()) {
      ArmGc(handle, options_.session_gc_nanos - idle);
      return;
    }
    session = std::move(it->second.session);
    sessions_.erase(it);
    ++collected_;
    UpdateMonitorLocked();
  }
  session->Close([](const absl::Status&) {});
}

size_t Master::NumSessions() const {
  absl::MutexLock l(&mu_);
  return sessions_.size();
}

std::shared_ptr<MasterSession> Master::FindSessionForTest(
    const std::string& handle) const {
  absl::MutexLock l(&mu_);
  auto it = sessions_.find(handle);
  return it == sessions_.end() ? nullptr : it->second.session;
}

absl::Status Master::FindSession(const std::string& handle,
                                 std::shared_ptr<MasterSession>* out,
                                 std::shared_ptr<CallableRegistry>* callables) {
  absl::MutexLock l(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return absl::AbortedError(
        absl::StrCat("Session '", handle,
                     "' is not found on the master (closed, "
                     "garbage-collected, or the master restarted)"));
  }
  it->second.last_use_nanos = env_->clock->NowNanos();
  *out = it->second.session;
  if (callables != nullptr) *callables = it->second.callables;
  return absl::OkStatus();
}

void Master::Handle(absl::string_view method,
                    const google::protobuf::Message& request,
                    google::protobuf::Message* response, DoneCallback done) {
#define SF_MASTER_METHOD(Name, Req, Resp)                     \
  if (method == "MasterService/" #Name) {                     \
    const auto* req = As<Req>(request);                       \
    auto* resp = As<Resp>(response);                          \
    if (req == nullptr || resp == nullptr) {                  \
      done(absl::InvalidArgumentError(                        \
          absl::StrCat("Wrong message types for ", method))); \
      return;                                                 \
    }                                                         \
    Name(*req, resp, std::move(done));                        \
    return;                                                   \
  }
  SF_MASTER_METHOD(CreateSession, CreateSessionRequest, CreateSessionResponse)
  SF_MASTER_METHOD(ExtendSession, ExtendSessionRequest, ExtendSessionResponse)
  SF_MASTER_METHOD(RunStep, RunStepRequest, RunStepResponse)
  SF_MASTER_METHOD(PartialRunSetup, PartialRunSetupRequest,
                   PartialRunSetupResponse)
  SF_MASTER_METHOD(CloseSession, CloseSessionRequest, CloseSessionResponse)
  SF_MASTER_METHOD(ListDevices, ListDevicesRequest, ListDevicesResponse)
  SF_MASTER_METHOD(Reset, ResetRequest, ResetResponse)
  SF_MASTER_METHOD(MakeCallable, MakeCallableRequest, MakeCallableResponse)
  SF_MASTER_METHOD(RunCallable, RunCallableRequest, RunCallableResponse)
  SF_MASTER_METHOD(ReleaseCallable, ReleaseCallableRequest,
                   ReleaseCallableResponse)
#undef SF_MASTER_METHOD
  done(absl::UnimplementedError(
      absl::StrCat("The master has no method '", method, "'")));
}

void Master::GetAllStatus(
    int64_t timeout_nanos,
    std::function<void(const absl::Status&, std::vector<WorkerInfo>)> done) {
  auto infos = std::make_shared<std::vector<WorkerInfo>>(worker_tasks_.size());
  auto group = StatusGroup::Create(
      static_cast<int>(worker_tasks_.size()),
      [infos, done](const absl::Status& s) { done(s, std::move(*infos)); });
  for (size_t i = 0; i < worker_tasks_.size(); ++i) {
    (*infos)[i].task = worker_tasks_[i];
    CallOptions opts;
    opts.timeout_nanos = timeout_nanos;
    CallTask<GetStatusRequest, GetStatusResponse>(
        env_, worker_tasks_[i], "WorkerService/GetStatus", GetStatusRequest(),
        opts, [group, infos, i](const absl::Status& s, GetStatusResponse* r) {
          if (s.ok()) SetWorkerDevices(*r, &(*infos)[i]);
          group->Report(s);
        });
  }
}

void Master::CreateSession(const CreateSessionRequest& req,
                           CreateSessionResponse* resp, DoneCallback done) {
  if (worker_tasks_.empty()) {
    done(absl::FailedPreconditionError("The master knows no worker tasks"));
    return;
  }
  const GraphDef graph = req.graph_def();
  const ConfigProto config = req.config();
  const int64_t start = env_->clock->NowNanos();
  GetAllStatus(TimeoutNanos(config), [this, graph, config, resp, done, start](
                                         const absl::Status& s,
                                         std::vector<WorkerInfo> workers) {
    if (!s.ok()) {
      done(s);
      return;
    }
    const std::string handle =
        absl::StrFormat("session_%016x", env_->random->NewNonZero64());
    auto session = std::make_shared<MasterSession>(
        env_, handle, config, std::move(workers), identity_);
    absl::Status init = session->Initialize(graph);
    if (!init.ok()) {
      done(init);
      return;
    }
    auto group = StatusGroup::Create(
        static_cast<int>(session->workers().size()),
        [this, session, resp, done, config, start](const absl::Status& s) {
          if (!s.ok()) {
            // Drop the worker sessions that were created.
            session->Close([done, s](const absl::Status&) { done(s); });
            return;
          }
          const int64_t timeout = TimeoutNanos(config);
          if (timeout > 0 && env_->clock->NowNanos() - start > timeout) {
            // The client's deadline has passed: it will never learn the
            // handle, so nobody could close the session.
            const absl::Status late = absl::DeadlineExceededError(absl::StrCat(
                "CreateSession took longer than operation_timeout_in_ms (",
                config.operation_timeout_in_ms(),
                " ms); the session it created was closed"));
            session->Close([done, late](const absl::Status&) { done(late); });
            return;
          }
          {
            absl::MutexLock l(&mu_);
            SessionEntry& entry = sessions_[session->handle()];
            entry.session = session;
            entry.last_use_nanos = env_->clock->NowNanos();
            if (options_.session_gc_nanos > 0) {
              ArmGc(session->handle(), options_.session_gc_nanos);
            }
            UpdateMonitorLocked();
          }
          resp->set_session_handle(session->handle());
          resp->set_graph_version(session->graph_version());
          done(absl::OkStatus());
        });
    for (const WorkerInfo& w : session->workers()) {
      CreateWorkerSessionRequest cw;
      cw.set_session_handle(handle);
      cw.set_worker_incarnation(w.incarnation);
      session->NameMaster(&cw);
      CallOptions opts;
      opts.timeout_nanos = TimeoutNanos(config);
      CallTask<CreateWorkerSessionRequest, CreateWorkerSessionResponse>(
          env_, w.task, "WorkerService/CreateWorkerSession", cw, opts,
          [group](const absl::Status& s, CreateWorkerSessionResponse*) {
            group->Report(s);
          });
    }
  });
}

void Master::ExtendSession(const ExtendSessionRequest& req,
                           ExtendSessionResponse* resp, DoneCallback done) {
  std::shared_ptr<MasterSession> session;
  absl::Status s = FindSession(req.session_handle(), &session);
  if (s.ok()) s = session->Extend(req, resp);
  done(s);
}

void Master::RunStep(const RunStepRequest& req, RunStepResponse* resp,
                     DoneCallback done) {
  absl::Status s = request_ids_.TrackUnique(req.request_id(), "RunStep");
  std::shared_ptr<MasterSession> session;
  if (s.ok()) s = FindSession(req.session_handle(), &session);
  if (!s.ok()) {
    done(s);
    return;
  }
  session->RunStep(req, resp, std::move(done));
}

void Master::PartialRunSetup(const PartialRunSetupRequest& req,
                             PartialRunSetupResponse* resp, DoneCallback done) {
  absl::Status s =
      request_ids_.TrackUnique(req.request_id(), "PartialRunSetup");
  std::shared_ptr<MasterSession> session;
  if (s.ok()) s = FindSession(req.session_handle(), &session);
  if (!s.ok()) {
    done(s);
    return;
  }
  session->PartialRunSetup(req, resp, std::move(done));
}

void Master::CloseSession(const CloseSessionRequest& req, CloseSessionResponse*,
                          DoneCallback done) {
  std::shared_ptr<MasterSession> session;
  {
    absl::MutexLock l(&mu_);
    auto it = sessions_.find(req.session_handle());
    if (it != sessions_.end()) {
      session = std::move(it->second.session);
      if (it->second.gc_timer != 0) {
        env_->scheduler->CancelTimer(it->second.gc_timer);
      }
      sessions_.erase(it);
      UpdateMonitorLocked();
    }
  }
  if (session == nullptr) {
    done(absl::AbortedError(absl::StrCat("Session '", req.session_handle(),
                                         "' is not found on the master")));
    return;
  }
  session->Close(std::move(done));
}

void Master::ListDevices(const ListDevicesRequest& req,
                         ListDevicesResponse* resp, DoneCallback done) {
  if (!req.session_handle().empty()) {
    std::shared_ptr<MasterSession> session;
    absl::Status s = FindSession(req.session_handle(), &session);
    if (s.ok()) {
      for (const WorkerInfo& w : session->workers()) {
        for (const DeviceAttributes& d : w.devices) {
          *resp->add_remote_device() = d;
        }
      }
    }
    done(s);
    return;
  }
  GetAllStatus(
      /*timeout_nanos=*/0,
      [resp, done](const absl::Status& s, std::vector<WorkerInfo> workers) {
        if (s.ok()) {
          for (const WorkerInfo& w : workers) {
            for (const DeviceAttributes& d : w.devices) {
              *resp->add_remote_device() = d;
            }
          }
        }
        done(s);
      });
}

void Master::Reset(const ResetRequest& req, ResetResponse*, DoneCallback done) {
  auto group = StatusGroup::Create(static_cast<int>(worker_tasks_.size()),
                                   std::move(done));
  CleanupAllRequest rw;
  for (const std::string& c : req.container()) rw.add_container(c);
  for (const std::string& task : worker_tasks_) {
    CallTask<CleanupAllRequest, CleanupAllResponse>(
        env_, task, "WorkerService/CleanupAll", rw, CallOptions(),
        [group](const absl::Status& s, CleanupAllResponse*) {
          group->Report(s);
        });
  }
}

void Master::MakeCallable(const MakeCallableRequest& req,
                          MakeCallableResponse* resp, DoneCallback done) {
  absl::Status s = request_ids_.TrackUnique(req.request_id(), "MakeCallable");
  std::shared_ptr<MasterSession> session;
  std::shared_ptr<CallableRegistry> callables;
  if (s.ok()) s = FindSession(req.session_handle(), &session, &callables);
  Session::CallableHandle handle = 0;
  if (s.ok()) s = callables->Make(req.options(), &handle);
  if (s.ok()) resp->set_handle(handle);
  done(s);
}

void Master::RunCallable(const RunCallableRequest& req,
                         RunCallableResponse* resp, DoneCallback done) {
  absl::Status s = request_ids_.TrackUnique(req.request_id(), "RunCallable");
  std::shared_ptr<MasterSession> session;
  std::shared_ptr<CallableRegistry> callables;
  if (s.ok()) s = FindSession(req.session_handle(), &session, &callables);
  std::shared_ptr<const CallableRegistry::Callable> callable;
  if (s.ok()) s = callables->Find(req.handle(), req.feed_size(), &callable);
  if (!s.ok()) {
    done(s);
    return;
  }
  // The step's request and response live until the step is done.
  auto step = std::make_shared<std::pair<RunStepRequest, RunStepResponse>>();
  RunStepRequest& run = step->first;
  run.set_session_handle(req.session_handle());
  for (int i = 0; i < req.feed_size(); ++i) {
    NamedTensorProto* feed = run.add_feed();
    feed->set_name(callable->feeds[i]);
    *feed->mutable_tensor() = req.feed(i);
  }
  for (const std::string& f : callable->fetches) run.add_fetch(f);
  for (const std::string& t : callable->targets) run.add_target(t);
  *run.mutable_options() = callable->run_options;
  session->RunStep(
      run, &step->second, [step, resp, done](const absl::Status& s) {
        if (s.ok()) {
          for (NamedTensorProto& t : *step->second.mutable_tensor()) {
            resp->add_fetch()->Swap(t.mutable_tensor());
          }
          resp->mutable_metadata()->Swap(step->second.mutable_metadata());
        }
        done(s);
      });
}

void Master::ReleaseCallable(const ReleaseCallableRequest& req,
                             ReleaseCallableResponse*, DoneCallback done) {
  std::shared_ptr<MasterSession> session;
  std::shared_ptr<CallableRegistry> callables;
  absl::Status s = FindSession(req.session_handle(), &session, &callables);
  if (s.ok()) s = callables->Release(req.handle());
  done(s);
}

}  // namespace stepflow
