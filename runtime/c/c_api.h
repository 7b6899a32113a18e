/* The stepflow C API: a stable C interface to graphs and local or remote
 * sessions, with TensorFlow's C API names and calling conventions
 * (TF_NewGraph, TF_NewSession, TF_SessionRun, ...), so that C programs and
 * foreign-language bindings written against TensorFlow 1.x work unchanged.
 *
 * Conventions
 *  - Every object is opaque except TF_Buffer and TF_Output. Each TF_NewX /
 *    TF_AllocateX has a matching TF_DeleteX; deleting NULL is a no-op.
 *  - Functions that can fail take a TF_Status* last. It is overwritten
 *    (TF_OK on success); on failure TF_GetCode gives the error code (same
 *    values as absl::StatusCode / TensorFlow's error codes) and TF_Message
 *    the message, naming the offending node/endpoint. Bad input never
 *    crashes; NULL where an object is required is TF_INVALID_ARGUMENT.
 *  - Strings returned as `const char*` are owned by the object they came from
 *    and live as long as it does.
 *
 * Graphs and sessions (graph refcount)
 *  - A TF_Session is built on a TF_Graph and registers itself with it.
 *    TF_DeleteGraph only marks the graph as deleted: it is freed then if no
 *    session is registered, otherwise when the last registered session is
 *    deleted (TF_DeleteSession). After TF_DeleteGraph the caller must not use
 *    the TF_Graph* again, but TF_Operation*s from it stay valid (for
 *    TF_Output and targets of runs) until the graph is actually freed.
 *  - Before each TF_SessionRun / TF_SessionPRunSetup the session is extended
 *    with the operations added to its graph since its previous run, so a
 *    graph may keep growing while sessions use it. The graph must stay free
 *    of cycles (TF_INVALID_ARGUMENT from the run otherwise). Changing an
 *    operation a session has already received has no effect on that session
 *    (a warning is printed on its next run).
 *  - Runs on a closed session (TF_CloseSession) fail with TF_CANCELLED.
 *
 * Thread-safety: a TF_Graph may be used from several threads (it is
 * internally locked); a TF_Session may run steps from several threads at
 * once. TF_Status, TF_Buffer, TF_Tensor and the option objects are not
 * synchronised. Deleting an object while another thread uses it is a caller
 * error.
 *
 * The C API owns the execution environment (clock, thread pool, randomness):
 * one per process, created on the first TF_NewSession and never destroyed.
 */
#ifndef STEPFLOW_RUNTIME_C_C_API_H_
#define STEPFLOW_RUNTIME_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version string of this library. */
const char* TF_Version(void);

/* --- TF_DataType ---------------------------------------------------------- */

/* Element types; the values are those of DataType in types.proto. */
typedef enum TF_DataType {
  TF_FLOAT = 1,
  TF_DOUBLE = 2,
  TF_INT32 = 3,
  TF_UINT8 = 4,
  TF_INT16 = 5,
  TF_INT8 = 6,
  TF_STRING = 7,
  TF_COMPLEX64 = 8,
  TF_COMPLEX = 8,
  TF_INT64 = 9,
  TF_BOOL = 10,
  TF_QINT8 = 11,
  TF_QUINT8 = 12,
  TF_QINT32 = 13,
  TF_BFLOAT16 = 14,
  TF_QINT16 = 15,
  TF_QUINT16 = 16,
  TF_UINT16 = 17,
  TF_COMPLEX128 = 18,
  TF_HALF = 19,
  TF_RESOURCE = 20,
  TF_VARIANT = 21,
  TF_UINT32 = 22,
  TF_UINT64 = 23,
} TF_DataType;

/* Bytes per element; 0 for types without a fixed size (string, resource,
 * variant) and unknown values. */
size_t TF_DataTypeSize(TF_DataType dt);

/* --- TF_Status ------------------------------------------------------------ */

/* Error codes; the values are those of absl::StatusCode. */
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
  TF_DATA_LOSS = 15,
} TF_Code;

typedef struct TF_Status TF_Status;

/* A new status, TF_OK. */
TF_Status* TF_NewStatus(void);
void TF_DeleteStatus(TF_Status* s);
/* Sets `s` to (code, msg); TF_OK clears the message. A code outside TF_Code
 * becomes TF_UNKNOWN. */
void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);
TF_Code TF_GetCode(const TF_Status* s);
/* The message ("" for TF_OK); valid until `s` is next modified or deleted. */
const char* TF_Message(const TF_Status* s);

/* --- TF_Buffer ------------------------------------------------------------ */

