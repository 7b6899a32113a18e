/* TF_Status: the outcome of a C API call (a code, a message and optional
 * key/value payloads).
 *
 * Every function that can fail takes a TF_Status* (usually last) and
 * overwrites it: TF_OK on success, otherwise a code below and a message
 * naming the offending object. A NULL status is accepted and ignored.
 * Ownership: TF_NewStatus returns a status owned by the caller, freed with
 * TF_DeleteStatus (NULL is a no-op). Strings returned by TF_Message and
 * passed to payload visitors belong to the status and stay valid until it
 * is next modified or deleted.
 * Thread-safety: a TF_Status is not synchronised; use one per thread. */
#ifndef TENSORFLOW_C_TF_STATUS_H_
#define TENSORFLOW_C_TF_STATUS_H_

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Status TF_Status;

/* Error codes; the values are those of TensorFlow's error codes (and of
 * absl::StatusCode). */
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15
} TF_Code;

/* A new status with code TF_OK and no payloads. */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);
TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status*);

/* Sets code and message (NULL msg is ""). TF_OK clears the message and the
 * payloads. A code outside TF_Code becomes TF_UNKNOWN. Setting an error
 * keeps no payloads of the previous error. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code,
                                        const char* msg);

/* Attaches payload `value` under `key` (replacing an existing one). Ignored
 * while the status is TF_OK, as payloads only accompany errors. */
TF_CAPI_EXPORT extern void TF_SetPayload(TF_Status* s, const char* key,
                                         const char* value);

/* Called once per payload, in key order, with the caller's `capture`. */
typedef void (*TF_PayloadVisitor)(const char* key, const char* value,
                                  void* capture);
TF_CAPI_EXPORT extern void TF_ForEachPayload(const TF_Status* s,
                                             TF_PayloadVisitor visitor,
                                             void* capture);

/* Sets `s` from an errno value: the code TensorFlow maps it to (e.g.
 * ENOENT -> TF_NOT_FOUND, EACCES -> TF_PERMISSION_DENIED) and the message
 * "<context>; <strerror(error_code)>". */
TF_CAPI_EXPORT extern void TF_SetStatusFromIOError(TF_Status* s, int error_code,
                                                   const char* context);

/* The code (TF_OK for a NULL status). */
TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);

/* The message, "" for TF_OK. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_STATUS_H_ */
