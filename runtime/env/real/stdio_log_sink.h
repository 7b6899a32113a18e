// StdioLogSink: the production LogSink. kStdout text goes to stdout, every
// other stream (stderr and the log levels) to stderr, each Write flushed.
// Thread-safe: one Write is one locked, flushed fwrite.
#ifndef STEPFLOW_RUNTIME_ENV_REAL_STDIO_LOG_SINK_H_
#define STEPFLOW_RUNTIME_ENV_REAL_STDIO_LOG_SINK_H_

#include "absl/synchronization/mutex.h"
#include "runtime/env/log_sink.h"

namespace stepflow {

class StdioLogSink : public LogSink {
 public:
  void Write(LogStream stream, absl::string_view text) override;

 private:
  absl::Mutex mu_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_STDIO_LOG_SINK_H_
