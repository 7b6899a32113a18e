// IntraProcessRendezvous: the per-step Rendezvous for executors in one
// process. Send stores the value (never blocks); RecvAsync takes the oldest
// value under its key or waits for one.
//
// Semantics (see runtime/framework/rendezvous.h):
//  * FIFO per key: the n-th Recv on a key gets the n-th Send on that key.
//  * StartAbort(status) is sticky: every waiting Recv completes with
//    `status` (in the order the Recvs arrived), queued values are dropped,
//    and later Send/RecvAsync fail with `status`. StartAbort with an OK
//    status is ignored.
//  * A Recv whose Args carry a CancellationManager completes with Cancelled
//    ("RecvAsync is cancelled.") if that manager is cancelled before a
//    value arrives (immediately if it already was); its callback is
//    deregistered once the Recv is satisfied.
//  * Destroying the rendezvous with Recvs still waiting completes them with
//    Cancelled.
// Each Recv's callback runs exactly once, never under the rendezvous lock:
// inline in Send/RecvAsync/StartAbort or in CancellationManager::StartCancel.
//
// Ownership: reference-counted (create with new, release with Unref()).
// Thread-safety: all methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_COMMON_INTRA_PROCESS_RENDEZVOUS_H_
#define STEPFLOW_RUNTIME_COMMON_INTRA_PROCESS_RENDEZVOUS_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

class IntraProcessRendezvous : public Rendezvous {
 public:
  IntraProcessRendezvous();

  absl::Status Send(const ParsedKey& key, const Args& args, const Tensor& val,
                    bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  // Values sent but not yet received plus Recvs still waiting (for leak
  // checks: 0 after a completed step).
  size_t NumPendingForTest() const;

 protected:
  ~IntraProcessRendezvous() override;

 private:
  // A waiting Recv. Shared with its cancellation callback, which may
  // outlive the table entry; `done` is taken exactly once by whoever
  // completes the Recv.
  struct Waiter {
    absl::Mutex mu;
    DoneCallback done ABSL_GUARDED_BY(mu);
    Args recv_args;
    CancellationToken token = 0;
    uint64_t seq = 0;  // Arrival order, for deterministic abort order.
    // The callback if not yet taken; empty otherwise.
    DoneCallback Take() {
      absl::MutexLock l(&mu);
      DoneCallback cb = std::move(done);
      done = nullptr;
      return cb;
    }
    bool taken() {
      absl::MutexLock l(&mu);
      return done == nullptr;
    }
  };
  // One queue element: a sent value (waiter == null) or a waiting Recv.
  struct Item {
    std::shared_ptr<Waiter> waiter;
    Tensor value;
    bool is_dead = false;
    Args send_args;
  };
  using ItemQueue = std::deque<Item>;

  // Completes every waiting Recv with `status` and drops queued values.
  void AbortAll(const absl::Status& status);

  mutable absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  // Looked up by full key only; never iterated for behaviour (AbortAll
  // orders what it collects by arrival sequence).
  absl::flat_hash_map<std::string, ItemQueue> table_ ABSL_GUARDED_BY(mu_);
  // Whether the planted drop_recv bug already dropped this rendezvous's
  // Send (runtime/framework/planted_bug.h; test-only).
  bool planted_drop_done_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_INTRA_PROCESS_RENDEZVOUS_H_
