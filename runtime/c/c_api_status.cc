// TF_Status and TF_Version.
#include <string>

#include "absl/status/status.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

// TF_Code must mirror absl::StatusCode value for value.
#define SF_CHECK_CODE(tf, absl_code)                                         \
  static_assert(                                                             \
      static_cast<int>(tf) == static_cast<int>(absl::StatusCode::absl_code), \
      #tf)
SF_CHECK_CODE(TF_OK, kOk);
SF_CHECK_CODE(TF_CANCELLED, kCancelled);
SF_CHECK_CODE(TF_UNKNOWN, kUnknown);
SF_CHECK_CODE(TF_INVALID_ARGUMENT, kInvalidArgument);
SF_CHECK_CODE(TF_DEADLINE_EXCEEDED, kDeadlineExceeded);
SF_CHECK_CODE(TF_NOT_FOUND, kNotFound);
SF_CHECK_CODE(TF_ALREADY_EXISTS, kAlreadyExists);
SF_CHECK_CODE(TF_PERMISSION_DENIED, kPermissionDenied);
SF_CHECK_CODE(TF_UNAUTHENTICATED, kUnauthenticated);
SF_CHECK_CODE(TF_RESOURCE_EXHAUSTED, kResourceExhausted);
SF_CHECK_CODE(TF_FAILED_PRECONDITION, kFailedPrecondition);
SF_CHECK_CODE(TF_ABORTED, kAborted);
SF_CHECK_CODE(TF_OUT_OF_RANGE, kOutOfRange);
SF_CHECK_CODE(TF_UNIMPLEMENTED, kUnimplemented);
SF_CHECK_CODE(TF_INTERNAL, kInternal);
SF_CHECK_CODE(TF_UNAVAILABLE, kUnavailable);
SF_CHECK_CODE(TF_DATA_LOSS, kDataLoss);
#undef SF_CHECK_CODE

namespace stepflow {
namespace c_api {

void Set(TF_Status* s, absl::Status status) {
  if (s == nullptr) return;
  s->message = std::string(status.message());
  s->status = std::move(status);
}

}  // namespace c_api
}  // namespace stepflow

extern "C" {

const char* TF_Version(void) { return "1.15.0-stepflow"; }

TF_Status* TF_NewStatus(void) { return new TF_Status; }

void TF_DeleteStatus(TF_Status* s) { delete s; }

void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  if (s == nullptr) return;
  if (code == TF_OK) {
    stepflow::c_api::Set(s, absl::OkStatus());
    return;
  }
  int value = static_cast<int>(code);
  if (value < 1 ||
      value > static_cast<int>(absl::StatusCode::kUnauthenticated)) {
    value = static_cast<int>(absl::StatusCode::kUnknown);
  }
  stepflow::c_api::Set(s, absl::Status(static_cast<absl::StatusCode>(value),
                                       msg == nullptr ? "" : msg));
}

TF_Code TF_GetCode(const TF_Status* s) {
  return s == nullptr ? TF_OK : static_cast<TF_Code>(s->status.code());
}

const char* TF_Message(const TF_Status* s) {
  return s == nullptr ? "" : s->message.c_str();
}

}  // extern "C"
