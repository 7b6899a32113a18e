/* The stepflow C API under TensorFlow's include path and names: graphs built
 * operation by operation or imported from GraphDefs, sessions that run them,
 * and the tensors, statuses and buffers they exchange. Programs written
 * against TensorFlow's C API build against this header unchanged.
 *
 * Conventions
 *  - Every object is opaque except TF_Buffer, TF_Input, TF_Output,
 *    TF_AttrMetadata, TF_WhileParams and TF_StringView. Each TF_NewX has a
 *    TF_DeleteX; deleting NULL is a no-op.
 *  - Functions that can fail take a TF_Status* and overwrite it. Misuse
 *    (NULL where an object is needed, an index out of range, an attribute of
 *    another kind) is reported with TensorFlow's code (TF_INVALID_ARGUMENT,
 *    TF_OUT_OF_RANGE, TF_NOT_FOUND, ...) and never crashes. Functions
 *    without a status return 0 / NULL / -1 on such input.
 *  - `const char*` results belong to the object they came from and live as
 *    long as it does. Tensors and buffers returned to the caller are owned
 *    by the caller.
 *
 * Graphs and sessions
 *  - A TF_Session registers with its TF_Graph. TF_DeleteGraph frees the
 *    graph at once if no session uses it, else when its last session is
 *    deleted; the caller must not use the TF_Graph* afterwards, but
 *    TF_Operation*s stay valid until the graph is freed.
 *  - Operations are never removed, so a TF_Operation* stays valid as long
 *    as its graph. Operations added after a session's last run are sent to
 *    it before its next run; changing an operation a session already has
 *    does not reach that session (a warning is printed on its next run).
 *  - Runs on a closed session fail with TF_CANCELLED.
 *
 * Thread-safety: a TF_Graph is internally locked and may be used from
 * several threads; a TF_OperationDescription belongs to one thread until
 * finished. A TF_Session may run steps from several threads at once.
 * TF_Status, TF_Buffer, TF_Tensor and the option objects are not
 * synchronised. Deleting an object another thread uses is a caller error.
 *
 * The runtime owns the execution environment (clock, threads, randomness):
 * one per process, created on the first TF_NewSession. */
#ifndef TENSORFLOW_C_C_API_H_
#define TENSORFLOW_C_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_attrtype.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library version ("<tensorflow version>-stepflow"). */
TF_CAPI_EXPORT extern const char* TF_Version(void);

/* Fills `to` (a tensor to be replaced) from a serialized TensorProto.
 * TF_INVALID_ARGUMENT for unparseable bytes or an invalid proto. */
TF_CAPI_EXPORT extern void TF_TensorFromProto(const TF_Buffer* from,
                                              TF_Tensor* to, TF_Status* status);

typedef struct TF_StringView {
  const char* data;
  size_t len;
} TF_StringView;

/* --- Legacy string encoding (a varint64 length, then the bytes) --------- */

/* Encodes src[0, src_len) into dst; returns the bytes written.
 * TF_INVALID_ARGUMENT (and 0) if dst_len < TF_StringEncodedSize(src_len). */
TF_CAPI_EXPORT extern size_t TF_StringEncode(const char* src, size_t src_len,
                                             char* dst, size_t dst_len,
                                             TF_Status* status);
/* Decodes one string at src: *dst points into src, *dst_len is its length;
 * returns the bytes consumed. TF_INVALID_ARGUMENT (and 0) on a malformed
 * or truncated encoding. */
TF_CAPI_EXPORT extern size_t TF_StringDecode(const char* src, size_t src_len,
                                             const char** dst, size_t* dst_len,
                                             TF_Status* status);
/* Bytes TF_StringEncode writes for a string of `len` bytes. */
TF_CAPI_EXPORT extern size_t TF_StringEncodedSize(size_t len);

/* --- TF_SessionOptions --------------------------------------------------- */

typedef struct TF_SessionOptions TF_SessionOptions;
/* Target "" (in-process) and a default ConfigProto. */
TF_CAPI_EXPORT extern TF_SessionOptions* TF_NewSessionOptions(void);
/* "" for in-process, "grpc://host:port" for a distributed session. */
TF_CAPI_EXPORT extern void TF_SetTarget(TF_SessionOptions* options,
                                        const char* target);
/* Sets the ConfigProto from its serialized form; TF_INVALID_ARGUMENT
 * (options unchanged) if the bytes do not parse. */
