// HeapTrimmer: hands a long-running process's idle heap back to the kernel.
//
// TuneMallocForTensors (malloc_tuning.h) keeps freed memory inside the
// process so that per-step tensor buffers are reused without page faults.
// The price is that memory freed once (2,000 sessions a client abandoned
// and the server later collected, a large message rejected) stays resident
// for good. A HeapTrimmer samples the allocator every `interval` and calls
// malloc_trim(0), which returns the whole free pages in every arena's free
// lists and the main arena's top (glibc never trims the top of a per-thread
// arena, so memory freed there stays resident), when the heap is idle and holds
// memory worth returning: more than `keep_free_bytes` free, bytes in use within
// `idle_slack_bytes` of the previous sample (no steps are allocating, so
// buffers a running model reuses are left alone), and the heap has moved
// since the last trim: bytes in use or free, or resident memory regrown, by
// more than `idle_slack_bytes` (so an idle heap is trimmed once, and a heap
// that served a burst of work since, even one that ends with the same free
// and used bytes, is trimmed again).
//
// Only production main()s start one (the allocator belongs to the binary).
// Thread-safety: Start() and the destructor are called from one thread; the
// trimmer runs on a thread of its own, which the destructor stops and joins.
#ifndef STEPFLOW_RUNTIME_ENV_REAL_HEAP_TRIMMER_H_
#define STEPFLOW_RUNTIME_ENV_REAL_HEAP_TRIMMER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/env/real/malloc_trim_releaser.h"

namespace stepflow {

class HeapTrimmer {
 public:
  struct Options {
    absl::Duration interval = absl::Seconds(1);
    size_t keep_free_bytes = size_t{1} << 20;
    size_t idle_slack_bytes = size_t{1} << 20;
  };

  // Starts the trimming thread. `interval` must be positive.
  static std::unique_ptr<HeapTrimmer> Start(const Options& options);
  ~HeapTrimmer();

  HeapTrimmer(const HeapTrimmer&) = delete;
  HeapTrimmer& operator=(const HeapTrimmer&) = delete;

  // Bytes the allocator holds free / in use, across all arenas (mallinfo2's
  // fordblks / uordblks), and the process's resident set (/proc/self/statm;
  // 0 where it cannot be read).
  struct Usage {
    size_t free_bytes = 0;
    size_t used_bytes = 0;
    size_t resident_bytes = 0;
  };
  static Usage HeapUsage();

  // How many times the heap has been trimmed so far.
  int64_t trims() const;

 private:
  explicit HeapTrimmer(const Options& options);
  void Loop();

  const Options options_;
  MallocTrimReleaser releaser_;
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t trims_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_HEAP_TRIMMER_H_
