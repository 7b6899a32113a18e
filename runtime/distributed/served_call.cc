#include "runtime/distributed/served_call.h"

#include <string>

#include "absl/base/call_once.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"
#include "runtime/distributed/methods.h"

namespace stepflow {
namespace {

// While this thread parses a request: where protobuf's complaint about it
// goes (for the error), instead of the process's log.
thread_local std::string* parse_complaint = nullptr;
google::protobuf::LogHandler* previous_log_handler = nullptr;

void CaptureParseComplaints(google::protobuf::LogLevel level,
                            const char* filename, int line,
                            const std::string& message) {
  if (parse_complaint != nullptr) {
    if (parse_complaint->empty()) *parse_complaint = message;
    return;
  }
  if (previous_log_handler != nullptr) {
    previous_log_handler(level, filename, line, message);
  }
}

void InstallParseComplaintCapture() {
  static absl::once_flag once;
  absl::call_once(once, [] {
    previous_log_handler =
        google::protobuf::SetLogHandler(&CaptureParseComplaints);
  });
}

}  // namespace

absl::Status ParseServedCall(
    absl::string_view method,
    google::protobuf::io::ZeroCopyInputStream* request_bytes,
    ServedCall* call) {
  *call = ServedCall();
  std::unique_ptr<google::protobuf::Message> request;
  std::unique_ptr<google::protobuf::Message> response;
  absl::Status s = NewRequestAndResponse(method, &request, &response);
  if (!s.ok()) return s;
  InstallParseComplaintCapture();
  std::string complaint;
  parse_complaint = &complaint;
  const bool parsed = request->ParseFromZeroCopyStream(request_bytes);
  parse_complaint = nullptr;
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", method, " request",
                     complaint.empty() ? "" : absl::StrCat(": ", complaint)));
  }
  call->method = std::string(method);
  call->request = std::move(request);
  call->response = std::move(response);
  return absl::OkStatus();
}

}  // namespace stepflow
