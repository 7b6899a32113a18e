/* TensorFlow's experimental C API without its eager (TFE_*) functions, with
 * the same names and signatures. Same conventions as c_api.h: caller-owned
 * results are freed with the matching TF_Delete* (or free() where stated);
 * misuse is reported through the TF_Status and never crashes. */
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

/* ---------------------------------------------------------------- XLA */
/* There is no XLA compiler here: each switch keeps its value (TensorFlow's
 * defaults: lazy compilation on, CPU global JIT off, auto-JIT off, constant
 * folding on) and nothing is compiled. The setters of a flag return its
 * previous value. */
TF_CAPI_EXPORT unsigned char TF_SetXlaEnableLazyCompilation(
    unsigned char enable);
TF_CAPI_EXPORT unsigned char TF_SetTfXlaCpuGlobalJit(unsigned char enable);
TF_CAPI_EXPORT void TF_SetXlaAutoJitMode(const char* mode);
TF_CAPI_EXPORT unsigned char TF_GetXlaAutoJitEnabled();
TF_CAPI_EXPORT void TF_SetXlaMinClusterSize(int size);
TF_CAPI_EXPORT unsigned char TF_GetXlaConstantFoldingDisabled();
TF_CAPI_EXPORT void TF_SetXlaConstantFoldingDisabled(
    unsigned char should_enable);

/* The FunctionDef as text; *len is its length. The caller frees the result
 * with free(). */
TF_CAPI_EXPORT extern char* TF_FunctionDebugString(TF_Function* func,
                                                   size_t* len);

/* Named-tensor queues: runs the session's "fifo_queue_dequeue_<id>" (fetch)
 * or feeds "arg_tensor_enqueue_<id>" and runs "fifo_queue_enqueue_<id>".
 * The caller owns the returned tensor; the enqueued one stays the
 * caller's. */
