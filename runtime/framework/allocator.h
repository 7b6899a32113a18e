// Allocator: where a tensor's bytes come from, TensorFlow's interface
// (AllocateRaw / DeallocateRaw / Name / GetStats).
//
// An allocator may refuse: AllocateRaw returns nullptr when the memory is
// not there or would go over the allocator's budget (MemoryBudget). It
// never aborts and never throws; callers turn nullptr into
// ResourceExhausted ("OOM when allocating tensor with shape[...] ...",
// Tensor::Allocate and OpKernelContext::allocate_output do).
//
// Ownership: memory from AllocateRaw belongs to the caller until it hands
// it back with DeallocateRaw on the same allocator, with the same
// alignment and size. An allocator must outlive every allocation it made.
// Thread-safety: implementations are thread-safe.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_ALLOCATOR_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace stepflow {

// What an allocator has handed out (TensorFlow's AllocatorStats).
struct AllocatorStats {
  int64_t num_allocs = 0;              // Allocations ever made.
  int64_t bytes_in_use = 0;            // Bytes allocated and not yet freed.
  int64_t peak_bytes_in_use = 0;       // Highest bytes_in_use seen.
  int64_t largest_alloc_size = 0;      // Largest single allocation.
  std::optional<int64_t> bytes_limit;  // The budget, if the allocator has one.

  // "num_allocs 3, bytes_in_use 64, peak 128, largest 64, limit 1024".
  std::string DebugString() const;
};

class Allocator {
 public:
  // The alignment tensors get (Eigen's aligned maps need at least 16).
  static constexpr size_t kAllocatorAlignment = 64;

  virtual ~Allocator() = default;

  // "cpu", "gpu_bfc": the name TensorFlow's OOM messages print.
  virtual std::string Name() = 0;

  // `num_bytes` aligned to `alignment` (a power of two), or nullptr when
  // the memory is unavailable or over budget. Zero bytes still returns a
  // distinct non-null pointer.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;

  // Frees `ptr` from AllocateRaw(alignment, num_bytes) on this allocator.
  virtual void DeallocateRaw(void* ptr, size_t alignment, size_t num_bytes) = 0;

  // What the allocator tracks; nullopt if it tracks nothing.
  virtual std::optional<AllocatorStats> GetStats() { return std::nullopt; }
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_ALLOCATOR_H_