/* A block of bytes, typically a serialized protocol buffer. If
 * data_deallocator is set, TF_DeleteBuffer calls it on (data, length). */
typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* An empty buffer (data NULL, length 0, no deallocator). */
TF_Buffer* TF_NewBuffer(void);
/* A buffer holding a copy of proto[0, proto_len). */
TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);
void TF_DeleteBuffer(TF_Buffer* buffer);
TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

/* --- TF_Tensor ------------------------------------------------------------ */

/* A dense n-dimensional array of numeric or boolean elements stored
 * contiguously in row-major order. */
typedef struct TF_Tensor TF_Tensor;

/* A tensor that takes ownership of data[0, len): `deallocator(data, len,
 * deallocator_arg)` is called once the tensor no longer needs it (at
 * TF_DeleteTensor, or immediately if creation fails). For types of fixed
 * element size, `len` must equal elements * TF_DataTypeSize(dtype); a
 * mismatch or a negative dimension returns NULL (after calling the
 * deallocator). */
TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims,
                        void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg);
/* A tensor with `len` bytes of zero-filled, suitably aligned storage owned
 * by the tensor. NULL if a dimension is negative or, for types of fixed
 * element size, `len` != elements * TF_DataTypeSize(dtype). */
TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len);
void TF_DeleteTensor(TF_Tensor* t);
TF_DataType TF_TensorType(const TF_Tensor* t);
int TF_NumDims(const TF_Tensor* t);
/* Accessors below take a non-NULL tensor. */
/* Size of dimension `dim_index`; -1 if not 0 <= dim_index < TF_NumDims(t). */
int64_t TF_Dim(const TF_Tensor* t, int dim_index);
int64_t TF_TensorElementCount(const TF_Tensor* t);
size_t TF_TensorByteSize(const TF_Tensor* t);
/* The element storage (may be NULL for a tensor without elements). */
void* TF_TensorData(const TF_Tensor* t);

/* --- TF_Graph and TF_Operation -------------------------------------------- */

typedef struct TF_Graph TF_Graph;
/* An operation (node) of a TF_Graph; owned by the graph. */
typedef struct TF_Operation TF_Operation;

/* One output (or, as a feed, the value of one output) of an operation. */
typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;

/* A new empty graph. */
TF_Graph* TF_NewGraph(void);
/* Requests deletion; the graph is freed now if no session uses it, else when
 * its last session is deleted. */
void TF_DeleteGraph(TF_Graph* g);

typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;
TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void);
void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts);
/* Imported node names become "<prefix>/<name>" (inputs are renamed alike). */
void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                       const char* prefix);

/* Adds the nodes of the binary GraphDef in `graph_def` to `graph`; new nodes
 * may use existing ones as inputs (with a prefix, inputs naming nodes of
 * `graph_def` are prefixed, others name existing nodes). `options` may be
 * NULL. Unparseable bytes
 * and invalid graphs are TF_INVALID_ARGUMENT (as in TensorFlow, this includes
 * a "_class" entry "loc:@x" where x is not a node of `graph_def`; such
 * entries are prefixed like inputs), unknown ops TF_NOT_FOUND; on error the
 * graph is unchanged. */
void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                            const TF_ImportGraphDefOptions* options,
                            TF_Status* status);
/* Serializes `graph` (binary GraphDef) into `output_graph_def`, replacing its
 * contents (the bytes are freed by TF_DeleteBuffer). */
void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def,
                        TF_Status* status);
/* The operation named `oper_name`, or NULL. */
TF_Operation* TF_GraphOperationByName(TF_Graph* graph, const char* oper_name);
/* Number of operations in the graph. */
int TF_GraphNumOperations(TF_Graph* graph);

/* Accessors below take a non-NULL operation. */
const char* TF_OperationName(TF_Operation* oper);
const char* TF_OperationOpType(TF_Operation* oper);
/* The device requested for the operation ("" if none). */
const char* TF_OperationDevice(TF_Operation* oper);
int TF_OperationNumOutputs(TF_Operation* oper);
int TF_OperationNumInputs(TF_Operation* oper);
/* Type of output `oper_out` (0 if the index is out of range). */
TF_DataType TF_OperationOutputType(TF_Output oper_out);

/* --- TF_SessionOptions ---------------------------------------------------- */

typedef struct TF_SessionOptions TF_SessionOptions;
/* Target "" (in-process session) and a default ConfigProto. */
TF_SessionOptions* TF_NewSessionOptions(void);
/* "" for in-process; "grpc://host:port" for a distributed session (where a
 * factory for that scheme is linked in). */
