/* TF_Tensor: an n-dimensional array of one element type, stored contiguously
 * in row-major order.
 *
 * Storage. Numeric and boolean tensors hold elements * TF_DataTypeSize bytes.
 * TF_STRING tensors hold one TF_TString (tf_tstring.h, 24 bytes) per
 * element; a tensor from TF_AllocateTensor starts with empty strings and
 * frees what its strings own when deleted, while for TF_NewTensor the
 * caller's deallocator is responsible for the strings.
 *
 * Alignment. Storage the runtime allocates is aligned to
 * TF_TensorDefaultAlignment() bytes. TF_NewTensor given a fixed-size type
 * and data that is not so aligned copies the data into aligned storage and
 * calls the deallocator at once.
 *
 * Ownership: each TF_Tensor* returned to the caller is freed with
 * TF_DeleteTensor (NULL is a no-op). Several tensors may share storage
 * (TF_TensorBitcastFrom, feeds and fetches); the storage is released when
 * the last of them is deleted.
 * Thread-safety: not synchronised; tensors sharing storage see each other's
 * writes. Accessors tolerate a NULL tensor (0 / NULL / -1). */
#ifndef TENSORFLOW_C_TF_TENSOR_H_
#define TENSORFLOW_C_TF_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a kernel's allocation should live (used by kernel plugins). */
typedef struct TF_AllocatorAttributes {
  size_t struct_size;
  TF_Bool on_host;
} TF_AllocatorAttributes;

#define TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE \
  TF_OFFSET_OF_END(TF_AllocatorAttributes, on_host)

typedef struct TF_Tensor TF_Tensor;

/* A tensor over the caller's data[0, len). deallocator(data, len,
 * deallocator_arg) is called once the tensor no longer needs the data (at
 * the last TF_DeleteTensor of tensors sharing it, at once if the data was
 * copied for alignment, or at once on failure). `len` must be at least
 * elements * TF_DataTypeSize(dtype) (elements * sizeof(TF_TString) for
 * TF_STRING); extra bytes are ignored. NULL for a negative dimension, an
 * invalid type or too small a `len`. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(
    TF_DataType, const int64_t* dims, int num_dims, void* data, size_t len,
    void (*deallocator)(void* data, size_t len, void* arg),
    void* deallocator_arg);

/* The alignment, in bytes, of storage the runtime allocates. */
TF_CAPI_EXPORT extern size_t TF_TensorDefaultAlignment(void);

/* A tensor owning `len` zeroed, aligned bytes (empty strings for
 * TF_STRING). NULL under the same conditions as TF_NewTensor. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType,
                                                   const int64_t* dims,
                                                   int num_dims, size_t len);

/* `tensor` itself if it is the sole owner of runtime-allocated storage (so
 * its buffer may be reused as an output), else NULL. Ownership does not
 * change either way. */
TF_CAPI_EXPORT extern TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor);

TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor*);

TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor*);

/* Reshapes in place. Ignored when a dimension is negative or the element
 * count would change (the storage is never resized). */
TF_CAPI_EXPORT extern void TF_SetShape(TF_Tensor* tensor, const int64_t* dims,
                                       int num_dims);

TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor*);

/* Size of dimension `dim_index`; -1 if it is out of range. */
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);

/* Bytes of storage (elements * sizeof(TF_TString) for TF_STRING). */
TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor*);

/* The storage (NULL for a NULL tensor; may be NULL with no elements). */
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor*);

TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);

/* Makes `to` share `from`'s storage with element type `type` and shape
 * new_dims. TF_INVALID_ARGUMENT (with `to` unchanged) if either type has no
 * fixed element size or the byte sizes differ. */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from,
                                                TF_DataType type, TF_Tensor* to,
                                                const int64_t* new_dims,
                                                int num_new_dims,
                                                TF_Status* status);

/* True if the storage is aligned to TF_TensorDefaultAlignment(). */
TF_CAPI_EXPORT extern bool TF_TensorIsAligned(const TF_Tensor*);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_TENSOR_H_ */
