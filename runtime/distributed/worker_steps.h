// WorkerSteps: a worker's per-step state (TensorFlow's RendezvousMgr): for
// each step id its RemoteRendezvous and CancellationManager.
//
// State for a step is created by whichever arrives first — its RunGraph, or
// a RecvTensor from another worker (which may come before the step starts
// here). Cleanup(step) (CleanupGraph) cancels the step, aborts its
// rendezvous with Aborted and drops it; the id is remembered (the last
// `remembered` ones) so a late RunGraph/RecvTensor for it fails Aborted
// instead of re-creating state nobody would clean.
//
// Orphans: state a RecvTensor created whose RunGraph never comes (the
// master died between sending the step's RunGraphs, so no CleanupGraph
// will come either) would wait for ever. A step is claimed by its RunGraph
// (FindOrCreate with claim); an unclaimed step older than `orphan_nanos`
// (the worker's session lease: by then its master is surely gone) is
// cleaned up like CleanupGraph would, its waiting RecvTensors answered
// Aborted. The sweep timer (env->scheduler) runs only while unclaimed
// steps exist; orphan_nanos <= 0 turns the sweep off.
//
// Ownership: steps are shared_ptrs; whoever runs or serves a step holds one
// until done, so Cleanup never frees state in use. The Env and DeviceMgr
// are borrowed and must outlive every step.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_STEPS_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_STEPS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/distributed/remote_rendezvous.h"
#include "runtime/env/env.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {

struct WorkerStep {
  using DoneCallback = std::function<void(const absl::Status&)>;

  WorkerStep(Env* env, const std::string& task, const DeviceMgr* device_mgr,
             int64_t step_id)
      : rendezvous(new RemoteRendezvous(env, task, device_mgr, step_id)) {}
  ~WorkerStep() { rendezvous->Unref(); }
  WorkerStep(const WorkerStep&) = delete;
  WorkerStep& operator=(const WorkerStep&) = delete;

  // Partial runs (RunGraph with is_partial): the executors of the step
  // start with its first call only, and the last call answers once they
  // have finished. True for the one caller that must start them.
  bool StartPartialOnce();
  // Records how the partial run's executors finished; runs the waiters.
  void FinishPartial(const absl::Status& status);
  // Runs `done` with the executors' status once they have finished.
  void WhenPartialDone(DoneCallback done);

  RemoteRendezvous* const rendezvous;  // Owned reference.
  CancellationManager cancellation;

 private:
  absl::Mutex mu_;
  bool partial_started_ ABSL_GUARDED_BY(mu_) = false;
  bool partial_finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status partial_status_ ABSL_GUARDED_BY(mu_);
  std::vector<DoneCallback> partial_waiters_ ABSL_GUARDED_BY(mu_);
};

class WorkerSteps {
 public:
  // Received values are allocated from `device_mgr`'s devices, within
  // their memory budgets (see RemoteRendezvous); null: unbudgeted.
  WorkerSteps(Env* env, std::string task, const DeviceMgr* device_mgr,
              int64_t orphan_nanos = 0, size_t remembered = 4096);
  ~WorkerSteps();
  WorkerSteps(const WorkerSteps&) = delete;
  WorkerSteps& operator=(const WorkerSteps&) = delete;

  // The step's state, created if new; `claim` (RunGraph) marks it owned by
  // a running step, so it is never swept as an orphan. Aborted if the step
  // was cleaned up.
  absl::Status FindOrCreate(int64_t step_id, bool claim,
                            std::shared_ptr<WorkerStep>* out);

  // Cancels and aborts the step and drops its state (no-op if unknown).
  void Cleanup(int64_t step_id);

  // Cleans up every step (worker shutdown), aborting with `status`.
  void CleanupAll(const absl::Status& status);

  // Steps with live state (for leak checks).
  size_t NumSteps() const;

 private:
  struct State;
  static void OnSweep(const std::weak_ptr<State>& weak);

  std::shared_ptr<State> state_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_STEPS_H_
