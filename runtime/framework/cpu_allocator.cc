#include "runtime/framework/cpu_allocator.h"

#include <cstdlib>
#include <cstring>

namespace stepflow {
namespace {

void UpdateMax(std::atomic<int64_t>* max, int64_t value) {
  int64_t cur = max->load(std::memory_order_relaxed);
  while (value > cur &&
         !max->compare_exchange_weak(cur, value, std::memory_order_relaxed)) {
  }
}

// malloc'ed block, aligned inside: glibc's aligned allocation path costs
// several times a plain malloc, which dominates the small tensors of
// per-step bookkeeping. The block's address sits just below the aligned
// pointer.
constexpr size_t kMaxAllocationBytes = size_t{1} << 48;

size_t BlockBytes(size_t alignment, size_t num_bytes) {
  return num_bytes + alignment + sizeof(void*);
}

}  // namespace

void* CpuAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  // No machine maps more than 2^48 bytes (x86-64 and arm64 user address
  // spaces): refuse without asking malloc (which sanitizers would turn
  // into a crash).
  if (num_bytes > kMaxAllocationBytes) return nullptr;
  const int64_t bytes = static_cast<int64_t>(num_bytes);
  if (budget_ != nullptr && !budget_->TryReserve(bytes)) return nullptr;
  void* block = std::malloc(BlockBytes(alignment, num_bytes));
  if (block == nullptr) {
    if (budget_ != nullptr) budget_->Release(bytes);
    return nullptr;
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(block) + sizeof(void*);
  void* aligned =
      reinterpret_cast<void*>((base + alignment - 1) & ~(alignment - 1));
  std::memcpy(static_cast<char*>(aligned) - sizeof(void*), &block,
              sizeof(void*));
  holds_.fetch_add(1, std::memory_order_relaxed);
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t now =
      bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  UpdateMax(&peak_, now);
  UpdateMax(&largest_, bytes);
  return aligned;
}

void CpuAllocator::DeallocateRaw(void* ptr, size_t alignment,
                                 size_t num_bytes) {
  (void)alignment;
  if (ptr == nullptr) return;
  void* block;
  std::memcpy(&block, static_cast<char*>(ptr) - sizeof(void*), sizeof(void*));
  std::free(block);
  const int64_t bytes = static_cast<int64_t>(num_bytes);
  bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  // An empty block reserved nothing: it does not touch the budget, which
  // may be gone once nothing is reserved in it (GrpcServer frees its
  // process budget then).
  if (budget_ != nullptr && bytes > 0) budget_->Release(bytes);
  Unref();
}

void CpuAllocator::ReleaseOwner() { Unref(); }

void CpuAllocator::Unref() {
  if (holds_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

std::optional<AllocatorStats> CpuAllocator::GetStats() {
  AllocatorStats stats;
  stats.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  stats.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  stats.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  stats.largest_alloc_size = largest_.load(std::memory_order_relaxed);
  // The tightest limit up the budget chain (the device's or the
  // process's).
  for (MemoryBudget* b = budget_; b != nullptr; b = b->parent()) {
    if (b->unlimited()) continue;
    if (!stats.bytes_limit.has_value() || b->limit() < *stats.bytes_limit) {
      stats.bytes_limit = b->limit();
    }
  }
  return stats;
}

Allocator* cpu_allocator() {
  static Allocator* const allocator = new CpuAllocator();
  return allocator;
}

}  // namespace stepflow
