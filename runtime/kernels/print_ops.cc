// Print and PrintV2: the logging ops. Their text goes to the Env's
// LogSink (dropped when it has none); the runtime never writes to the
// process's streams itself.
//
// Print passes its first input through and writes
// "<message>[<data 0>][<data 1>]...\n" to stderr, each data input
// summarized to its first `summarize` values (SummarizeForPrint); with
// first_n >= 0 only the kernel's first first_n runs write.
//
// PrintV2 writes its scalar string input followed by `end` to
// `output_stream`: "stdout", "stderr", "log(info)", "log(warning)",
// "log(error)", or "file://<path>" (appended to that file).
//
// Errors: an unknown output_stream is InvalidArgument at construction; a
// PrintV2 input that is not a scalar InvalidArgument; a file that cannot
// be appended to an IO error naming it. All name the node.
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/log_sink.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/tensor_summary.h"

namespace stepflow {
namespace {

void WriteLog(OpKernelContext* ctx, LogStream stream, absl::string_view text) {
  LogSink* sink = ctx->env() == nullptr ? nullptr : ctx->env()->log_sink;
  if (sink != nullptr) sink->Write(stream, text);
}

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("first_n", &first_n_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0) {
      absl::MutexLock lock(&mu_);
      if (printed_ >= first_n_) return;
      ++printed_;
    }
    std::string msg = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", SummarizeForPrint(ctx->input(i), summarize_),
                      "]");
    }
    msg += "\n";
    WriteLog(ctx, LogStream::kStderr, msg);
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  absl::Mutex mu_;
  int64_t printed_ = 0;  // Guarded by mu_.
};

REGISTER_KERNEL_BUILDER(Name("Print").Device(DEVICE_CPU), PrintOp);

constexpr const char* kStreams[] = {"stdout", "stderr", "log(info)",
                                    "log(warning)", "log(error)"};
constexpr LogStream kStreamIds[] = {LogStream::kStdout, LogStream::kStderr,
                                    LogStream::kInfo, LogStream::kWarning,
                                    LogStream::kError};

class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string output_stream;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_stream", &output_stream));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end", &end_));
    if (absl::StartsWith(output_stream, "file://")) {
      file_path_ = output_stream.substr(7);
      return;
    }
    for (size_t i = 0; i < sizeof(kStreams) / sizeof(kStreams[0]); ++i) {
      if (output_stream == kStreams[i]) {
        stream_ = kStreamIds[i];
        return;
      }
    }
    std::string msg = absl::StrCat("Unknown output stream: ", output_stream,
                                   ", Valid streams are:");
    for (const char* s : kStreams) absl::StrAppend(&msg, " ", s);
    ctx->SetStatus(NodeInvalidArgument(*this, msg));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(
        ctx, input.dims() == 0,
        NodeInvalidArgument(ctx, "Input is expected to be scalar, but got ",
                            input.shape().DebugString()));
    const std::string text =
        absl::StrCat(input.base<const std::string>()[0], end_);
    if (file_path_.empty()) {
      WriteLog(ctx, stream_, text);
      return;
    }
    std::FILE* f = std::fopen(file_path_.c_str(), "ab");
    bool ok = f != nullptr;
    if (ok) {
      ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
      ok = (std::fclose(f) == 0) && ok;
    }
    OP_REQUIRES(ctx, ok,
                NodeError(absl::StatusCode::kFailedPrecondition, *this,
                          "could not append to ", file_path_));
  }

 private:
  std::string end_;
  std::string file_path_;  // Set for "file://" streams.
  LogStream stream_ = LogStream::kStderr;
};

REGISTER_KERNEL_BUILDER(Name("PrintV2").Device(DEVICE_CPU), PrintV2Op);

}  // namespace
}  // namespace stepflow
