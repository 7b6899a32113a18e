// CpuAllocator: host memory from malloc, accounted against a MemoryBudget.
//
// Each CPU device owns one ("cpu", budgeted by the device's and the
// process's limits); cpu_allocator() is the process's unbudgeted one, for
// tensors whose size the runtime itself bounds (scalars, shapes, small
// bookkeeping) and for clients. Either way a failed malloc is nullptr,
// never an abort.
//
// Ownership: a CpuAllocator made with `new` may be handed back with
// ReleaseOwner() while tensors it allocated are still alive (a session's
// fetched outputs outlive its devices): it deletes itself when its last
// allocation is freed. The budget is borrowed (may be null: no budget) and
// must outlive every allocation.
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_CPU_ALLOCATOR_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_CPU_ALLOCATOR_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/framework/allocator.h"
#include "runtime/framework/memory_budget.h"

namespace stepflow {

class CpuAllocator : public Allocator {
 public:
  explicit CpuAllocator(MemoryBudget* budget = nullptr) : budget_(budget) {}

  std::string Name() override { return "cpu"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t alignment, size_t num_bytes) override;
  // Always set; bytes_limit is the tightest limit of the budget and its
  // parents, when any has one.
  std::optional<AllocatorStats> GetStats() override;

  MemoryBudget* budget() const { return budget_; }

  // The owner lets go (instead of deleting): the allocator deletes itself
  // now if nothing it allocated is alive, else when the last allocation is
  // freed. For allocators made with `new` only.
  void ReleaseOwner();

 private:
  // Drops one hold (the owner's or a live allocation's); the last deletes.
  void Unref();
  std::atomic<int64_t> holds_{1};  // The owner + live allocations.
  MemoryBudget* const budget_;
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> largest_{0};
};

// The process's unbudgeted host allocator (never null, never freed).
Allocator* cpu_allocator();

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_CPU_ALLOCATOR_H_
