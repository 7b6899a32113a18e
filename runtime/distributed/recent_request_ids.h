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

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "runtime/distributed/recent_id_window.h"

namespace stepflow {

class RecentRequestIds {
 public:
  explicit RecentRequestIds(size_t capacity = 1 << 16) : ids_(capacity) {}

  absl::Status TrackUnique(int64_t request_id, absl::string_view method) {
    if (request_id == 0) return absl::OkStatus();
    absl::MutexLock l(&mu_);
    if (!ids_.Insert(request_id)) {
      return absl::AbortedError(
          absl::StrCat("The same RPC (", method, ", request id ", request_id,
                       ") was received twice; the repeat is rejected"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Mutex mu_;
  RecentIdWindow ids_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_REQUEST_IDS_H_
