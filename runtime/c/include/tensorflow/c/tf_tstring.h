/* TF_TString: the 24-byte string element of TF_STRING tensors, with
 * TensorFlow's layout, so TF_STRING tensor buffers are interchangeable with
 * TensorFlow's.
 *
 * Representations (the low two bits of the first byte select one; sizes
 * are stored shifted left by two on little-endian machines):
 *  - SMALL: up to TF_TString_SmallCapacity (22) bytes inline, NUL-ended;
 *  - LARGE: a malloc'd NUL-ended buffer with a capacity of 16k - 1 bytes;
 *  - OFFSET: bytes located `offset` bytes after the TF_TString itself
 *    (read-only, used for serialized buffers);
 *  - VIEW: a borrowed pointer (read-only; the caller keeps it alive).
 * An all-zero TF_TString is a valid empty SMALL string (what
 * TF_TString_Init writes and TF_AllocateTensor provides).
 *
 * Ownership: a SMALL or LARGE string owns its bytes; TF_TString_Dealloc (or
 * TF_StringDealloc) frees a LARGE string's buffer and must be called before
 * an owned TF_TString is discarded. Functions here take non-NULL pointers.
 * Thread-safety: not synchronised. */
#ifndef TENSORFLOW_C_TF_TSTRING_H_
#define TENSORFLOW_C_TF_TSTRING_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_TString_Type {
  TF_TSTR_SMALL = 0x00,
  TF_TSTR_LARGE = 0x01,
  TF_TSTR_OFFSET = 0x02,
  TF_TSTR_VIEW = 0x03,
  TF_TSTR_TYPE_MASK = 0x03
} TF_TString_Type;

typedef struct TF_TString_Large {
  size_t size;
  size_t cap;
  char* ptr;
} TF_TString_Large;

typedef struct TF_TString_Offset {
  uint32_t size;
  uint32_t offset;
  uint32_t count;
} TF_TString_Offset;

/* owner_ref is reserved (always NULL here): views never own their bytes. */
typedef struct TF_TString_View {
  size_t size;
  const char* ptr;
  void* owner_ref;
} TF_TString_View;

typedef struct TF_TString_Raw {
  uint8_t raw[24];
} TF_TString_Raw;

enum { TF_TString_SmallCapacity = 22 };

typedef struct TF_TString_Small {
  uint8_t size;
  char str[TF_TString_SmallCapacity + 1];
} TF_TString_Small;

typedef struct TF_TString {
  union {
    TF_TString_Small smll;
    TF_TString_Large large;
    TF_TString_Offset offset;
    TF_TString_View view;
    TF_TString_Raw raw;
  } u;
} TF_TString;

/* --- Element operations (TensorFlow's TF_TString_* names) ---------------- */

/* Makes `str` an empty SMALL string (does not free what it held). */
TF_CAPI_EXPORT extern void TF_TString_Init(TF_TString* str);
/* Frees a LARGE string's buffer; `str` must be re-initialised to reuse. */
TF_CAPI_EXPORT extern void TF_TString_Dealloc(TF_TString* str);
TF_CAPI_EXPORT extern TF_TString_Type TF_TString_GetType(const TF_TString* str);
TF_CAPI_EXPORT extern size_t TF_TString_GetSize(const TF_TString* str);
/* Bytes storable without reallocating (0 for OFFSET and VIEW). */
TF_CAPI_EXPORT extern size_t TF_TString_GetCapacity(const TF_TString* str);
TF_CAPI_EXPORT extern const char* TF_TString_GetDataPointer(
    const TF_TString* str);
/* A writable pointer; turns OFFSET and VIEW strings into owned copies. */
TF_CAPI_EXPORT extern char* TF_TString_GetMutableDataPointer(TF_TString* str);
/* Resizes to `new_size` bytes, keeping the common prefix; new bytes are
 * unspecified (ResizeUninitialized) or `c` (Resize). Returns the data. */
TF_CAPI_EXPORT extern char* TF_TString_ResizeUninitialized(TF_TString* str,
                                                           size_t new_size);
TF_CAPI_EXPORT extern char* TF_TString_Resize(TF_TString* str, size_t new_size,
                                              char c);
/* Ensures capacity for `new_cap` bytes (no-op for the small capacity). */
TF_CAPI_EXPORT extern void TF_TString_Reserve(TF_TString* str, size_t new_cap);
/* Copies src[0, size) into `dst` (SMALL or LARGE). */
TF_CAPI_EXPORT extern void TF_TString_Copy(TF_TString* dst, const char* src,
                                           size_t size);
/* Makes `dst` a VIEW of src[0, size) (no copy; the caller keeps src). */
TF_CAPI_EXPORT extern void TF_TString_AssignView(TF_TString* dst,
                                                 const char* src, size_t size);
/* Makes `dst` equal to `src`: SMALL and VIEW are copied as they are, LARGE
 * is deep-copied, OFFSET becomes a VIEW of src's bytes. */
TF_CAPI_EXPORT extern void TF_TString_Assign(TF_TString* dst,
                                             const TF_TString* src);
/* Moves `src` into `dst`; `src` is left empty (OFFSET becomes a VIEW). */
TF_CAPI_EXPORT extern void TF_TString_Move(TF_TString* dst, TF_TString* src);
TF_CAPI_EXPORT extern void TF_TString_AppendN(TF_TString* dst, const char* src,
                                              size_t size);
TF_CAPI_EXPORT extern void TF_TString_Append(TF_TString* dst,
                                             const TF_TString* src);

/* --- The exported C API names ------------------------------------------- */

TF_CAPI_EXPORT extern void TF_StringInit(TF_TString* t);
TF_CAPI_EXPORT extern void TF_StringCopy(TF_TString* dst, const char* src,
                                         size_t size);
TF_CAPI_EXPORT extern void TF_StringAssignView(TF_TString* dst, const char* src,
                                               size_t size);
TF_CAPI_EXPORT extern const char* TF_StringGetDataPointer(
    const TF_TString* tstr);
TF_CAPI_EXPORT extern TF_TString_Type TF_StringGetType(const TF_TString* str);
TF_CAPI_EXPORT extern size_t TF_StringGetSize(const TF_TString* tstr);
TF_CAPI_EXPORT extern size_t TF_StringGetCapacity(const TF_TString* str);
TF_CAPI_EXPORT extern void TF_StringDealloc(TF_TString* tstr);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_TSTRING_H_ */