TF_CAPI_EXPORT extern void TF_SetConfig(TF_SessionOptions* options,
                                        const void* proto, size_t proto_len,
                                        TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteSessionOptions(TF_SessionOptions*);

/* --- TF_Graph and operations --------------------------------------------- */

typedef struct TF_Graph TF_Graph;
TF_CAPI_EXPORT extern TF_Graph* TF_NewGraph(void);
/* Frees the graph now, or when its last session is deleted. */
TF_CAPI_EXPORT extern void TF_DeleteGraph(TF_Graph*);

/* An operation being built (TF_NewOperation .. TF_FinishOperation). */
typedef struct TF_OperationDescription TF_OperationDescription;
/* An operation of a graph, owned by the graph. */
typedef struct TF_Operation TF_Operation;

/* Input `index` of `oper`. */
typedef struct TF_Input {
  TF_Operation* oper;
  int index;
} TF_Input;

/* Output `index` of `oper`. */
typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;

typedef struct TF_Function TF_Function;
typedef struct TF_FunctionOptions TF_FunctionOptions;

/* Static shapes of outputs. The runtime knows the shapes recorded with
 * TF_GraphSetTensorShape and those it can read from the graph (a
 * Placeholder's "shape", a Const's value, an "_output_shapes" attr); any
 * other output has unknown rank. -1 is an unknown dimension.
 * TF_GraphSetTensorShape merges `dims` (num_dims -1: unknown rank) into
 * what is known: TF_INVALID_ARGUMENT if they are incompatible.
 * TF_GraphGetTensorNumDims returns the rank (-1 unknown).
 * TF_GraphGetTensorShape fills dims[0, num_dims); num_dims must equal the
 * rank, -1 for an unknown rank (TF_INVALID_ARGUMENT otherwise).
 * A NULL operation or an output index out of range is TF_OUT_OF_RANGE or
 * TF_INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TF_GraphSetTensorShape(TF_Graph* graph,
                                                  TF_Output output,
                                                  const int64_t* dims,
                                                  const int num_dims,
                                                  TF_Status* status);
TF_CAPI_EXPORT extern int TF_GraphGetTensorNumDims(TF_Graph* graph,
                                                   TF_Output output,
                                                   TF_Status* status);
TF_CAPI_EXPORT extern void TF_GraphGetTensorShape(TF_Graph* graph,
                                                  TF_Output output,
                                                  int64_t* dims, int num_dims,
                                                  TF_Status* status);

/* Starts an operation of type `op_type` named `oper_name` in `graph`. The
 * description is consumed by TF_FinishOperation (which also frees it on
 * error); there is no other way to free it. NULL if graph, op_type or
 * oper_name is NULL. The *Locked variants behave the same (the graph's
 * lock is not reachable from C; each call takes it itself). */
TF_CAPI_EXPORT extern TF_OperationDescription* TF_NewOperationLocked(
    TF_Graph* graph, const char* op_type, const char* oper_name);
TF_CAPI_EXPORT extern TF_OperationDescription* TF_NewOperation(
    TF_Graph* graph, const char* op_type, const char* oper_name);

/* Builder calls. Misuse (NULL arguments, an input from another graph) is
 * remembered and reported by TF_FinishOperation. */
TF_CAPI_EXPORT extern void TF_SetDevice(TF_OperationDescription* desc,
                                        const char* device);
/* Adds the next data input; for a list input, use TF_AddInputList. */
TF_CAPI_EXPORT extern void TF_AddInput(TF_OperationDescription* desc,
                                       TF_Output input);
TF_CAPI_EXPORT extern void TF_AddInputList(TF_OperationDescription* desc,
                                           const TF_Output* inputs,
                                           int num_inputs);
TF_CAPI_EXPORT extern void TF_AddControlInput(TF_OperationDescription* desc,
                                              TF_Operation* input);
/* Requests placement with `op` (adds "loc:@<op>" to the "_class" attr). */
TF_CAPI_EXPORT extern void TF_ColocateWith(TF_OperationDescription* desc,
                                           TF_Operation* op);

/* Attribute setters; a later call for the same name replaces the value. */
TF_CAPI_EXPORT extern void TF_SetAttrString(TF_OperationDescription* desc,
                                            const char* attr_name,
                                            const void* value, size_t length);
TF_CAPI_EXPORT extern void TF_SetAttrStringList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values,
                                                const size_t* lengths,
                                                int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrInt(TF_OperationDescription* desc,
                                         const char* attr_name, int64_t value);
TF_CAPI_EXPORT extern void TF_SetAttrIntList(TF_OperationDescription* desc,
                                             const char* attr_name,
                                             const int64_t* values,
                                             int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrFloat(TF_OperationDescription* desc,
                                           const char* attr_name, float value);
TF_CAPI_EXPORT extern void TF_SetAttrFloatList(TF_OperationDescription* desc,
                                               const char* attr_name,
                                               const float* values,
                                               int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrBool(TF_OperationDescription* desc,
                                          const char* attr_name,
                                          unsigned char value);
TF_CAPI_EXPORT extern void TF_SetAttrBoolList(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const unsigned char* values,
                                              int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrType(TF_OperationDescription* desc,
                                          const char* attr_name,
                                          TF_DataType value);
TF_CAPI_EXPORT extern void TF_SetAttrTypeList(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const TF_DataType* values,
                                              int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrPlaceholder(TF_OperationDescription* desc,
                                                 const char* attr_name,
                                                 const char* placeholder);
/* A function-valued attribute naming function value[0, length). */
TF_CAPI_EXPORT extern void TF_SetAttrFuncName(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const char* value, size_t length);
/* num_dims -1 is an unknown rank; a dimension -1 is unknown. */
TF_CAPI_EXPORT extern void TF_SetAttrShape(TF_OperationDescription* desc,
                                           const char* attr_name,
                                           const int64_t* dims, int num_dims);
TF_CAPI_EXPORT extern void TF_SetAttrShapeList(TF_OperationDescription* desc,
                                               const char* attr_name,
                                               const int64_t* const* dims,
                                               const int* num_dims,
                                               int num_shapes);
/* From serialized TensorShapeProto(s); TF_INVALID_ARGUMENT if unparseable. */
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProto(
    TF_OperationDescription* desc, const char* attr_name, const void* proto,
    size_t proto_len, TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProtoList(
    TF_OperationDescription* desc, const char* attr_name,
    const void* const* protos, const size_t* proto_lens, int num_shapes,
    TF_Status* status);
/* Copies the tensor(s) into the attribute; the caller keeps ownership. */
TF_CAPI_EXPORT extern void TF_SetAttrTensor(TF_OperationDescription* desc,
                                            const char* attr_name,
                                            TF_Tensor* value,
                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                TF_Tensor* const* values,
                                                int num_values,
                                                TF_Status* status);
/* From a serialized AttrValue; TF_INVALID_ARGUMENT if unparseable. */
TF_CAPI_EXPORT extern void TF_SetAttrValueProto(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* proto,
                                                size_t proto_len,
                                                TF_Status* status);

/* Validates the operation and adds it to the graph; frees `desc` either
 * way. Errors (all TF_INVALID_ARGUMENT, as in TensorFlow): a duplicate
 * name, an unregistered op type, a missing, ill-typed or undeclared
 * attribute (TensorFlow accepts undeclared ones until the graph runs), a
 * wrong number or type of inputs, an input or colocation target from
 * another graph, earlier builder misuse. NULL on error. */
TF_CAPI_EXPORT extern TF_Operation* TF_FinishOperationLocked(
    TF_OperationDescription* desc, TF_Status* status);
TF_CAPI_EXPORT extern TF_Operation* TF_FinishOperation(
    TF_OperationDescription* desc, TF_Status* status);

/* --- Operation queries (NULL operation: "" / 0 / -1) --------------------- */

TF_CAPI_EXPORT extern const char* TF_OperationName(TF_Operation* oper);
TF_CAPI_EXPORT extern const char* TF_OperationOpType(TF_Operation* oper);
/* The requested device ("" if none). */
TF_CAPI_EXPORT extern const char* TF_OperationDevice(TF_Operation* oper);

TF_CAPI_EXPORT extern int TF_OperationNumOutputs(TF_Operation* oper);
/* 0 (not a valid type) for an index out of range. */
TF_CAPI_EXPORT extern TF_DataType TF_OperationOutputType(TF_Output oper_out);
/* Number of outputs of output arg `arg_name` (a list expands to several);
 * TF_INVALID_ARGUMENT (and -1) for an unknown arg. */
TF_CAPI_EXPORT extern int TF_OperationOutputListLength(TF_Operation* oper,
                                                       const char* arg_name,
                                                       TF_Status* status);

TF_CAPI_EXPORT extern int TF_OperationNumInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern TF_DataType TF_OperationInputType(TF_Input oper_in);
TF_CAPI_EXPORT extern int TF_OperationInputListLength(TF_Operation* oper,
                                                      const char* arg_name,
                                                      TF_Status* status);

/* The output feeding `oper_in` ({NULL, -1} if out of range). */
TF_CAPI_EXPORT extern TF_Output TF_OperationInput(TF_Input oper_in);
/* Fills inputs[0, min(max_inputs, TF_OperationNumInputs)). */
TF_CAPI_EXPORT extern void TF_OperationAllInputs(TF_Operation* oper,
                                                 TF_Output* inputs,
                                                 int max_inputs);

/* Consumers of one output; TF_OperationOutputConsumers fills up to
 * max_consumers and returns the total count. */
TF_CAPI_EXPORT extern int TF_OperationOutputNumConsumers(TF_Output oper_out);
TF_CAPI_EXPORT extern int TF_OperationOutputConsumers(TF_Output oper_out,
                                                      TF_Input* consumers,
                                                      int max_consumers);

/* Control edges (excluding the graph's implicit source/sink). The Get
 * functions fill up to max_* and return how many were written. */
TF_CAPI_EXPORT extern int TF_OperationNumControlInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetControlInputs(
    TF_Operation* oper, TF_Operation** control_inputs, int max_control_inputs);
TF_CAPI_EXPORT extern int TF_OperationNumControlOutputs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetControlOutputs(
    TF_Operation* oper, TF_Operation** control_outputs,
    int max_control_outputs);

/* What an attribute holds. is_list: 1 for a list. list_size: the list's
 * length, -1 if not a list. type: the (element) kind. total_size: bytes of
 * a string (sum over a list), dims of a shape (-1 for unknown rank; the sum
 * of known ranks over a list), -1 otherwise. */
typedef struct TF_AttrMetadata {
  unsigned char is_list;
  int64_t list_size;
  TF_AttrType type;
  int64_t total_size;
} TF_AttrMetadata;

/* Attribute getters. TF_INVALID_ARGUMENT if `oper` has no attribute
 * `attr_name` or it is of another kind. List getters copy the first
 * max_values elements. */
TF_CAPI_EXPORT extern TF_AttrMetadata TF_OperationGetAttrMetadata(
    TF_Operation* oper, const char* attr_name, TF_Status* status);
/* Copies min(max_length, size) bytes (no NUL is added). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrString(TF_Operation* oper,
                                                     const char* attr_name,
                                                     void* value,
                                                     size_t max_length,
                                                     TF_Status* status);
/* values[i] point into storage; TF_INVALID_ARGUMENT if storage_size is too
 * small for the requested strings. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrStringList(
    TF_Operation* oper, const char* attr_name, void** values, size_t* lengths,
    int max_values, void* storage, size_t storage_size, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrInt(TF_Operation* oper,
                                                  const char* attr_name,
                                                  int64_t* value,
                                                  TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrIntList(TF_Operation* oper,
                                                      const char* attr_name,
                                                      int64_t* values,
                                                      int max_values,
                                                      TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloat(TF_Operation* oper,
                                                    const char* attr_name,
                                                    float* value,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloatList(TF_Operation* oper,
                                                        const char* attr_name,
                                                        float* values,
                                                        int max_values,
                                                        TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrBool(TF_Operation* oper,
                                                   const char* attr_name,
                                                   unsigned char* value,
                                                   TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrBoolList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       unsigned char* values,
                                                       int max_values,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrType(TF_Operation* oper,
                                                   const char* attr_name,
                                                   TF_DataType* value,
                                                   TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTypeList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       TF_DataType* values,
                                                       int max_values,
                                                       TF_Status* status);
/* Copies min(num_dims, rank) dimensions. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShape(TF_Operation* oper,
                                                    const char* attr_name,
                                                    int64_t* value,
                                                    int num_dims,
                                                    TF_Status* status);
/* num_dims[i] is the rank of shape i (-1 unknown); dims[i] points into
 * storage (NULL for unknown rank). TF_INVALID_ARGUMENT if storage_size
 * (in int64s) is too small. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShapeList(
    TF_Operation* oper, const char* attr_name, int64_t** dims, int* num_dims,
    int num_shapes, int64_t* storage, int storage_size, TF_Status* status);
/* Serialized TensorShapeProto(s); list buffers are new, owned by the
 * caller. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProto(
    TF_Operation* oper, const char* attr_name, TF_Buffer* value,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProtoList(
    TF_Operation* oper, const char* attr_name, TF_Buffer** values,
    int max_values, TF_Status* status);
/* New tensors owned by the caller. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensor(TF_Operation* oper,
                                                     const char* attr_name,
                                                     TF_Tensor** value,
                                                     TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorList(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Tensor** values,
                                                         int max_values,
                                                         TF_Status* status);
/* The serialized AttrValue. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrValueProto(
    TF_Operation* oper, const char* attr_name, TF_Buffer* output_attr_value,
    TF_Status* status);

/* Attributes by position (name order). TF_OperationGetAttrName writes the
 * name of attribute i (no NUL) into output, which must hold
 * TF_OperationGetAttrNameLength(oper, i) bytes; TF_OUT_OF_RANGE for a bad
 * i (the length is -1). */
TF_CAPI_EXPORT extern int TF_OperationGetNumAttrs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetAttrNameLength(TF_Operation* oper,
                                                        int i);
TF_CAPI_EXPORT extern void TF_OperationGetAttrName(TF_Operation* oper, int i,
                                                   char* output,
                                                   TF_Status* status);

/* The operation named `oper_name`, or NULL. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphOperationByName(
    TF_Graph* graph, const char* oper_name);
/* Iterates operations in creation order: start with *pos = 0; NULL at the
 * end. Operations added during iteration may be visited. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphNextOperation(TF_Graph* graph,
                                                          size_t* pos);
/* The serialized GraphDef / the op's OpDef / the VersionDef. */
TF_CAPI_EXPORT extern void TF_GraphToGraphDef(TF_Graph* graph,
                                              TF_Buffer* output_graph_def,
                                              TF_Status* status);
/* TF_NOT_FOUND for an unregistered op. */
TF_CAPI_EXPORT extern void TF_GraphGetOpDef(TF_Graph* graph,
                                            const char* op_name,
                                            TF_Buffer* output_op_def,
                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_GraphVersions(TF_Graph* graph,
                                            TF_Buffer* output_version_def,
                                            TF_Status* status);

/* --- Importing GraphDefs -------------------------------------------------- */

typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;
TF_CAPI_EXPORT extern TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(
    void);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefOptions(
    TF_ImportGraphDefOptions* opts);
/* Imported names become "<prefix>/<name>" (with uniquify_prefix, a prefix
 * already in use becomes "<prefix>_<n>"). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetPrefix(
    TF_ImportGraphDefOptions* opts, const char* prefix);
/* Device for imported nodes that request none. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetDefaultDevice(
    TF_ImportGraphDefOptions* opts, const char* device);
/* Rename imported nodes whose names are taken ("x" -> "x_1"). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetUniquifyNames(
    TF_ImportGraphDefOptions* opts, unsigned char uniquify_names);
/* Rename a clashing prefix instead of failing. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetUniquifyPrefix(
    TF_ImportGraphDefOptions* opts, unsigned char uniquify_prefix);
/* Imported uses of src_name:src_index read `dst` (an existing output)
 * instead. src_name must not carry the prefix. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddInputMapping(
    TF_ImportGraphDefOptions* opts, const char* src_name, int src_index,
    TF_Output dst);
/* Imported control inputs on src_name become control inputs on `dst`. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsRemapControlDependency(
    TF_ImportGraphDefOptions* opts, const char* src_name, TF_Operation* dst);
/* Every imported node without inputs gets a control input from `oper`. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddControlDependency(
    TF_ImportGraphDefOptions* opts, TF_Operation* oper);
/* Requests the imported output oper_name:index in the results. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOutput(
    TF_ImportGraphDefOptions* opts, const char* oper_name, int index);
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOutputs(
    const TF_ImportGraphDefOptions* opts);
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOperation(
    TF_ImportGraphDefOptions* opts, const char* oper_name);
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOperations(
    const TF_ImportGraphDefOptions* opts);

/* What an import produced; the arrays belong to the results object. */
typedef struct TF_ImportGraphDefResults TF_ImportGraphDefResults;
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOutputs(
    TF_ImportGraphDefResults* results, int* num_outputs, TF_Output** outputs);
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOperations(
    TF_ImportGraphDefResults* results, int* num_opers, TF_Operation*** opers);
/* Input mappings that no imported node used and that name no output of
 * the GraphDef. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsMissingUnusedInputMappings(
    TF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefResults(
    TF_ImportGraphDefResults* results);

/* Imports the serialized GraphDef. On error the graph is unchanged:
 * TF_INVALID_ARGUMENT for unparseable bytes, invalid graphs, a clashing
 * name, a return output/operation or mapping that does not
 * exist; TF_NOT_FOUND for unregistered ops. `options` may be NULL. */
TF_CAPI_EXPORT extern TF_ImportGraphDefResults*
TF_GraphImportGraphDefWithResults(TF_Graph* graph, const TF_Buffer* graph_def,
                                  const TF_ImportGraphDefOptions* options,
                                  TF_Status* status);
/* As above, but graph_def->data points to a GraphDef object (stepflow's
 * generated C++ class, in process), not to serialized bytes. */
TF_CAPI_EXPORT extern TF_ImportGraphDefResults*
TF_GraphImportGraphDefWithResultsNoSerialization(
    TF_Graph* graph, const TF_Buffer* graph_def,
    const TF_ImportGraphDefOptions* options, TF_Status* status);
/* As above; num_return_outputs must equal the requested count. */
TF_CAPI_EXPORT extern void TF_GraphImportGraphDefWithReturnOutputs(
    TF_Graph* graph, const TF_Buffer* graph_def,
    const TF_ImportGraphDefOptions* options, TF_Output* return_outputs,
    int num_return_outputs, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GraphImportGraphDef(
    TF_Graph* graph, const TF_Buffer* graph_def,
    const TF_ImportGraphDefOptions* options, TF_Status* status);

/* The serialized NodeDef of `oper`. */
TF_CAPI_EXPORT extern void TF_OperationToNodeDef(TF_Operation* oper,
                                                 TF_Buffer* output_node_def,
                                                 TF_Status* status);

/* --- Functions ----------------------------------------------------------- */

/* A TF_Function is a caller-owned FunctionDef. TF_GraphCopyFunction adds
 * it (and, if `grad` is not NULL, its gradient function) to the graph's
 * library: the same definition again is a no-op, a different one under a
 * taken name TF_INVALID_ARGUMENT. TF_GraphGetFunctions returns new
 * caller-owned copies and how many it wrote. */
TF_CAPI_EXPORT extern void TF_GraphCopyFunction(TF_Graph* g,
                                                const TF_Function* func,
                                                const TF_Function* grad,
                                                TF_Status* status);
TF_CAPI_EXPORT extern int TF_GraphNumFunctions(TF_Graph* g);
TF_CAPI_EXPORT extern int TF_GraphGetFunctions(TF_Graph* g, TF_Function** funcs,
                                               int max_func, TF_Status* status);

/* --- While loops --------------------------------------------------------- */

/* TF_NewWhile returns a condition graph and a body graph, each with one
 * placeholder per input (cond_inputs, body_inputs); body_outputs start as
 * body_inputs and `name` as NULL. Build the condition (set cond_output, a
 * scalar bool) and the body (set body_outputs) in them, set `name`, then
 * call TF_FinishWhile, which adds the loop to the parent graph under a
 * fresh "<name>/" scope with TensorFlow's node names (Enter, Merge, Switch,
 * NextIteration, Exit; "_<i>" for the i-th loop variable after the first)
 * and fills outputs[0, ninputs) with its results, or TF_AbortWhile. Both
 * free the two graphs and the arrays; the params must not be used
 * afterwards. Errors: TF_INVALID_ARGUMENT for no inputs, an unset
 * cond_output, a NULL name, outputs from the wrong graph; the errors of
 * importing the loop (the parent graph is then unchanged). */

typedef struct TF_WhileParams {
  const int ninputs;
  TF_Graph* const cond_graph;
  const TF_Output* const cond_inputs;
  TF_Output cond_output;
  TF_Graph* const body_graph;
  const TF_Output* const body_inputs;
  TF_Output* const body_outputs;
  const char* name;
} TF_WhileParams;

TF_CAPI_EXPORT extern TF_WhileParams TF_NewWhile(TF_Graph* g, TF_Output* inputs,
                                                 int ninputs,
                                                 TF_Status* status);
TF_CAPI_EXPORT extern void TF_FinishWhile(const TF_WhileParams* params,
                                          TF_Status* status,
                                          TF_Output* outputs);
TF_CAPI_EXPORT extern void TF_AbortWhile(const TF_WhileParams* params);

/* --- Gradients ---------------------------------------------------------- */
/* dy = d(sum of y)/dx, through the gradient registry (gradient_registry.h):
 * TF_NOT_FOUND naming an op without a gradient. */

TF_CAPI_EXPORT extern void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny,
                                           TF_Output* x, int nx, TF_Output* dx,
                                           TF_Status* status, TF_Output* dy);
TF_CAPI_EXPORT extern void TF_AddGradientsWithPrefix(
    TF_Graph* g, const char* prefix, TF_Output* y, int ny, TF_Output* x, int nx,
    TF_Output* dx, TF_Status* status, TF_Output* dy);

/* Building a function from graph operations (c_api_graph_to_function.cc). */
TF_CAPI_EXPORT extern TF_Function* TF_GraphToFunction(
    const TF_Graph* fn_body, const char* fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    const TF_FunctionOptions* opts, const char* description, TF_Status* status);
TF_CAPI_EXPORT extern const char* TF_FunctionName(TF_Function* func);
TF_CAPI_EXPORT extern void TF_FunctionToFunctionDef(TF_Function* func,
                                                    TF_Buffer* output_func_def,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern TF_Function* TF_FunctionImportFunctionDef(
    const void* proto, size_t proto_len, TF_Status* status);
/* Function attributes, as serialized AttrValues. */
TF_CAPI_EXPORT extern void TF_FunctionSetAttrValueProto(TF_Function* func,
                                                        const char* attr_name,
                                                        const void* proto,
                                                        size_t proto_len,
                                                        TF_Status* status);
TF_CAPI_EXPORT extern void TF_FunctionGetAttrValueProto(
    TF_Function* func, const char* attr_name, TF_Buffer* output_attr_value,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteFunction(TF_Function* func);

/* 1 and a new caller-owned tensor in *result if `output` is a constant the
 * runtime can evaluate without running the graph (a Const's value); else 0
 * with *result NULL (TF_OK unless the arguments are bad). */
TF_CAPI_EXPORT extern unsigned char TF_TryEvaluateConstant(TF_Graph* graph,
                                                           TF_Output output,
                                                           TF_Tensor** result,
                                                           TF_Status* status);

/* --- TF_Session ----------------------------------------------------------- */

typedef struct TF_Session TF_Session;

/* A session running `graph`. NULL (nothing registered) on failure. */
TF_CAPI_EXPORT extern TF_Session* TF_NewSession(TF_Graph* graph,
                                                const TF_SessionOptions* opts,
                                                TF_Status* status);
/* Loads a SavedModel into `graph` and returns a session on it. */
TF_CAPI_EXPORT extern TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len,
    TF_Graph* graph, TF_Buffer* meta_graph_def, TF_Status* status);
/* Cancels running steps; later runs fail with TF_CANCELLED. */
TF_CAPI_EXPORT extern void TF_CloseSession(TF_Session*, TF_Status* status);
/* Frees the session (closing it first) and unregisters it from its graph. */
TF_CAPI_EXPORT extern void TF_DeleteSession(TF_Session*, TF_Status* status);

/* Runs one step: feeds inputs[i] with input_values[i] (the caller keeps
 * them), fetches outputs into output_values (new tensors owned by the
 * caller; all NULL on error) and runs target_opers. TF_STRING tensors are
 * fed and fetched as TF_TString elements. run_options (serialized
 * RunOptions) may be NULL; run_metadata, if not NULL, must be empty and
 * receives the serialized RunMetadata. Errors: those of the session
 * (unknown operation TF_NOT_FOUND, malformed requests TF_INVALID_ARGUMENT,
 * closed session TF_CANCELLED), TF_INVALID_ARGUMENT for a NULL operation, a
 * feed whose byte size does not match its shape, unparseable run_options;
 * fetching a TF_RESOURCE or TF_VARIANT tensor is TF_UNIMPLEMENTED. */
TF_CAPI_EXPORT extern void TF_SessionRun(
    TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
    TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
    TF_Tensor** output_values, int noutputs,
    const TF_Operation* const* target_opers, int ntargets,
    TF_Buffer* run_metadata, TF_Status*);

/* Partial runs: declare feeds, fetches and targets, then feed and fetch
 * piecewise. *handle is freed with TF_DeletePRunHandle. */
TF_CAPI_EXPORT extern void TF_SessionPRunSetup(
    TF_Session*, const TF_Output* inputs, int ninputs, const TF_Output* outputs,
    int noutputs, const TF_Operation* const* target_opers, int ntargets,
    const char** handle, TF_Status*);
TF_CAPI_EXPORT extern void TF_SessionPRun(
    TF_Session*, const char* handle, const TF_Output* inputs,
    TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
    TF_Tensor** output_values, int noutputs,
    const TF_Operation* const* target_opers, int ntargets, TF_Status*);
TF_CAPI_EXPORT extern void TF_DeletePRunHandle(const char* handle);

/* --- TF_DeprecatedSession ------------------------------------------------ */

/* The older session interface: no TF_Graph; TF_ExtendGraph sends
 * serialized GraphDefs and endpoints are named "op" or "op:index". Same
 * ownership as TF_SessionRun (inputs stay the caller's, outputs are new
 * caller-owned tensors) and the same errors. */
typedef struct TF_DeprecatedSession TF_DeprecatedSession;
TF_CAPI_EXPORT extern TF_DeprecatedSession* TF_NewDeprecatedSession(
    const TF_SessionOptions*, TF_Status* status);
TF_CAPI_EXPORT extern void TF_CloseDeprecatedSession(TF_DeprecatedSession*,
                                                     TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteDeprecatedSession(TF_DeprecatedSession*,
                                                      TF_Status* status);
/* Clears the resource containers (an empty list: the default container)
 * of the target `opt` names. */
TF_CAPI_EXPORT extern void TF_Reset(const TF_SessionOptions* opt,
                                    const char** containers, int ncontainers,
                                    TF_Status* status);
TF_CAPI_EXPORT extern void TF_ExtendGraph(TF_DeprecatedSession*,
                                          const void* proto, size_t proto_len,
                                          TF_Status*);
TF_CAPI_EXPORT extern void TF_Run(TF_DeprecatedSession*,
                                  const TF_Buffer* run_options,
                                  const char** input_names, TF_Tensor** inputs,
                                  int ninputs, const char** output_names,
                                  TF_Tensor** outputs, int noutputs,
                                  const char** target_oper_names, int ntargets,
                                  TF_Buffer* run_metadata, TF_Status*);
TF_CAPI_EXPORT extern void TF_PRunSetup(TF_DeprecatedSession*,
                                        const char** input_names, int ninputs,
                                        const char** output_names, int noutputs,
                                        const char** target_oper_names,
                                        int ntargets, const char** handle,
                                        TF_Status*);
TF_CAPI_EXPORT extern void TF_PRun(TF_DeprecatedSession*, const char* handle,
                                   const char** input_names, TF_Tensor** inputs,
                                   int ninputs, const char** output_names,
                                   TF_Tensor** outputs, int noutputs,
                                   const char** target_oper_names, int ntargets,
                                   TF_Status*);

/* --- Devices -------------------------------------------------------------- */

typedef struct TF_DeviceList TF_DeviceList;
/* The session's devices (caller-owned); NULL on error. */
TF_CAPI_EXPORT extern TF_DeviceList* TF_SessionListDevices(TF_Session* session,
                                                           TF_Status* status);
TF_CAPI_EXPORT extern TF_DeviceList* TF_DeprecatedSessionListDevices(
    TF_DeprecatedSession* session, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteDeviceList(TF_DeviceList* list);
TF_CAPI_EXPORT extern int TF_DeviceListCount(const TF_DeviceList* list);
/* Name / type ("CPU") / memory limit / incarnation of device `index`;
 * TF_INVALID_ARGUMENT (and NULL / -1 / 0) if `index` is out of range. */
TF_CAPI_EXPORT extern const char* TF_DeviceListName(const TF_DeviceList* list,
                                                    int index,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern const char* TF_DeviceListType(const TF_DeviceList* list,
                                                    int index,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern int64_t TF_DeviceListMemoryBytes(
    const TF_DeviceList* list, int index, TF_Status* status);
TF_CAPI_EXPORT extern uint64_t TF_DeviceListIncarnation(
    const TF_DeviceList* list, int index, TF_Status* status);

/* --- Op registry ---------------------------------------------------------- */

typedef struct TF_Library TF_Library;
/* Loading op libraries is not supported: TF_UNIMPLEMENTED, NULL. */
TF_CAPI_EXPORT extern TF_Library* TF_LoadLibrary(const char* library_filename,
                                                 TF_Status* status);
/* The ops a library registered (an empty OpList for NULL). */
TF_CAPI_EXPORT extern TF_Buffer TF_GetOpList(TF_Library* lib_handle);
TF_CAPI_EXPORT extern void TF_DeleteLibraryHandle(TF_Library* lib_handle);
/* Every registered op as a serialized OpList (caller-owned). */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

/* --- Not provided yet: TF_UNIMPLEMENTED (NULL / "" / no-op) ------------ */

TF_CAPI_EXPORT extern TF_Function* TF_GraphToFunctionWithControlOutputs(
    const TF_Graph* fn_body, const char* fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    int ncontrol_outputs, const TF_Operation* const* control_outputs,
    const char* const* control_output_names, const TF_FunctionOptions* opts,
    const char* description, TF_Status* status);
TF_CAPI_EXPORT extern void TF_AddWhileInputHack(TF_Graph* graph,
                                                TF_Output new_src,
                                                TF_Operation* dst,
                                                TF_Status* status);

typedef struct TF_ApiDefMap TF_ApiDefMap;
TF_CAPI_EXPORT extern TF_ApiDefMap* TF_NewApiDefMap(TF_Buffer* op_list_buffer,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteApiDefMap(TF_ApiDefMap* apimap);
TF_CAPI_EXPORT extern void TF_ApiDefMapPut(TF_ApiDefMap* api_def_map,
                                           const char* text, size_t text_len,
                                           TF_Status* status);
TF_CAPI_EXPORT extern TF_Buffer* TF_ApiDefMapGet(TF_ApiDefMap* api_def_map,
                                                 const char* name,
                                                 size_t name_len,
                                                 TF_Status* status);
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllRegisteredKernels(TF_Status* status);
TF_CAPI_EXPORT extern TF_Buffer* TF_GetRegisteredKernelsForOp(
    const char* name, TF_Status* status);

typedef struct TF_Server TF_Server;
TF_CAPI_EXPORT extern TF_Server* TF_NewServer(const void* proto,
                                              size_t proto_len,
                                              TF_Status* status);
TF_CAPI_EXPORT extern void TF_ServerStart(TF_Server* server, TF_Status* status);
TF_CAPI_EXPORT extern void TF_ServerStop(TF_Server* server, TF_Status* status);
TF_CAPI_EXPORT extern void TF_ServerJoin(TF_Server* server, TF_Status* status);
TF_CAPI_EXPORT extern const char* TF_ServerTarget(TF_Server* server);
TF_CAPI_EXPORT extern void TF_DeleteServer(TF_Server* server);
TF_CAPI_EXPORT extern void TF_RegisterFilesystemPlugin(
    const char* plugin_filename, TF_Status* status);

/* Accepted and ignored (no full types, no shape inference here). */
TF_CAPI_EXPORT extern void TF_SetFullType(TF_Graph* graph, TF_Operation* op,
                                          const TF_Buffer* full_type_proto);
TF_CAPI_EXPORT extern void TF_SetRequireShapeInferenceFns(TF_Graph* graph,
                                                          bool require);
/* An empty (caller-owned) buffer: no resource handle shapes are tracked. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetHandleShapeAndType(TF_Graph* graph,
                                                          TF_Output output);
TF_CAPI_EXPORT extern void TF_SetHandleShapeAndType(TF_Graph* graph,
                                                    TF_Output output,
                                                    const void* proto,
                                                    size_t proto_len,
                                                    TF_Status* status);

/* --- Graph mutation ------------------------------------------------------ */

/* Adds a control edge input -> op. */
TF_CAPI_EXPORT extern void TF_AddOperationControlInput(TF_Graph* graph,
                                                       TF_Operation* op,
                                                       TF_Operation* input);
/* Sets the device `op` requests. */
TF_CAPI_EXPORT extern void TF_SetRequestedDevice(TF_Graph* graph,
                                                 TF_Operation* op,
                                                 const char* device);
/* Sets attribute attr_name of `op` from a serialized AttrValue (output
 * types are not recomputed). TF_INVALID_ARGUMENT for unparseable bytes or
 * an operation not in `graph`. */
TF_CAPI_EXPORT extern void TF_SetAttr(TF_Graph* graph, TF_Operation* op,
                                      const char* attr_name,
                                      TF_Buffer* attr_value_proto,
                                      TF_Status* status);
TF_CAPI_EXPORT extern void TF_ClearAttr(TF_Graph* graph, TF_Operation* op,
                                        const char* attr_name,
                                        TF_Status* status);
/* Makes input dst read new_src instead. TF_INVALID_ARGUMENT if the types
 * differ, TF_OUT_OF_RANGE for a bad index. */
TF_CAPI_EXPORT extern void TF_UpdateEdge(TF_Graph* graph, TF_Output new_src,
                                         TF_Input dst, TF_Status* status);
TF_CAPI_EXPORT extern void TF_RemoveAllControlInputs(TF_Graph* graph,
                                                     TF_Operation* op);
/* Sends the graph's new operations to the session now (runs do this
 * themselves). */
TF_CAPI_EXPORT extern void TF_ExtendSession(TF_Session* session,
                                            TF_Status* status);
/* Accepted and ignored: the runtime logs to stderr. */
TF_CAPI_EXPORT extern void TF_RegisterLogListener(
    void (*listener)(const char*));

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_C_API_H_ */
