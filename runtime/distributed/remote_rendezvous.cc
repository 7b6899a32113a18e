#include "runtime/distributed/remote_rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/device_allocator.h"
#include "runtime/env/transport.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {

// One RecvTensor in flight. `cancellation` cancels the RPC (on abort or when
// the Recv's own manager is cancelled).
struct RemoteRendezvous::RemoteRecv {
  uint64_t id = 0;
  std::string task;
  std::string dst_device;  // The receiving device (here).
  Args recv_args;
  DoneCallback done;
  RecvTensorRequest request;
  RecvTensorResponse response;
  CancellationManager cancellation;
  CancellationManager* step_cancellation = nullptr;
  CancellationToken step_token = 0;
  bool step_registered = false;
};

RemoteRendezvous::RemoteRendezvous(Env* env, const std::string& local_task,
                                   const DeviceMgr* device_mgr, int64_t step_id)
    : env_(env),
      local_task_(local_task),
      device_mgr_(device_mgr),
      step_id_(step_id),
      local_(new IntraProcessRendezvous()) {
  DeviceNameUtils::ParseFullName(local_task_, &local_parsed_);
}

RemoteRendezvous::~RemoteRendezvous() { local_->Unref(); }

absl::Status RemoteRendezvous::Send(const ParsedKey& key, const Args& args,
                                    const Tensor& val, bool is_dead) {
  return local_->Send(key, args, val, is_dead);
}

void RemoteRendezvous::RecvAsync(const ParsedKey& key, const Args& args,
                                 DoneCallback done) {
  if (DeviceNameUtils::IsSameAddressSpace(key.src, local_parsed_)) {
    local_->RecvAsync(key, args, std::move(done));
    return;
  }
  RecvRemote(key, args, std::move(done));
}

void RemoteRendezvous::RecvRemote(const ParsedKey& key, const Args& args,
                                  DoneCallback done) {
  if (env_->transport == nullptr) {
    done(absl::FailedPreconditionError(absl::StrCat(
             "No transport to receive ", key.full_key, " from another task")),
         Args(), args, Tensor(), false);
    return;
  }
  auto call = std::make_shared<RemoteRecv>();
  call->task = DeviceNameUtils::TaskName(key.src);
  call->dst_device = std::string(key.dst_device);
  call->recv_args = args;
  call->done = std::move(done);
  call->request.set_step_id(step_id_);
  call->request.set_rendezvous_key(key.full_key);
  call->request.set_request_id(
      static_cast<int64_t>(env_->random->NewNonZero64() >> 1));
  absl::Status aborted;
  {
    absl::MutexLock l(&mu_);
    aborted = status_;
    if (aborted.ok()) {
      call->id = next_call_id_++;
      calls_[call->id] = call;
    }
  }
  if (!aborted.ok()) {
    DoneCallback cb = std::move(call->done);
    cb(aborted, Args(), args, Tensor(), false);
    return;
  }
  if (args.cancellation_manager != nullptr) {
    call->step_cancellation = args.cancellation_manager;
    call->step_token = args.cancellation_manager->get_cancellation_token();
    call->step_registered = args.cancellation_manager->RegisterCallback(
        call->step_token, [call] { call->cancellation.StartCancel(); });
    if (!call->step_registered) call->cancellation.StartCancel();
  }
  CallOptions options;
  options.cancellation = &call->cancellation;
  Ref();  // Released when the call finishes.
  env_->transport->Call(call->task, "WorkerService/RecvTensor", call->request,
                        &call->response, options,
                        [this, call](const absl::Status& s) {
                          FinishRemote(call, s);
                          Unref();
                        });
}

void RemoteRendezvous::FinishRemote(const std::shared_ptr<RemoteRecv>& call,
                                    const absl::Status& rpc_status) {
  if (call->step_registered) {
    call->step_cancellation->DeregisterCallback(call->step_token);
  }
  absl::Status s = rpc_status;
  {
    absl::MutexLock l(&mu_);
    calls_.erase(call->id);
    // Aborted: report the cause (a value arriving after the abort is
    // dropped undecoded).
    if (!status_.ok()) s = status_;
  }
  if (absl::IsCancelled(s) && call->step_cancellation != nullptr &&
      call->step_cancellation->IsCancelled()) {
    s = absl::CancelledError("RecvAsync is cancelled.");
  }
  Tensor value;
  if (s.ok() && !call->response.is_dead()) {
    s = TensorFromProto(AllocatorForDevice(device_mgr_, call->dst_device),
                        call->response.tensor(), &value);
    if (!s.ok()) {
      s = absl::Status(
          s.code(),
          absl::StrCat("Cannot receive ", call->request.rendezvous_key(),
                       " from ", call->task, ": ", s.message()));
    }
  }
  DoneCallback cb = std::move(call->done);
  Args send_args;
  cb(s, send_args, call->recv_args, value, s.ok() && call->response.is_dead());
}

void RemoteRendezvous::StartAbort(const absl::Status& status) {
  if (status.ok()) return;
  std::vector<std::shared_ptr<RemoteRecv>> calls;
  {
    absl::MutexLock l(&mu_);
    if (status_.ok()) status_ = status;
    for (auto& [id, call] : calls_) calls.push_back(call);
  }
  local_->StartAbort(status);
  // Cancelling completes each RPC promptly; FinishRemote reports `status`.
  for (auto& call : calls) call->cancellation.StartCancel();
}

size_t RemoteRendezvous::NumPendingForTest() const {
  absl::MutexLock l(&mu_);
  return local_->NumPendingForTest() + calls_.size();
}

}  // namespace stepflow
