#include "runtime/distributed/worker.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/common/cpu_device.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace {

// `msg` as T if it is one (the transport promises it; a mismatch is a bug
// of the caller's, reported as InvalidArgument).
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

std::string Hex(uint64_t v) { return absl::StrFormat("%016x", v); }

}  // namespace

absl::Status Worker::Create(Env* env, const std::string& task, int num_cpus,
                            const Options& options,
                            std::unique_ptr<Worker>* out) {
  const CpuDeviceOptions& memory = options.memory;
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(task, &parsed) || !parsed.has_job ||
      !parsed.has_replica || !parsed.has_task || parsed.has_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Worker task '", task, "' is not of the form /job:J/replica:R/task:T"));
  }
  if (num_cpus < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Worker ", task, " needs at least one CPU"));
  }
  if (env == nullptr || env->random == nullptr || env->scheduler == nullptr) {
    return absl::InvalidArgumentError("Worker needs an Env with a Random");
  }
  const std::string name = DeviceNameUtils::TaskName(parsed);
  const uint64_t incarnation = env->random->NewNonZero64();
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < num_cpus; ++i) {
    devices.push_back(std::make_unique<CpuDevice>(
        env,
        Device::BuildDeviceAttributes(Device::FullName(name, "CPU", i), "CPU",
                                      CpuDeviceMemoryLimit(memory),
                                      incarnation),
        memory));
  }
  out->reset(new Worker(env, name, incarnation,
                        std::make_unique<DeviceMgr>(std::move(devices)),
                        options));
  return absl::OkStatus();
}

Worker::Worker(Env* env, std::string task, uint64_t incarnation,
               std::unique_ptr<DeviceMgr> device_mgr, const Options& options)
    : env_(env),
      task_(std::move(task)),
      incarnation_(incarnation),
      device_mgr_(std::move(device_mgr)),
      steps_(env, task_, device_mgr_.get(), options.session_lease_nanos),
      leases_(std::make_unique<WorkerLeases>(
          env, task_, options.session_lease_nanos,
          [this](const std::vector<std::string>& handles,
                 const std::string& reason) {
            DropSessions(handles, /*expired=*/true, reason);
          })) {}

int64_t Worker::NumExpiredSessions() const {
  absl::MutexLock l(&mu_);
  return expired_sessions_;
}

