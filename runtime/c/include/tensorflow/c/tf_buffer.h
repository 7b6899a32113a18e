/* TF_Buffer: a block of bytes passed across the C API, typically a
 * serialized protocol buffer (GraphDef, OpList, RunOptions, ...).
 *
 * Ownership: buffers from TF_NewBuffer* belong to the caller and are freed
 * with TF_DeleteBuffer, which first calls data_deallocator(data, length) if
 * it is set. A function that fills a caller's buffer frees the bytes it held
 * (through its deallocator) and installs bytes that TF_DeleteBuffer frees.
 * Thread-safety: not synchronised. */
#ifndef TENSORFLOW_C_TF_BUFFER_H_
#define TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A buffer owning a copy of proto[0, proto_len). */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto,
                                                        size_t proto_len);

/* An empty buffer (data NULL, length 0, no deallocator). */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);

TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer*);

/* A copy of the struct (the bytes are not copied). */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_BUFFER_H_ */
