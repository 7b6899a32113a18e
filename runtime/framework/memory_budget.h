// MemoryBudget: a byte budget that allocators reserve from before they
// allocate, so an allocation too large for the process (or for a device) is
// refused up front instead of taking the machine's memory.
//
// Budgets nest: a device's budget names its process's as `parent`, and a
// reservation succeeds only if it fits every budget up the chain (all or
// nothing). The process budget's size is decided outside the runtime core
// (main() reads physical memory, runtime/env/real/physical_memory.h) and
// injected; the core never reads it.
//
// A budget may also be given AllocationFaults (allocation_faults.h): its
// reservations are then refused whenever the faults say so, as if over
// the limit (injected out-of-memory; never set in production).
//
// Ownership: `parent` and `faults` are borrowed and must outlive this
// budget.
// Thread-safety: thread-safe (atomics; no locks).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_MEMORY_BUDGET_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_MEMORY_BUDGET_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "runtime/framework/allocation_faults.h"

namespace stepflow {

class MemoryBudget {
 public:
  // No limit (every reservation that fits the parent succeeds).
  static constexpr int64_t kUnlimited = INT64_MAX;

  // `limit_bytes` <= 0 means kUnlimited.
  MemoryBudget(std::string name, int64_t limit_bytes,
               MemoryBudget* parent = nullptr,
               AllocationFaults* faults = nullptr);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Reserves `bytes` here and in every parent. False (nothing reserved
  // anywhere) if any of them would go over its limit, if this budget's
  // faults refuse it, or if `bytes` is negative.
  bool TryReserve(int64_t bytes);
  // Gives back a reservation made with TryReserve (here and in parents).
  void Release(int64_t bytes);

  const std::string& name() const { return name_; }
  int64_t limit() const { return limit_; }
  bool unlimited() const { return limit_ == kUnlimited; }
  int64_t bytes_in_use() const {
    return in_use_.load(std::memory_order_relaxed);
  }
  int64_t peak_bytes_in_use() const {
    return peak_.load(std::memory_order_relaxed);
  }
  MemoryBudget* parent() const { return parent_; }

  // "cpu: 12 of 1073741824 bytes in use (peak 40)"; unlimited budgets say
  // "no limit".
  std::string DebugString() const;

 private:
  // This budget alone (no parent).
  bool TryReserveHere(int64_t bytes);
  void ReleaseHere(int64_t bytes);

  const std::string name_;
  const int64_t limit_;
  MemoryBudget* const parent_;
  AllocationFaults* const faults_;
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_MEMORY_BUDGET_H_
