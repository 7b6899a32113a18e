#include "runtime/env/real/heap_trimmer.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>

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
  Usage usage{info.fordblks, info.uordblks, 0};
  // "size resident shared text lib data dt", in pages. Read without stdio:
  // the trimmer must not allocate while it measures the heap.
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return usage;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return usage;
  buf[n] = '\0';
  char* end = nullptr;
  std::strtoul(buf, &end, 10);  // size
  const unsigned long resident_pages = std::strtoul(end, nullptr, 10);
  usage.resident_bytes = static_cast<size_t>(resident_pages) *
                         static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return usage;
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
                       Distance(now.free_bytes, at_trim.free_bytes) > slack ||
                       now.resident_bytes > at_trim.resident_bytes + slack;
    previous = now;
    if (!idle || !moved || now.free_bytes <= options_.keep_free_bytes) {
      continue;
    }
    mu_.Unlock();
    releaser_.ReleaseFreeHeap();
    mu_.Lock();
    ++trims_;
    trimmed_before = true;
    at_trim = HeapUsage();
    previous = at_trim;
  }
}

}  // namespace stepflow
