// StatusGroup: joins `n` asynchronous operations (e.g. one RPC per worker)
// and calls `done` once, with the combined status, after the last one
// reports.
//
// Combining: the first non-OK status wins, except that a Cancelled or
// Aborted status (usually a consequence of the root cause) gives way to a
// later error of another code. `on_first_error` (optional) runs once, when
// the first non-OK status arrives, before `done` — the master uses it to
// cancel the other workers' calls.
//
// Ownership: shared; every Report() closure keeps it alive.
// Thread-safety: Report may be called from any thread.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_STATUS_GROUP_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_STATUS_GROUP_H_

#include <functional>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace stepflow {

class StatusGroup {
 public:
  using DoneCallback = std::function<void(const absl::Status&)>;

  // `done` runs inline in the last Report() (immediately in Create when
  // n == 0).
  static std::shared_ptr<StatusGroup> Create(
      int n, DoneCallback done,
      std::function<void()> on_first_error = nullptr) {
    std::shared_ptr<StatusGroup> g(
        new StatusGroup(n, std::move(done), std::move(on_first_error)));
    if (n == 0) g->Finish();
    return g;
  }

  void Report(const absl::Status& s) {
    bool first_error = false;
    bool last = false;
    {
      absl::MutexLock l(&mu_);
      if (!s.ok()) {
        if (status_.ok()) {
          status_ = s;
          first_error = true;
        } else if ((absl::IsCancelled(status_) || absl::IsAborted(status_)) &&
                   !absl::IsCancelled(s) && !absl::IsAborted(s)) {
          status_ = s;
        }
      }
      last = --pending_ == 0;
    }
    if (first_error && on_first_error_) on_first_error_();
    if (last) Finish();
  }

  absl::Status status() const {
    absl::MutexLock l(&mu_);
    return status_;
  }

 private:
  StatusGroup(int n, DoneCallback done, std::function<void()> on_first_error)
      : pending_(n),
        done_(std::move(done)),
        on_first_error_(std::move(on_first_error)) {}

  void Finish() {
    DoneCallback cb = std::move(done_);
    cb(status());
  }

  mutable absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  DoneCallback done_;
  std::function<void()> on_first_error_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_STATUS_GROUP_H_
