// RecentRequestIds: remembers the request ids a handler has seen so a
// repeated (duplicated) message is rejected instead of being acted on twice.
//
// Keeps the last `capacity` ids (oldest forgotten first); id 0 means "no id"
// and is never tracked. TrackUnique returns Aborted naming the id and the
// method when the id was seen before.
//
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_REQUEST_IDS_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_REQUEST_IDS_H_

#include <cstdint>
#include <deque>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace stepflow {

class RecentRequestIds {
 public:
  explicit RecentRequestIds(size_t capacity = 1 << 16) : capacity_(capacity) {}

  absl::Status TrackUnique(int64_t request_id, absl::string_view method) {
    if (request_id == 0) return absl::OkStatus();
    absl::MutexLock l(&mu_);
    if (!seen_.insert(request_id).second) {
      return absl::AbortedError(
          absl::StrCat("The same RPC (", method, ", request id ", request_id,
                       ") was received twice; the repeat is rejected"));
    }
    order_.push_back(request_id);
    if (order_.size() > capacity_) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
    return absl::OkStatus();
  }

 private:
  const size_t capacity_;
  absl::Mutex mu_;
  // Contiguous (not a node per id): ids outlive the sessions that sent them,
  // and per-id nodes scattered through the heap would pin its pages after
  // those sessions are freed.
  absl::flat_hash_set<int64_t> seen_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> order_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_REQUEST_IDS_H_
