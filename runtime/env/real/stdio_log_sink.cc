#include "runtime/env/real/stdio_log_sink.h"

#include <cstdio>

namespace stepflow {

void StdioLogSink::Write(LogStream stream, absl::string_view text) {
  std::FILE* f = stream == LogStream::kStdout ? stdout : stderr;
  absl::MutexLock lock(&mu_);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fflush(f);
}

}  // namespace stepflow