void TF_SetTarget(TF_SessionOptions* options, const char* target);
/* Sets the ConfigProto from its binary form; TF_INVALID_ARGUMENT (options
 * unchanged) if the bytes do not parse. */
void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                  size_t proto_len, TF_Status* status);
void TF_DeleteSessionOptions(TF_SessionOptions* options);

/* --- TF_Session ----------------------------------------------------------- */

typedef struct TF_Session TF_Session;

/* A session running `graph`; registers itself with the graph. On failure
 * returns NULL and nothing is registered. */
TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts,
                          TF_Status* status);
/* Cancels running steps; later runs fail with TF_CANCELLED. Idempotent. */
void TF_CloseSession(TF_Session* session, TF_Status* status);
/* Frees the session (closing it if needed) and unregisters it from its
 * graph, freeing the graph if TF_DeleteGraph was called and this was its
 * last session. */
void TF_DeleteSession(TF_Session* session, TF_Status* status);

/* Runs one step: feeds inputs[i] with input_values[i] (ownership stays with
 * the caller), computes outputs[0..noutputs) into output_values (new tensors
 * owned by the caller; all NULL on error) and runs target_opers.
 * `run_options` (serialized RunOptions) may be NULL; `run_metadata`, if not
 * NULL, must be empty and receives the serialized RunMetadata.
 * Errors: those of the session (feeding/fetching an unknown operation is
 * TF_NOT_FOUND, malformed requests TF_INVALID_ARGUMENT, a closed session
 * TF_CANCELLED), and TF_INVALID_ARGUMENT for a NULL operation, a feed whose
 * byte size does not match its shape, or unparseable run_options; fetching
 * a tensor whose type has no fixed element size is TF_UNIMPLEMENTED. */
void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options,
                   const TF_Output* inputs, TF_Tensor* const* input_values,
                   int ninputs, const TF_Output* outputs,
                   TF_Tensor** output_values, int noutputs,
                   const TF_Operation* const* target_opers, int ntargets,
                   TF_Buffer* run_metadata, TF_Status* status);

/* Partial runs: declare every feed, fetch and target, then feed and fetch
 * piecewise with TF_SessionPRun. `*handle` is freed with
 * TF_DeletePRunHandle. */
void TF_SessionPRunSetup(TF_Session* session, const TF_Output* inputs,
                         int ninputs, const TF_Output* outputs, int noutputs,
                         const TF_Operation* const* target_opers, int ntargets,
                         const char** handle, TF_Status* status);
/* Targets were declared at setup; those passed here are ignored. */
void TF_SessionPRun(TF_Session* session, const char* handle,
                    const TF_Output* inputs, TF_Tensor* const* input_values,
                    int ninputs, const TF_Output* outputs,
                    TF_Tensor** output_values, int noutputs,
                    const TF_Operation* const* target_opers, int ntargets,
                    TF_Status* status);
void TF_DeletePRunHandle(const char* handle);

/* --- SavedModel ----------------------------------------------------------- */

/* Loads the MetaGraph of the SavedModel in `export_dir` whose tag set is
 * tags[0..tags_len) into a new session (variables restored, init op run;
 * runtime/saved_model/loader.h) and imports its graph into `graph`, which
 * must be empty; the session is registered with `graph` as TF_NewSession's
 * is. `run_options` (serialized RunOptions, may be NULL) is used for the
 * restore and init runs; `meta_graph_def`, if not NULL, receives the
 * serialized MetaGraphDef. On failure returns NULL and `graph` is unchanged.
 * Errors: TF_INVALID_ARGUMENT for a non-empty graph, NULL arguments or
 * unparseable run_options; otherwise the loader's (TF_NOT_FOUND for a
 * missing SavedModel or tag set, TF_DATA_LOSS for a corrupt file). */
TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len,
    TF_Graph* graph, TF_Buffer* meta_graph_def, TF_Status* status);

/* --- Devices -------------------------------------------------------------- */

typedef struct TF_DeviceList TF_DeviceList;
/* The session's devices; NULL on error. */
TF_DeviceList* TF_SessionListDevices(TF_Session* session, TF_Status* status);
void TF_DeleteDeviceList(TF_DeviceList* list);
int TF_DeviceListCount(const TF_DeviceList* list);
/* Full name / type ("CPU") / memory limit of device `index`;
 * TF_INVALID_ARGUMENT (and NULL / -1) if `index` is out of range. */
const char* TF_DeviceListName(const TF_DeviceList* list, int index,
                              TF_Status* status);
const char* TF_DeviceListType(const TF_DeviceList* list, int index,
                              TF_Status* status);
int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index,
                                 TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* STEPFLOW_RUNTIME_C_C_API_H_ */
