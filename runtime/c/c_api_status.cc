// TF_Status (code, message, payloads), errno mapping and TF_Version.
#include <cerrno>
#include <cstring>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
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

namespace {

// The code TensorFlow reports for an errno value.
absl::StatusCode ErrnoCode(int error_code) {
  switch (error_code) {
    case 0:
      return absl::StatusCode::kOk;
    case EINVAL:
    case ENAMETOOLONG:
    case E2BIG:
    case EDESTADDRREQ:
    case EDOM:
    case EFAULT:
    case EILSEQ:
    case ENOPROTOOPT:
    case ENOSTR:
    case ENOTSOCK:
    case ENOTTY:
    case EPROTOTYPE:
    case ESPIPE:
      return absl::StatusCode::kInvalidArgument;
    case ETIMEDOUT:
    case ETIME:
      return absl::StatusCode::kDeadlineExceeded;
    case ENODEV:
    case ENOENT:
    case ENXIO:
    case ESRCH:
      return absl::StatusCode::kNotFound;
    case EEXIST:
    case EADDRNOTAVAIL:
    case EALREADY:
      return absl::StatusCode::kAlreadyExists;
    case EPERM:
    case EACCES:
    case EROFS:
      return absl::StatusCode::kPermissionDenied;
    case ENOTEMPTY:
    case EPIPE:
    case EISCONN:
    case EBUSY:
    case ECHILD:
    case EISDIR:
    case ENOTCONN:
    case ENOTDIR:
    case ETXTBSY:
    case ENOEXEC:
    case EBADF:
    case ESHUTDOWN:
      return absl::StatusCode::kFailedPrecondition;
    case ENOSPC:
    case EMFILE:
    case EMLINK:
    case ENFILE:
    case ENOBUFS:
    case ENODATA:
    case ENOMEM:
    case ENOSR:
    case EUSERS:
      return absl::StatusCode::kResourceExhausted;
    case EFBIG:
    case EOVERFLOW:
    case ERANGE:
      return absl::StatusCode::kOutOfRange;
    case ENOSYS:
    case ENOTSUP:
    case EAFNOSUPPORT:
    case EPFNOSUPPORT:
    case EPROTONOSUPPORT:
    case ESOCKTNOSUPPORT:
    case EXDEV:
      return absl::StatusCode::kUnimplemented;
    case EAGAIN:
    case ECONNREFUSED:
    case ECONNABORTED:
    case ECONNRESET:
    case EINTR:
    case EHOSTDOWN:
    case EHOSTUNREACH:
    case ENETDOWN:
    case ENETRESET:
    case ENETUNREACH:
    case ENOLCK:
    case ENOLINK:
    case ENONET:
      return absl::StatusCode::kUnavailable;
    case EDEADLK:
    case ESTALE:
      return absl::StatusCode::kAborted;
    case ECANCELED:
      return absl::StatusCode::kCancelled;
    default:
      return absl::StatusCode::kUnknown;
  }
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

extern "C" {

const char* TF_Version(void) { return "2.21.0-stepflow"; }

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

void TF_SetPayload(TF_Status* s, const char* key, const char* value) {
  if (s == nullptr || key == nullptr || s->status.ok()) return;
  s->status.SetPayload(key, absl::Cord(value == nullptr ? "" : value));
}

void TF_ForEachPayload(const TF_Status* s, TF_PayloadVisitor visitor,
                       void* capture) {
  if (s == nullptr || visitor == nullptr) return;
  // Copied out (and sorted) so the visitor sees stable NUL-terminated
  // strings even if it touches the status.
  std::map<std::string, std::string> payloads;
  s->status.ForEachPayload(
      [&payloads](absl::string_view key, const absl::Cord& value) {
        payloads[std::string(key)] = std::string(value);
      });
  for (const auto& [key, value] : payloads) {
    visitor(key.c_str(), value.c_str(), capture);
  }
}

void TF_SetStatusFromIOError(TF_Status* s, int error_code,
                             const char* context) {
  if (s == nullptr) return;
  const absl::StatusCode code = stepflow::c_api::ErrnoCode(error_code);
  if (code == absl::StatusCode::kOk) {
    stepflow::c_api::Set(s, absl::OkStatus());
    return;
  }
  stepflow::c_api::Set(
      s, absl::Status(code, absl::StrCat(context == nullptr ? "" : context,
                                         "; ", std::strerror(error_code))));
}

}  // extern "C"
