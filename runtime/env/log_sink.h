// LogSink: where the logging ops' text goes (Print, PrintV2). The runtime
// never writes to the process's streams itself: production binaries
// install a sink that writes to stdout/stderr (runtime/env/real), the
// simulator and tests one that keeps the text.
//
// Write() takes the text exactly as it should appear (newlines included)
// and must be safe to call from any thread; lines of concurrent callers
// must not interleave within one call.
#ifndef STEPFLOW_RUNTIME_ENV_LOG_SINK_H_
#define STEPFLOW_RUNTIME_ENV_LOG_SINK_H_

#include "absl/strings/string_view.h"

namespace stepflow {

// The destinations TensorFlow's logging ops name.
enum class LogStream {
  kStdout,
  kStderr,
  kInfo,     // "log(info)"
  kWarning,  // "log(warning)"
  kError,    // "log(error)"
};

class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Write(LogStream stream, absl::string_view text) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_LOG_SINK_H_
