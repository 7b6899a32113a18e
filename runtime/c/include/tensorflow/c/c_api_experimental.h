/* The commonly used part of TensorFlow's experimental C API, with the same
 * names and signatures. Same conventions as c_api.h: caller-owned results
 * are freed with the matching TF_Delete* (or free() where stated); misuse is
 * reported through the TF_Status and never crashes. */
#ifndef TENSORFLOW_C_C_API_EXPERIMENTAL_H_
#define TENSORFLOW_C_C_API_EXPERIMENTAL_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* XLA is not part of this runtime: accepted and ignored. */
TF_CAPI_EXPORT extern void TF_EnableXLACompilation(TF_SessionOptions* options,
                                                   unsigned char enable);

/* A serialized ConfigProto (caller-owned): XLA (ignored here), GPU memory
 * growth and a thread count for the CPU pools (0 lets the runtime choose). */
TF_CAPI_EXPORT extern TF_Buffer* TF_CreateConfig(
    unsigned char enable_xla_compilation, unsigned char gpu_memory_allow_growth,
    unsigned int num_cpu_devices);

/* A serialized RunOptions (caller-owned); enable_full_trace asks for
 * FULL_TRACE. */
TF_CAPI_EXPORT extern TF_Buffer* TF_CreateRunOptions(
    unsigned char enable_full_trace);

/* A text dump of the graph (the GraphDef in text format). The string is
 * malloc'd and owned by the caller (free()); *len receives its length. */
TF_CAPI_EXPORT extern const char* TF_GraphDebugString(TF_Graph* graph,
                                                      size_t* len);

/* Sets `status` to TF_INTERNAL with `errMsg`. */
TF_CAPI_EXPORT extern void TF_MakeInternalErrorStatus(TF_Status* status,
                                                      const char* errMsg);

/* 1 if op_type is stateful, 0 if not; TF_NOT_FOUND for unknown ops. */
TF_CAPI_EXPORT extern int TF_OpIsStateful(const char* op_type,
                                          TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_C_API_EXPERIMENTAL_H_ */
