// PoolAllocator: a size-class pool in front of a raw allocator (cudaMalloc
// for a GPU; anything in tests), with statistics.
//
// Requests are rounded up to a size class (256 bytes minimum, then powers
// of two up to 1 MiB, then multiples of 1 MiB). A freed chunk goes to its
// class's free list and is handed out again for the next request of that
// class without calling the raw allocator. When the raw allocator fails, or
// when the bytes held would exceed `limit_bytes`, every cached free chunk
// is returned to it and the request is retried once; if it still fails,
// Allocate returns null (callers report ResourceExhausted).
//
// Stream-ordering note (GPU): reusing a chunk without synchronisation is
// safe as long as every kernel that touches pooled memory is issued to one
// compute stream and copies on other streams first wait for that stream
// (GpuDevice does both), exactly as TensorFlow's GPU allocator relies on.
//
// Ownership: owns the raw allocator's chunks; the destructor returns every
// cached chunk (chunks still in use at destruction are leaked, reported by
// stats().bytes_in_use). Thread-safety: thread-safe (one mutex).
#ifndef STEPFLOW_RUNTIME_GPU_POOL_ALLOCATOR_H_
#define STEPFLOW_RUNTIME_GPU_POOL_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace stepflow {

// Where the pool gets memory from.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // Null on failure.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* ptr, size_t bytes) = 0;
};

struct PoolAllocatorStats {
  int64_t num_allocs = 0;      // Allocate calls that succeeded.
  int64_t num_raw_allocs = 0;  // Calls that reached the sub-allocator.
  int64_t bytes_in_use = 0;    // Rounded bytes handed out, not freed.
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;  // Rounded.
  int64_t bytes_reserved = 0;  // Held from the sub-allocator (in use + cached).
  int64_t bytes_limit = 0;

  std::string DebugString() const;
};

class PoolAllocator {
 public:
  PoolAllocator(std::string name, std::unique_ptr<SubAllocator> sub,
                int64_t limit_bytes);
  ~PoolAllocator();
  PoolAllocator(const PoolAllocator&) = delete;
  PoolAllocator& operator=(const PoolAllocator&) = delete;

  const std::string& name() const { return name_; }

  // At least `bytes` (0 is treated as 1); null when out of memory.
  void* Allocate(size_t bytes);
  // `ptr` must come from Allocate on this pool.
  void Deallocate(void* ptr);

  PoolAllocatorStats stats() const;

  // The size class a request of `bytes` is rounded to.
  static size_t RoundedSize(size_t bytes);

 private:
  void ReleaseCachedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const std::unique_ptr<SubAllocator> sub_;
  mutable absl::Mutex mu_;
  // Rounded size -> free chunks of that size.
  std::map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
  // Chunk -> rounded size, for chunks handed out. Keyed by address only to
  // find a chunk's size; never iterated for decisions.
  std::map<void*, size_t> in_use_ ABSL_GUARDED_BY(mu_);
  PoolAllocatorStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GPU_POOL_ALLOCATOR_H_
