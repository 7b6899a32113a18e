#include "runtime/distributed/served_call.h"

#include "absl/strings/str_cat.h"
#include "runtime/distributed/methods.h"

namespace stepflow {

absl::Status ParseServedCall(
    absl::string_view method,
    google::protobuf::io::ZeroCopyInputStream* request_bytes,
    ServedCall* call) {
  *call = ServedCall();
  std::unique_ptr<google::protobuf::Message> request;
  std::unique_ptr<google::protobuf::Message> response;
  absl::Status s = NewRequestAndResponse(method, &request, &response);
  if (!s.ok()) return s;
  if (!request->ParseFromZeroCopyStream(request_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", method, " request"));
  }
  call->method = std::string(method);
  call->request = std::move(request);
  call->response = std::move(response);
  return absl::OkStatus();
}

}  // namespace stepflow