TF_CAPI_EXPORT extern TF_Tensor* TF_DequeueNamedTensor(TF_Session* session,
                                                       int tensor_id,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern void TF_EnqueueNamedTensor(TF_Session* session,
                                                 int tensor_id,
                                                 TF_Tensor* tensor,
                                                 TF_Status* status);

/* ---------------------------------------------------- checkpoint reader */
/* Reads a checkpoint written by a Saver (V2 format: PREFIX.index and its
 * data files). Variables are listed by name in sorted order. A missing
 * checkpoint is TF_NOT_FOUND. The strings returned stay valid until the
 * reader is deleted. */
typedef struct TF_CheckpointReader TF_CheckpointReader;
TF_CAPI_EXPORT extern TF_CheckpointReader* TF_NewCheckpointReader(
    const char* filename, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteCheckpointReader(
    TF_CheckpointReader* reader);
TF_CAPI_EXPORT extern int TF_CheckpointReaderHasTensor(
    TF_CheckpointReader* reader, const char* name);
/* The name of variable `index` (0 <= index < TF_CheckpointReaderSize). */
TF_CAPI_EXPORT extern const char* TF_CheckpointReaderGetVariable(
    TF_CheckpointReader* reader, int index);
TF_CAPI_EXPORT extern int TF_CheckpointReaderSize(TF_CheckpointReader* reader);
/* 0 for an unknown variable. */
TF_CAPI_EXPORT extern TF_DataType TF_CheckpointReaderGetVariableDataType(
    TF_CheckpointReader* reader, const char* name);
/* num_dims must be the variable's rank (TF_INVALID_ARGUMENT otherwise). */
TF_CAPI_EXPORT extern void TF_CheckpointReaderGetVariableShape(
    TF_CheckpointReader* reader, const char* name, int64_t* dims, int num_dims,
    TF_Status* status);
/* -1 for an unknown variable. */
TF_CAPI_EXPORT extern int TF_CheckpointReaderGetVariableNumDims(
    TF_CheckpointReader* reader, const char* name);
/* A new tensor the caller owns; TF_NOT_FOUND for an unknown variable. */
TF_CAPI_EXPORT extern TF_Tensor* TF_CheckpointReaderGetTensor(
    TF_CheckpointReader* reader, const char* name, TF_Status* status);

/* ------------------------------------------------------ attr builders */
/* An op's attrs, checked against the kernels registered for a device type
 * ("CPU", "GPU"): TF_NOT_FOUND when no kernel accepts them. */
typedef struct TF_AttrBuilder TF_AttrBuilder;
TF_CAPI_EXPORT extern TF_AttrBuilder* TF_NewAttrBuilder(const char* op_name);
TF_CAPI_EXPORT extern void TF_DeleteAttrBuilder(TF_AttrBuilder* builder);
TF_CAPI_EXPORT extern void TF_AttrBuilderSetType(TF_AttrBuilder* builder,
                                                 const char* attr_name,
                                                 TF_DataType value);
TF_CAPI_EXPORT extern void TF_AttrBuilderSetTypeList(TF_AttrBuilder* builder,
                                                     const char* attr_name,
                                                     const TF_DataType* values,
                                                     int num_values);
TF_CAPI_EXPORT extern void TF_AttrBuilderCheckCanRunOnDevice(
    TF_AttrBuilder* builder, const char* device_type, TF_Status* status);

/* The number attr ("N") of list input `input_index` of `op_name`: a string
 * owned by the op registry. TF_NOT_FOUND for an unknown op or an input that
 * is not a list of one type; TF_INVALID_ARGUMENT for a bad index. */
TF_CAPI_EXPORT extern const char* TF_GetNumberAttrForOpListInput(
    const char* op_name, int input_index, TF_Status* status);

/* 1 if op_type is stateful, 0 if not; TF_NOT_FOUND for unknown ops. */
TF_CAPI_EXPORT extern int TF_OpIsStateful(const char* op_type,
                                          TF_Status* status);

/* stepflow's library reads no flags: argc and argv are left unchanged. */
TF_CAPI_EXPORT void TF_InitMain(const char* usage, int* argc, char*** argv);

/* A loopback TCP port nothing is bound to now; aborts if there is none. */
TF_CAPI_EXPORT int TF_PickUnusedPortOrDie(void);

/* --------------------------------------------------- shape-and-type lists */
struct TF_ShapeAndType {
  /* Number of dimensions; -1 for an unknown rank. */
  int num_dims;
  /* num_dims dimensions, -1 for an unknown one. */
  int64_t* dims;
  /* 0 when unknown. */
  TF_DataType dtype;
};
typedef struct TF_ShapeAndType TF_ShapeAndType;

struct TF_ShapeAndTypeList {
  int num_items;
  TF_ShapeAndType* items;
};
typedef struct TF_ShapeAndTypeList TF_ShapeAndTypeList;

/* A list of num_shapes items of rank 0 and type 0. */
TF_CAPI_EXPORT extern TF_ShapeAndTypeList* TF_NewShapeAndTypeList(
    int num_shapes);
TF_CAPI_EXPORT extern void TF_ShapeAndTypeListSetShape(
    TF_ShapeAndTypeList* shape_list, int index, const int64_t* dims,
    int num_dims);
TF_CAPI_EXPORT extern void TF_ShapeAndTypeListSetUnknownShape(
    TF_ShapeAndTypeList* shape_list, int index);
TF_CAPI_EXPORT extern void TF_ShapeAndTypeListSetDtype(
    TF_ShapeAndTypeList* shape_list, int index, TF_DataType dtype);
TF_CAPI_EXPORT extern void TF_DeleteShapeAndTypeList(
    TF_ShapeAndTypeList* shape_list);
/* Deletes each list and then the array, which the caller allocated with
 * malloc(). */
TF_CAPI_EXPORT extern void TF_DeleteShapeAndTypeListArray(
    TF_ShapeAndTypeList** shape_list_array, int num_items);

/* Off: a node colocated with a node that is neither imported nor in the
 * graph imports anyway (on by default: TF_INVALID_ARGUMENT). */
TF_CAPI_EXPORT extern void
TF_ImportGraphDefOptionsSetValidateColocationConstraints(
    TF_ImportGraphDefOptions* opts, unsigned char enable);

/* Loading device plugins is not supported: NULL and TF_UNIMPLEMENTED. */
TF_CAPI_EXPORT extern TF_Library* TF_LoadPluggableDeviceLibrary(
    const char* library_filename, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeletePluggableDeviceLibraryHandle(
    TF_Library* lib_handle);

/* Removes function `func_name` (and its gradient entry) from the graph's
 * library; TF_INVALID_ARGUMENT if the graph has no such function. */
TF_CAPI_EXPORT extern void TF_GraphRemoveFunction(TF_Graph* g,
                                                  const char* func_name,
                                                  TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_C_API_EXPERIMENTAL_H_ */