void Worker::DropSessions(const std::vector<std::string>& handles, bool expired,
                          const std::string& reason) {
  std::vector<std::shared_ptr<GraphMgr>> dropped;
  std::vector<int64_t> steps;
  {
    absl::MutexLock l(&mu_);
    for (const std::string& h : handles) {
      auto it = sessions_.find(h);
      if (it == sessions_.end()) continue;
      dropped.push_back(std::move(it->second));
      sessions_.erase(it);
      if (expired) {
        ++expired_sessions_;
        RememberExpiredLocked(h, reason);
      }
    }
    for (auto it = step_sessions_.begin(); it != step_sessions_.end();) {
      if (std::find(handles.begin(), handles.end(), it->second) !=
          handles.end()) {
        steps.push_back(it->first);
        it = step_sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (int64_t step : steps) steps_.Cleanup(step);
}

Worker::~Worker() {
  steps_.CleanupAll(
      absl::AbortedError(absl::StrCat("Worker ", task_, " is shutting down")));
}

size_t Worker::NumSessions() const {
  absl::MutexLock l(&mu_);
  return sessions_.size();
}

size_t Worker::NumRegisteredGraphs() const {
  absl::MutexLock l(&mu_);
  size_t n = 0;
  for (const auto& [handle, mgr] : sessions_) n += mgr->NumGraphs();
  return n;
}

absl::Status Worker::CheckIncarnation(uint64_t incarnation) const {
  if (incarnation != 0 && incarnation != incarnation_) {
    return absl::AbortedError(absl::StrCat(
        "Worker ", task_, " has restarted: the request names incarnation ",
        Hex(incarnation), " but the worker's is ", Hex(incarnation_)));
  }
  return absl::OkStatus();
}

void Worker::RememberExpiredLocked(const std::string& handle,
                                   const std::string& reason) {
  expired_log_.Add(handle, reason);
}

absl::Status Worker::ExpiredLocked(const std::string& handle) const {
  const std::pmr::string* reason = expired_log_.Find(handle);
  if (reason == nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("Session '", handle, "' is not found on task ", task_, ": ",
                   absl::string_view(reason->data(), reason->size()),
                   "; its graphs and steps are gone, create a new session"));
}

absl::Status Worker::FindSession(const std::string& handle,
                                 std::shared_ptr<GraphMgr>* out) const {
  absl::MutexLock l(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    absl::Status expired = ExpiredLocked(handle);
    if (!expired.ok()) return expired;
    return absl::AbortedError(absl::StrCat("Session '", handle,
                                           "' is not found on worker ", task_,
                                           " (it may have restarted)"));
  }
  *out = it->second;
  return absl::OkStatus();
}

void Worker::Handle(absl::string_view method,
                    const google::protobuf::Message& request,
                    google::protobuf::Message* response, DoneCallback done) {
#define SF_WORKER_METHOD(Name)                                \
  if (method == "WorkerService/" #Name) {                     \
    const auto* req = As<Name##Request>(request);             \
    auto* resp = As<Name##Response>(response);                \
    if (req == nullptr || resp == nullptr) {                  \
      done(absl::InvalidArgumentError(                        \
          absl::StrCat("Wrong message types for ", method))); \
      return;                                                 \
    }                                                         \
    Name(*req, resp, std::move(done));                        \
    return;                                                   \
  }
  SF_WORKER_METHOD(GetStatus)
  SF_WORKER_METHOD(CreateWorkerSession)
  SF_WORKER_METHOD(DeleteWorkerSession)
  SF_WORKER_METHOD(RegisterGraph)
  SF_WORKER_METHOD(DeregisterGraph)
  SF_WORKER_METHOD(RunGraph)
  SF_WORKER_METHOD(CleanupGraph)
  SF_WORKER_METHOD(RecvTensor)
  SF_WORKER_METHOD(CleanupAll)
  SF_WORKER_METHOD(Logging)
  SF_WORKER_METHOD(Tracing)
#undef SF_WORKER_METHOD
  done(absl::UnimplementedError(
      absl::StrCat("Worker ", task_, " has no method '", method, "'")));
}

void Worker::GetStatus(const GetStatusRequest& req, GetStatusResponse* resp,
                       DoneCallback done) {
  leases_->Heard(req.master_task(), req.master_incarnation());
  for (const Device* d : device_mgr_->ListDevices()) {
    *resp->add_device_attributes() = d->attributes();
  }
  done(absl::OkStatus());
}

void Worker::CreateWorkerSession(const CreateWorkerSessionRequest& req,
                                 CreateWorkerSessionResponse*,
                                 DoneCallback done) {
  absl::Status s = CheckIncarnation(req.worker_incarnation());
  if (!s.ok()) return done(s);
  if (req.session_handle().empty()) {
    return done(absl::InvalidArgumentError("Empty worker session handle"));
  }
  {
    absl::MutexLock l(&mu_);
    // A late copy of the create of a session whose lease expired must not
    // bring it back: its master has not kept it alive.
    s = ExpiredLocked(req.session_handle());
    if (s.ok()) {
      auto& slot = sessions_[req.session_handle()];
      // A repeated create (a duplicated message) keeps the existing session.
      if (slot == nullptr) {
        slot = std::make_shared<GraphMgr>(
            env_, device_mgr_.get(),
            absl::StrCat(req.session_handle(), "/", Hex(incarnation_)));
      }
    }
  }
  if (!s.ok()) return done(s);
  leases_->AddSession(req.session_handle(), req.master_task(),
                      static_cast<uint64_t>(req.master_incarnation()));
  done(absl::OkStatus());
}

void Worker::DeleteWorkerSession(const DeleteWorkerSessionRequest& req,
                                 DeleteWorkerSessionResponse*,
                                 DoneCallback done) {
  // The session's steps go with it: a CleanupGraph lost with its master
  // would otherwise leave their state behind.
  DropSessions({req.session_handle()}, /*expired=*/false);
  leases_->RemoveSession(req.session_handle());
  // Deleting an unknown session is OK (idempotent).
  done(absl::OkStatus());
}

void Worker::RegisterGraph(const RegisterGraphRequest& req,
                           RegisterGraphResponse* resp, DoneCallback done) {
  absl::Status s = CheckIncarnation(req.worker_incarnation());
  std::shared_ptr<GraphMgr> mgr;
  if (s.ok()) s = FindSession(req.session_handle(), &mgr);
  if (s.ok()) leases_->HeardFromSession(req.session_handle());
  std::string handle;
  if (s.ok()) s = mgr->Register(req.graph_def(), &handle);
  if (s.ok()) resp->set_graph_handle(handle);
  done(s);
}

void Worker::DeregisterGraph(const DeregisterGraphRequest& req,
                             DeregisterGraphResponse*, DoneCallback done) {
  std::shared_ptr<GraphMgr> mgr;
  absl::Status s = FindSession(req.session_handle(), &mgr);
  if (s.ok()) s = mgr->Deregister(req.graph_handle());
  done(s);
}

void Worker::RunGraph(const RunGraphRequest& req, RunGraphResponse* resp,
                      DoneCallback done) {
  absl::Status s = CheckIncarnation(req.worker_incarnation());
  if (s.ok()) s = request_ids_.TrackUnique(req.request_id(), "RunGraph");
  std::shared_ptr<GraphMgr> mgr;
  if (s.ok()) s = FindSession(req.session_handle(), &mgr);
  std::shared_ptr<WorkerStep> step;
  if (s.ok()) s = steps_.FindOrCreate(req.step_id(), /*claim=*/true, &step);
  if (!s.ok()) return done(s);
  leases_->HeardFromSession(req.session_handle());
  {
    absl::MutexLock l(&mu_);
    step_sessions_[req.step_id()] = req.session_handle();
  }
  const bool in_body = req.store_errors_in_response_body();
  running_graphs_->fetch_add(1, std::memory_order_relaxed);
  mgr->ExecuteAsync(
      req.graph_handle(), step, req, resp,
      [mgr, resp, in_body, done,
       running = running_graphs_](const absl::Status& s) {
        running->fetch_sub(1, std::memory_order_release);
        if (in_body && !s.ok()) {
          resp->set_status_code(static_cast<int>(s.code()));
          resp->set_status_error_message(std::string(s.message()));
          done(absl::OkStatus());
          return;
        }
        done(s);
      });
}

void Worker::CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse*,
                          DoneCallback done) {
  {
    absl::MutexLock l(&mu_);
    step_sessions_.erase(req.step_id());
  }
  steps_.Cleanup(req.step_id());
  done(absl::OkStatus());
}

void Worker::RecvTensor(const RecvTensorRequest& req, RecvTensorResponse* resp,
                        DoneCallback done) {
  absl::Status s = request_ids_.TrackUnique(req.request_id(), "RecvTensor");
  Rendezvous::ParsedKey key;
  if (s.ok()) s = Rendezvous::ParseKey(req.rendezvous_key(), &key);
  if (s.ok()) {
    Device* d = nullptr;
    s = device_mgr_->LookupDevice(key.src_device, &d);
    if (!s.ok()) {
      s = absl::InvalidArgumentError(
          absl::StrCat("RecvTensor for '", req.rendezvous_key(), "' sent to ",
                       task_, ", which does not have its source device"));
    } else if (d->attributes().incarnation() != key.src_incarnation) {
      s = absl::AbortedError(absl::StrCat(
          "RecvTensor for '", req.rendezvous_key(), "': worker ", task_,
          " has restarted (incarnation ", Hex(d->attributes().incarnation()),
          ", the key names ", Hex(key.src_incarnation), ")"));
    }
  }
  std::shared_ptr<WorkerStep> step;
  if (s.ok()) s = steps_.FindOrCreate(req.step_id(), /*claim=*/false, &step);
  if (!s.ok()) return done(s);
  Rendezvous::Args args;
  args.cancellation_manager = &step->cancellation;
  const int64_t start_micros = env_->clock->NowNanos() / 1000;
  step->rendezvous->RecvAsync(
      key, args,
      [this, step, resp, done, start_micros, step_id = req.step_id(),
       rendezvous_key = req.rendezvous_key(), src_device = key.src_device](
          const absl::Status& s, const Rendezvous::Args&,
          const Rendezvous::Args&, const Tensor& v, bool is_dead) {
        absl::Status status = s;
        if (status.ok() && !is_dead) status = CheckEncodable(v);
        if (status.ok()) {
          resp->set_is_dead(is_dead);
          if (!is_dead) TensorToProto(v, resp->mutable_tensor());
          if (rpc_log_.enabled()) {
            rpc_log_.RecordRecvTensor(
                step_id, src_device, rendezvous_key,
                static_cast<int64_t>(resp->tensor().ByteSizeLong()),
                start_micros, env_->clock->NowNanos() / 1000);
          }
        }
        done(status);
      });
}

void Worker::CleanupAll(const CleanupAllRequest& req, CleanupAllResponse*,
                        DoneCallback done) {
  std::vector<std::string> containers(req.container().begin(),
                                      req.container().end());
  device_mgr_->ClearContainers(containers);
  done(absl::OkStatus());
}

void Worker::Logging(const LoggingRequest& req, LoggingResponse* resp,
                     DoneCallback done) {
  rpc_log_.Handle(req, resp);
  done(absl::OkStatus());
}

void Worker::Tracing(const TracingRequest&, TracingResponse*,
                     DoneCallback done) {
  done(absl::UnimplementedError(
      absl::StrCat("Tracing is not supported by worker ", task_)));
}

}  // namespace stepflow
