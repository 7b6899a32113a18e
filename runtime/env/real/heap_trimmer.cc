#include "runtime/env/real/heap_trimmer.h"

#include <malloc.h>

namespace stepflow {

std::unique_ptr<HeapTrimmer> HeapTrimmer::Start(const Options& options) {
  return std::unique_ptr<HeapTrimmer>(new HeapTrimmer(options));
}

HeapTrimmer::HeapTrimmer(const Options& options)
    : options_(options), thread_([this] { Loop(); }) {}

HeapTrimmer::~HeapTrimmer() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  thread_.join();
}

HeapTrimmer::Usage HeapTrimmer::HeapUsage() {
  const struct mallinfo2 info = mallinfo2();
  return Usage{info.fordblks, info.uordblks};
}

namespace {

size_t Distance(size_t a, size_t b) { return a > b ? a - b : b - a; }

}  // namespace

int64_t HeapTrimmer::trims() const {
  absl::MutexLock l(&mu_);
  return trims_;
}

void HeapTrimmer::Loop() {
  const size_t slack = options_.idle_slack_bytes;
  Usage previous = HeapUsage();
  bool trimmed_before = false;
  Usage at_trim;
  absl::MutexLock l(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stop_), options_.interval)) {
    const Usage now = HeapUsage();
    const bool idle = Distance(now.used_bytes, previous.used_bytes) <= slack;
    const bool moved = !trimmed_before ||
                       Distance(now.used_bytes, at_trim.used_bytes) > slack ||
                       Distance(now.free_bytes, at_trim.free_bytes) > slack;
    previous = now;
    if (!idle || !moved || now.free_bytes <= options_.keep_free_bytes) {
      continue;
    }
    mu_.Unlock();
    malloc_trim(0);
    mu_.Lock();
    ++trims_;
    trimmed_before = true;
    at_trim = HeapUsage();
    previous = at_trim;
  }
}

}  // namespace stepflow
