// RemoteRendezvous: a worker's rendezvous for one step of a distributed
// session.
//
// Keys whose send_device belongs to this worker's task are served from a
// local IntraProcessRendezvous (Send always stores locally: a value for a
// remote receiver waits here until that worker asks for it). A Recv whose
// send_device lies on another task issues "WorkerService/RecvTensor"
// (step id, full key) to that task through env->transport; the sending
// worker answers from its own step rendezvous once the value is sent.
//
// Memory: a received value is decoded with the allocator of its receiving
// device (AllocatorForDevice(device_mgr, key's dst_device)), so it counts
// against that device's and the process's memory budgets like any tensor
// a kernel allocates. A value over budget (a peer sending more than this
// task may hold, or a TensorProto whose shape claims more than it carries)
// fails that Recv, and so the step, with ResourceExhausted naming the key,
// the sending task and the bytes asked for; nothing is allocated for it.
//
// Errors: StartAbort(status) aborts the local table and every RecvTensor in
// flight (their Recvs complete with `status`); a Recv whose Args carry a
// cancelled CancellationManager completes Cancelled; RPC failures
// (Unavailable naming the task, Aborted for a restarted worker) reach the
// Recv as they are. A received value that does not decode keeps its code
// (ResourceExhausted over budget, InvalidArgument malformed) with the key
// and task added. No Env transport is FailedPrecondition.
//
// Ownership: reference-counted (new, then Unref()). Each RecvTensor in
// flight holds a reference. The Env and the DeviceMgr are borrowed and
// must outlive the rendezvous.
// Thread-safety: all methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_REMOTE_RENDEZVOUS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "runtime/env/env.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/rendezvous.h"

namespace stepflow {

class RemoteRendezvous : public Rendezvous {
 public:
  // `local_task` is this worker's "/job:j/replica:r/task:t"; received
  // values are allocated from `device_mgr`'s devices (null: the process's
  // unbudgeted cpu_allocator(), for tests without devices).
  RemoteRendezvous(Env* env, const std::string& local_task,
                   const DeviceMgr* device_mgr, int64_t step_id);

  absl::Status Send(const ParsedKey& key, const Args& args, const Tensor& val,
                    bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  int64_t step_id() const { return step_id_; }
  // Local values/waiters plus RecvTensor calls in flight (0 when idle).
  size_t NumPendingForTest() const;

 protected:
  ~RemoteRendezvous() override;

 private:
  struct RemoteRecv;
  void RecvRemote(const ParsedKey& key, const Args& args, DoneCallback done);
  void FinishRemote(const std::shared_ptr<RemoteRecv>& call,
                    const absl::Status& rpc_status);

  Env* const env_;
  const std::string local_task_;
  const DeviceMgr* const device_mgr_;
  DeviceNameUtils::ParsedName local_parsed_;
  const int64_t step_id_;
  IntraProcessRendezvous* const local_;  // Owned reference.

  mutable absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  uint64_t next_call_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, std::shared_ptr<RemoteRecv>> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
