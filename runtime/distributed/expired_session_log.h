// ExpiredSessionLog: the last `capacity` worker sessions dropped because
// their master's lease expired (or a new incarnation superseded it), each
// with the reason, so that a late call on one is told why it is gone rather
// than that it never existed.
//
// Memory: the log outlives the sessions it names, and its entries are made
// while those sessions' graphs and steps fill the heap. Were each entry's
// map node and strings malloc'd on their own, a few hundred of them would
// sit one per page among the sessions' freed memory and keep thousands of
// pages resident after every session is collected. Entries therefore come
// from the log's own pool (std::pmr), which takes memory from the heap in
// blocks that the entries fill densely and reuses what evicted entries free.
//
// Thread-safety: not thread-safe; callers hold their own lock.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_EXPIRED_SESSION_LOG_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_EXPIRED_SESSION_LOG_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory_resource>
#include <string>
#include <string_view>

namespace stepflow {

class ExpiredSessionLog {
 public:
  // capacity >= 1.
  explicit ExpiredSessionLog(size_t capacity)
      : capacity_(capacity < 1 ? 1 : capacity) {}

  ExpiredSessionLog(const ExpiredSessionLog&) = delete;
  ExpiredSessionLog& operator=(const ExpiredSessionLog&) = delete;

  // Records that `handle` expired because of `reason`, forgetting the
  // oldest entry past capacity. A handle already recorded keeps its first
  // reason.
  void Add(std::string_view handle, std::string_view reason) {
    if (!reasons_.emplace(handle, reason).second) return;
    order_.emplace_back(handle);
    if (order_.size() > capacity_) {
      reasons_.erase(reasons_.find(std::string_view(order_.front())));
      order_.pop_front();
    }
  }

  // Why `handle` expired, or null if it is not (or no longer) recorded.
  // The pointer is valid until the next Add.
  const std::pmr::string* Find(std::string_view handle) const {
    auto it = reasons_.find(handle);
    return it == reasons_.end() ? nullptr : &it->second;
  }

  size_t size() const { return order_.size(); }

 private:
  const size_t capacity_;
  // Declared first: destroyed after the containers that allocate from it.
  std::pmr::unsynchronized_pool_resource pool_;
  std::pmr::map<std::pmr::string, std::pmr::string, std::less<>> reasons_{
      &pool_};
  std::pmr::deque<std::pmr::string> order_{&pool_};  // Oldest first.
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_EXPIRED_SESSION_LOG_H_
