#include "runtime/framework/memory_budget.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {

MemoryBudget::MemoryBudget(std::string name, int64_t limit_bytes,
                           MemoryBudget* parent, AllocationFaults* faults)
    : name_(std::move(name)),
      limit_(limit_bytes <= 0 ? kUnlimited : limit_bytes),
      parent_(parent),
      faults_(faults) {}

bool MemoryBudget::TryReserveHere(int64_t bytes) {
  int64_t cur = in_use_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ - cur) return false;
  } while (!in_use_.compare_exchange_weak(cur, cur + bytes,
                                          std::memory_order_relaxed));
  const int64_t now = cur + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak &&
         !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

void MemoryBudget::ReleaseHere(int64_t bytes) {
  in_use_.fetch_sub(bytes, std::memory_order_relaxed);
}

bool MemoryBudget::TryReserve(int64_t bytes) {
  if (bytes < 0) return false;
  if (faults_ != nullptr && faults_->Refuse(name_, bytes)) return false;
  MemoryBudget* b = this;
  for (; b != nullptr; b = b->parent_) {
    if (!b->TryReserveHere(bytes)) break;
  }
  if (b == nullptr) return true;
  // Undo the budgets below the one that refused.
  for (MemoryBudget* u = this; u != b; u = u->parent_) u->ReleaseHere(bytes);
  return false;
}

void MemoryBudget::Release(int64_t bytes) {
  for (MemoryBudget* b = this; b != nullptr; b = b->parent_) {
    b->ReleaseHere(bytes);
  }
}

std::string MemoryBudget::DebugString() const {
  if (unlimited()) {
    return absl::StrCat(name_, ": ", bytes_in_use(),
                        " bytes in use, no limit (peak ", peak_bytes_in_use(),
                        ")");
  }
  return absl::StrCat(name_, ": ", bytes_in_use(), " of ", limit_,
                      " bytes in use (peak ", peak_bytes_in_use(), ")");
}

}  // namespace stepflow
