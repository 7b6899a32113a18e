#include "runtime/gpu/pool_allocator.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {

std::string PoolAllocatorStats::DebugString() const {
  return absl::StrCat(
      "num_allocs: ", num_allocs, " num_raw_allocs: ", num_raw_allocs,
      " bytes_in_use: ", bytes_in_use,
      " peak_bytes_in_use: ", peak_bytes_in_use,
      " largest_alloc_size: ", largest_alloc_size,
      " bytes_reserved: ", bytes_reserved, " bytes_limit: ", bytes_limit);
}

PoolAllocator::PoolAllocator(std::string name,
                             std::unique_ptr<SubAllocator> sub,
                             int64_t limit_bytes)
    : name_(std::move(name)), sub_(std::move(sub)) {
  stats_.bytes_limit = limit_bytes;
}

PoolAllocator::~PoolAllocator() {
  absl::MutexLock l(&mu_);
  ReleaseCachedLocked();
}

size_t PoolAllocator::RoundedSize(size_t bytes) {
  constexpr size_t kMin = 256;
  constexpr size_t kMiB = size_t{1} << 20;
  if (bytes <= kMin) return kMin;
  if (bytes <= kMiB) {
    size_t s = kMin;
    while (s < bytes) s <<= 1;
    return s;
  }
  return ((bytes + kMiB - 1) / kMiB) * kMiB;
}

void PoolAllocator::ReleaseCachedLocked() {
  for (auto& [size, chunks] : free_) {
    for (void* p : chunks) {
      sub_->Free(p, size);
      stats_.bytes_reserved -= static_cast<int64_t>(size);
    }
  }
  free_.clear();
}

void* PoolAllocator::Allocate(size_t bytes) {
  const size_t size = RoundedSize(std::max<size_t>(bytes, 1));
  absl::MutexLock l(&mu_);
  void* p = nullptr;
  auto it = free_.find(size);
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
  } else {
    const int64_t isize = static_cast<int64_t>(size);
    for (int attempt = 0; attempt < 2 && p == nullptr; ++attempt) {
      if (attempt == 1) ReleaseCachedLocked();
      if (stats_.bytes_limit > 0 &&
          stats_.bytes_reserved + isize > stats_.bytes_limit) {
        continue;
      }
      p = sub_->Alloc(size);
    }
    if (p == nullptr) return nullptr;
    ++stats_.num_raw_allocs;
    stats_.bytes_reserved += isize;
  }
  in_use_[p] = size;
  ++stats_.num_allocs;
  stats_.bytes_in_use += static_cast<int64_t>(size);
  stats_.peak_bytes_in_use =
      std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size =
      std::max(stats_.largest_alloc_size, static_cast<int64_t>(size));
  return p;
}

void PoolAllocator::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  absl::MutexLock l(&mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) return;  // Not ours; ignore rather than corrupt.
  const size_t size = it->second;
  in_use_.erase(it);
  stats_.bytes_in_use -= static_cast<int64_t>(size);
  free_[size].push_back(ptr);
}

PoolAllocatorStats PoolAllocator::stats() const {
  absl::MutexLock l(&mu_);
  return stats_;
}

}  // namespace stepflow
