// RecentIdWindow: the last `capacity` distinct int64 ids seen, oldest
// forgotten first, with O(1) membership. RecentRequestIds (duplicate RPCs)
// and WorkerSteps (cleaned-up steps) keep one each for the server's life.
//
// Memory: the ids live in two contiguous blocks (a ring and an open-addressing
// set), each grown by doubling up to `capacity` and never per id. These
// windows outlive the sessions whose ids they hold; one heap node per id,
// interleaved with a session's short-lived allocations, would keep those
// pages resident after the session is freed.
//
// Thread-safety: not thread-safe; callers hold their own lock.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_ID_WINDOW_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_ID_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace stepflow {

class RecentIdWindow {
 public:
  // capacity >= 1.
  explicit RecentIdWindow(size_t capacity)
      : capacity_(capacity < 1 ? 1 : capacity) {}

  // Adds `id`; false (and no change) when it is already in the window.
  bool Insert(int64_t id) {
    if (!seen_.insert(id).second) return false;
    if (ring_.size() < capacity_) {
      if (ring_.size() == ring_.capacity()) {
        ring_.reserve(ring_.empty() ? 16
                                    : std::min(capacity_, 2 * ring_.size()));
      }
      ring_.push_back(id);
      return true;
    }
    seen_.erase(ring_[oldest_]);
    ring_[oldest_] = id;
    oldest_ = (oldest_ + 1) % capacity_;
    return true;
  }

  bool Contains(int64_t id) const { return seen_.contains(id); }
  size_t size() const { return seen_.size(); }

 private:
  const size_t capacity_;
  std::vector<int64_t>
      ring_;  // Insertion order once full: ring_[oldest_] first.
  size_t oldest_ = 0;
  absl::flat_hash_set<int64_t> seen_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RECENT_ID_WINDOW_H_
