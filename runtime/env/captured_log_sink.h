// CapturedLogSink: a LogSink that keeps what is written, for the simulator
// and tests (which must not write to the process's streams). Thread-safe.
#ifndef STEPFLOW_RUNTIME_ENV_CAPTURED_LOG_SINK_H_
#define STEPFLOW_RUNTIME_ENV_CAPTURED_LOG_SINK_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "runtime/env/log_sink.h"

namespace stepflow {

class CapturedLogSink : public LogSink {
 public:
  struct Entry {
    LogStream stream;
    std::string text;
  };

  void Write(LogStream stream, absl::string_view text) override {
    absl::MutexLock lock(&mu_);
    entries_.push_back({stream, std::string(text)});
  }

  // Every Write so far, in order.
  std::vector<Entry> entries() const {
    absl::MutexLock lock(&mu_);
    return entries_;
  }

  // The concatenated text written to `stream`.
  std::string Text(LogStream stream) const {
    absl::MutexLock lock(&mu_);
    std::string out;
    for (const Entry& e : entries_) {
      if (e.stream == stream) out += e.text;
    }
    return out;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<Entry> entries_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_CAPTURED_LOG_SINK_H_
