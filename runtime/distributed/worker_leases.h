// WorkerLeases: which master owns each worker session, and when the worker
// last heard from that master — so a worker drops the sessions of a master
// that crashed or was cut off for good, instead of keeping them (and their
// graphs and steps) for ever as TensorFlow's workers do.
//
// A master is identified by (task, incarnation). Any call that names it —
// its heartbeat GetStatus, CreateWorkerSession, or a call for one of its
// sessions — renews its lease. A master not heard from for `lease_nanos`
// (Env clock) loses every session it owns: Expire() hands them to the
// owner's `drop` callback. A new incarnation of a master task supersedes
// the old one at once (the old master is gone). Sessions without a master
// incarnation (0: an old client, a test) have no lease.
//
// The expiry timer runs only while a leased session exists (env->scheduler;
// a quiet worker schedules nothing, so the simulator's loop can drain).
//
// Ownership: the Env is borrowed and must outlive the leases. `drop` is
// called without the leases' lock held, never after the destructor has
// returned (the destructor waits for a running expiry).
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_LEASES_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_LEASES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "runtime/env/env.h"

namespace stepflow {

class WorkerLeases {
 public:
  // `drop(sessions, reason)` forgets the given worker sessions.
  using DropCallback = std::function<void(const std::vector<std::string>&,
                                          const std::string& reason)>;

  // `lease_nanos` <= 0: no lease ever expires (superseded masters still
  // lose their sessions).
  WorkerLeases(Env* env, std::string task, int64_t lease_nanos,
               DropCallback drop);
  ~WorkerLeases();

  // Records that `handle` belongs to (master_task, incarnation) and renews
  // that master; sessions of an older incarnation of the same master task
  // are dropped (through `drop`, before this returns).
  void AddSession(const std::string& handle, const std::string& master_task,
                  uint64_t master_incarnation);
  void RemoveSession(const std::string& handle);
  // Renews the lease of the master (a heartbeat). Incarnation 0: no-op.
  void Heard(const std::string& master_task, uint64_t master_incarnation);
  // Renews the lease of the master owning `handle` (if it has one).
  void HeardFromSession(const std::string& handle);

  // Leased sessions (for tests).
  size_t NumLeasedSessions() const;

 private:
  struct State;
  struct Master {
    int64_t last_heard_nanos = 0;
  };
  using MasterKey = std::pair<std::string, uint64_t>;  // (task, incarnation)

  static void OnTimer(const std::weak_ptr<State>& weak);

  std::shared_ptr<State> state_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_WORKER_LEASES_H_
