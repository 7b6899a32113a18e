/* A C program over the less common corners of the C API whose output must
 * be the same linked against stepflow's libtensorflow.so.2 and against
 * TensorFlow's own library (c_api_differential_live_test.sh): API
 * definition maps (the serialized ApiDefs byte for byte, merge rules and
 * errors), handle shapes and types, TF_AddWhileInputHack, and from
 * c_api_experimental.h the checkpoint reader (a checkpoint TensorFlow
 * wrote, given as argv[1]), attribute builders, the number attr of list
 * inputs, shape-and-type lists, function removal and debug strings, and
 * the XLA switches' defaults. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"

static TF_Status* s;

static void Die(const char* what) {
  printf("FAILED %s: %d %s\n", what, TF_GetCode(s), TF_Message(s));
  exit(1);
}

static void PrintHex(const char* label, const void* data, size_t len) {
  if (data == NULL) {
    printf("%s: NULL\n", label);
    return;
  }
  const unsigned char* b = (const unsigned char*)data;
  printf("%s (%zu bytes):", label, len);
  for (size_t i = 0; i < len; ++i) printf("%s%02x", i % 32 ? "" : "\n  ", b[i]);
  printf("\n");
}

/* Some calls leave the status alone on success: clear it before them. */
static void Clear(void) { TF_SetStatus(s, TF_OK, ""); }

static void PrintStatus(const char* label) {
  printf("%s: code %d", label, TF_GetCode(s));
  if (TF_GetCode(s) != TF_OK) printf(" \"%s\"", TF_Message(s));
  printf("\n");
}

/* ------------------------------------------------------------ ApiDefMap */

static void Put(TF_ApiDefMap* map, const char* label, const char* text) {
  Clear();
  TF_ApiDefMapPut(map, text, strlen(text), s);
  PrintStatus(label);
}

static void Get(TF_ApiDefMap* map, const char* name) {
  Clear();
  TF_Buffer* b = TF_ApiDefMapGet(map, name, strlen(name), s);
  char label[128];
  snprintf(label, sizeof label, "ApiDef %s", name);
  if (TF_GetCode(s) != TF_OK) {
    PrintStatus(label);
    return;
  }
  PrintHex(label, b->data, b->length);
  TF_DeleteBuffer(b);
}

static void ApiDefs(void) {
  TF_Buffer* ops = TF_GetAllOpList();
  TF_ApiDefMap* map = TF_NewApiDefMap(ops, s);
  TF_DeleteBuffer(ops);
  if (TF_GetCode(s) != TF_OK) Die("TF_NewApiDefMap");
  Put(map, "put of an unknown op", "op { graph_op_name: \"NoSuchOpAnywhere\" }");
  Put(map, "put of bad text", "op { graph_op_name: ");
  Put(map, "put of an unknown arg",
      "op { graph_op_name: \"Add\" in_arg { name: \"q\" rename_to: \"r\" } }");
  Put(map, "put of an unknown attr",
      "op { graph_op_name: \"Add\" attr { name: \"Q\" rename_to: \"r\" } }");
  Put(map, "put of a short arg_order",
      "op { graph_op_name: \"Add\" arg_order: \"x\" }");
  Put(map, "put of a wrong arg_order",
      "op { graph_op_name: \"Add\" arg_order: \"x\" arg_order: \"q\" }");
  Put(map, "put of renames",
      "op { graph_op_name: \"Sub\" arg_order: \"y\" arg_order: \"x\" "
      "summary: \"Takes `y` from `x`.\" "
      "description: \"Uses `x` and `y`, gives `z`; `T` is the type.\" "
      "in_arg { name: \"x\" rename_to: \"a\" description: \"`x` itself\" } "
      "out_arg { name: \"z\" rename_to: \"diff\" } "
      "endpoint { name: \"e1\" } endpoint { name: \"e2\" deprecated: true } }");
  Put(map, "put over it",
      "op { graph_op_name: \"Sub\" endpoint { name: \"e3\" } "
      "description_prefix: \"P\" description_suffix: \"S\" "
      "attr { name: \"T\" rename_to: \"dtype\" default_value { type: DT_FLOAT } "
      "description: \"type of `x`\" } deprecation_message: \"old\" }");
  Put(map, "put of a visibility", "op { graph_op_name: \"Mul\" visibility: SKIP "
      "summary: \"m\" }");
  Put(map, "put of no visibility", "op { graph_op_name: \"Mul\" summary: \"\" }");
  Put(map, "put of a prefix only",
      "op { graph_op_name: \"Neg\" description_prefix: \"only\" }");
  Get(map, "Sub");
  Get(map, "Mul");
  Get(map, "Neg");
  Get(map, "ConcatV2");
  Get(map, "MatMul");
  Put(map, "put after get", "op { graph_op_name: \"Add\" summary: \"late\" }");
  TF_SetStatus(s, TF_OK, "");
  TF_Buffer* missing = TF_ApiDefMapGet(map, "NoSuchOpAnywhere", 16, s);
  printf("get of an unknown op: %s, code %d\n", missing ? "a buffer" : "NULL",
         TF_GetCode(s));
  if (missing) TF_DeleteBuffer(missing);
  TF_DeleteApiDefMap(map);

  TF_Buffer garbage = {"\x0a\x05", 2, NULL};
  Clear();
  TF_ApiDefMap* bad = TF_NewApiDefMap(&garbage, s);
  printf("map of a garbage OpList: %s, code %d\n", bad ? "a map" : "NULL",
         TF_GetCode(s));
  if (bad) TF_DeleteApiDefMap(bad);
}

/* ------------------------------------------------------ handle shapes */

/* Prints `b` (which may be NULL) and frees it. */
static void PrintBuffer(const char* label, TF_Buffer* b) {
  if (b == NULL) {
    printf("%s: NULL buffer\n", label);
    return;
  }
  PrintHex(label, b->length ? b->data : "", b->length);
  TF_DeleteBuffer(b);
}

static void HandleShapes(void) {
  TF_Graph* g = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(g, "VarHandleOp", "v");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  int64_t dims[2] = {2, -1};
  TF_SetAttrShape(d, "shape", dims, 2);
  TF_Operation* v = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("VarHandleOp");
  PrintBuffer("handle data of a VarHandleOp",
              TF_GetHandleShapeAndType(g, (TF_Output){v, 0}));

  d = TF_NewOperation(g, "Placeholder", "h");
  TF_SetAttrType(d, "dtype", TF_RESOURCE);
  TF_Operation* h = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("Placeholder");
  PrintBuffer("handle data of a resource placeholder", TF_GetHandleShapeAndType(g, (TF_Output){h, 0}));
  /* HandleData{is_set: true, shape_and_type {shape {dim {size: 3}}
   * dtype: DT_INT32}} */
  static const char kData[] = "\x08\x01\x12\x08\x0a\x04\x12\x02\x08\x03\x10\x03";
  Clear();
  TF_SetHandleShapeAndType(g, (TF_Output){h, 0}, kData, sizeof kData - 1, s);
  PrintStatus("set handle data");
  PrintBuffer("handle data after setting it", TF_GetHandleShapeAndType(g, (TF_Output){h, 0}));
  Clear();
  TF_SetHandleShapeAndType(g, (TF_Output){h, 0}, "\xff\xff", 2, s);
  printf("set of unparseable handle data: code %d\n", TF_GetCode(s));

  /* A read of the placeholder's handle takes the shape just set. */
  d = TF_NewOperation(g, "ReadVariableOp", "read");
  TF_AddInput(d, (TF_Output){h, 0});
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation* read = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("ReadVariableOp");
  int64_t out[4];
  int rank = TF_GraphGetTensorNumDims(g, (TF_Output){read, 0}, s);
  TF_GraphGetTensorShape(g, (TF_Output){read, 0}, out, rank, s);
  printf("shape of the read: rank %d", rank);
  for (int i = 0; i < rank; ++i) printf(" %lld", (long long)out[i]);
  printf("\n");

  d = TF_NewOperation(g, "Const", "c");
  TF_Tensor* one = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float*)TF_TensorData(one) = 1;
  TF_SetAttrTensor(d, "value", one, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(one);
  TF_Operation* c = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("Const");
  PrintBuffer("handle data of a float", TF_GetHandleShapeAndType(g, (TF_Output){c, 0}));

  /* TF_AddWhileInputHack wants a While. */
  Clear();
  TF_AddWhileInputHack(g, (TF_Output){c, 0}, c, s);
  printf("while-input hack on a Const: code %d\n", TF_GetCode(s));
  TF_DeleteGraph(g);
}

/* A functional While over one float whose cond and body take `n` floats;
 * the hack adds a second loop input after "T" grew. */
static TF_Function* LoopFunction(const char* name, int is_cond) {
  TF_Graph* g = TF_NewGraph();
  TF_Output in[2], out[2];
  for (int i = 0; i < 2; ++i) {
    char arg[8];
    snprintf(arg, sizeof arg, "a%d", i);
    TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", arg);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    in[i] = (TF_Output){TF_FinishOperation(d, s), 0};
    if (TF_GetCode(s) != TF_OK) Die(arg);
  }
  int nout = 2;
  if (is_cond) {
    TF_OperationDescription* d = TF_NewOperation(g, "Less", "less");
    TF_AddInput(d, in[0]);
    TF_AddInput(d, in[1]);
    out[0] = (TF_Output){TF_FinishOperation(d, s), 0};
    nout = 1;
  } else {
    TF_OperationDescription* d = TF_NewOperation(g, "AddV2", "next");
    TF_AddInput(d, in[0]);
    TF_AddInput(d, in[0]);
    out[0] = (TF_Output){TF_FinishOperation(d, s), 0};
    out[1] = in[1];
  }
  if (TF_GetCode(s) != TF_OK) Die("loop function body");
  TF_Function* f = TF_GraphToFunction(g, name, 0, -1, NULL, 2, in, nout, out,
                                      NULL, NULL, name, s);
  if (TF_GetCode(s) != TF_OK) Die("TF_GraphToFunction");
  TF_DeleteGraph(g);
  return f;
}

static void WhileInputHack(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Function* cond = LoopFunction("cond2", 1);
  TF_Function* body = LoopFunction("body2", 0);
  TF_GraphCopyFunction(g, cond, NULL, s);
  TF_GraphCopyFunction(g, body, NULL, s);
  if (TF_GetCode(s) != TF_OK) Die("TF_GraphCopyFunction");
  TF_Output x[2];
  float values[2] = {1, 100};
  for (int i = 0; i < 2; ++i) {
    char name[8];
    snprintf(name, sizeof name, "x%d", i);
    TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
    TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
    *(float*)TF_TensorData(t) = values[i];
    TF_SetAttrTensor(d, "value", t, s);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    TF_DeleteTensor(t);
    x[i] = (TF_Output){TF_FinishOperation(d, s), 0};
    if (TF_GetCode(s) != TF_OK) Die(name);
  }
  TF_OperationDescription* d = TF_NewOperation(g, "While", "loop");
  TF_AddInputList(d, x, 1);
  TF_DataType one_type[1] = {TF_FLOAT};
  TF_SetAttrTypeList(d, "T", one_type, 1);
  TF_SetAttrFuncName(d, "cond", "cond2", 5);
  TF_SetAttrFuncName(d, "body", "body2", 5);
  TF_Operation* loop = TF_FinishOperation(d, s);
  PrintStatus("While of one input");
  if (TF_GetCode(s) != TF_OK) return;
  printf("loop inputs before: %d, outputs %d\n", TF_OperationNumInputs(loop),
         TF_OperationNumOutputs(loop));
  Clear();
  TF_AddWhileInputHack(g, x[1], loop, s);
  printf("hack before T grew: code %d\n", TF_GetCode(s));

  /* T := [float, float], as tf.while_loop's gradient does. */
  static const char kTwoFloats[] = "\x0a\x04\x32\x02\x01\x01";
  TF_Buffer attr = {kTwoFloats, sizeof kTwoFloats - 1, NULL};
  Clear();
  TF_SetAttr(g, loop, "T", &attr, s);
  PrintStatus("set T");
  printf("loop inputs after T grew: %d, outputs %d\n",
         TF_OperationNumInputs(loop), TF_OperationNumOutputs(loop));
  Clear();
  TF_AddWhileInputHack(g, x[1], loop, s);
  PrintStatus("hack");
  printf("loop inputs now: %d\n", TF_OperationNumInputs(loop));
  for (int i = 0; i < TF_OperationNumInputs(loop); ++i) {
    TF_Output src = TF_OperationInput((TF_Input){loop, i});
    printf("  input %d from %s:%d\n", i, TF_OperationName(src.oper), src.index);
  }
  Clear();
  TF_AddWhileInputHack(g, x[1], loop, s);
  printf("hack with no free input: code %d\n", TF_GetCode(s));

  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, opts, s);
  TF_DeleteSessionOptions(opts);
  if (TF_GetCode(s) != TF_OK) Die("session");
  TF_Output fetch[2] = {{loop, 0}, {loop, 1}};
  TF_Tensor* got[2] = {NULL, NULL};
  TF_SessionRun(session, NULL, NULL, NULL, 0, fetch, got, 2, NULL, 0, NULL, s);
  PrintStatus("run of the grown loop");
  if (TF_GetCode(s) == TF_OK) {
    printf("loop results: %g %g\n", *(float*)TF_TensorData(got[0]),
           *(float*)TF_TensorData(got[1]));
    TF_DeleteTensor(got[0]);
    TF_DeleteTensor(got[1]);
  }
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);

  /* A direct call of body2 by name, as TensorFlow's graphs use functions. */
  d = TF_NewOperation(g, "body2", "direct_call");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, x[1]);
  TF_Operation* call = TF_FinishOperation(d, s);
  PrintStatus("direct call of body2");
  if (call != NULL) {
    printf("direct call: op type %s, %d inputs, %d outputs\n",
           TF_OperationOpType(call), TF_OperationNumInputs(call),
           TF_OperationNumOutputs(call));
    opts = TF_NewSessionOptions();
    session = TF_NewSession(g, opts, s);
    TF_DeleteSessionOptions(opts);
    if (TF_GetCode(s) != TF_OK) Die("session");
    TF_Output call_out[2] = {{call, 0}, {call, 1}};
    TF_SessionRun(session, NULL, NULL, NULL, 0, call_out, got, 2, NULL, 0, NULL,
                  s);
    PrintStatus("run of the direct call");
    if (TF_GetCode(s) == TF_OK) {
      printf("direct call results: %g %g\n", *(float*)TF_TensorData(got[0]),
             *(float*)TF_TensorData(got[1]));
      TF_DeleteTensor(got[0]);
      TF_DeleteTensor(got[1]);
    }
    TF_CloseSession(session, s);
    TF_DeleteSession(session, s);
  }
  d = TF_NewOperation(g, "no_such_function", "bad_call");
  TF_AddInput(d, x[0]);
  TF_FinishOperation(d, s);
  printf("call of an unknown function: code %d\n", TF_GetCode(s));

  /* Function removal and debug strings. */
  size_t len = 0;
  char* text = TF_FunctionDebugString(body, &len);
  printf("debug string of body2: %s, names it: %s\n",
         text && len == strlen(text) ? "a string" : "wrong",
         text && strstr(text, "body2") ? "yes" : "no");
  free(text);
  printf("functions: %d\n", TF_GraphNumFunctions(g));
  Clear();
  TF_GraphRemoveFunction(g, "no_such_function", s);
  printf("remove of a missing function: code %d\n", TF_GetCode(s));
  Clear();
  TF_GraphRemoveFunction(g, "cond2", s);
  PrintStatus("remove of cond2");
  printf("functions: %d\n", TF_GraphNumFunctions(g));
  TF_DeleteFunction(cond);
  TF_DeleteFunction(body);
  TF_DeleteGraph(g);
}

/* --------------------------------------------------- checkpoint reader */

static void Checkpoint(const char* prefix) {
  Clear();
  TF_CheckpointReader* r = TF_NewCheckpointReader("/no/such/checkpoint", s);
  printf("reader of a missing checkpoint: %s, code %d\n", r ? "a reader" : "NULL",
         TF_GetCode(s));
  if (r) TF_DeleteCheckpointReader(r);
  Clear();
  r = TF_NewCheckpointReader(prefix, s);
  if (TF_GetCode(s) != TF_OK) Die("TF_NewCheckpointReader");
  int n = TF_CheckpointReaderSize(r);
  printf("checkpoint variables: %d\n", n);
  for (int i = 0; i < n; ++i) {
    const char* name = TF_CheckpointReaderGetVariable(r, i);
    int rank = TF_CheckpointReaderGetVariableNumDims(r, name);
    int64_t dims[8] = {0};
    Clear();
    TF_CheckpointReaderGetVariableShape(r, name, dims, rank, s);
    if (TF_GetCode(s) != TF_OK) Die("shape");
    printf("  %s dtype %d shape [", name,
           TF_CheckpointReaderGetVariableDataType(r, name));
    for (int j = 0; j < rank; ++j) printf("%s%lld", j ? "," : "", (long long)dims[j]);
    printf("] has %d", TF_CheckpointReaderHasTensor(r, name));
    Clear();
    TF_Tensor* t = TF_CheckpointReaderGetTensor(r, name, s);
    if (TF_GetCode(s) != TF_OK) Die("tensor");
    if (TF_TensorType(t) == TF_FLOAT) {
      double sum = 0;
      const float* v = (const float*)TF_TensorData(t);
      for (size_t k = 0; k < TF_TensorByteSize(t) / sizeof(float); ++k) sum += v[k];
      printf(" sum %.6f", sum);
    } else {
      printf(" %zu bytes", TF_TensorByteSize(t));
    }
    printf("\n");
    TF_DeleteTensor(t);
  }
  printf("has an unknown tensor: %d\n",
         TF_CheckpointReaderHasTensor(r, "no/such/variable"));
  Clear();
  TF_Tensor* t = TF_CheckpointReaderGetTensor(r, "no/such/variable", s);
  printf("tensor of an unknown variable: %s, code %d\n", t ? "a tensor" : "NULL",
         TF_GetCode(s));
  if (t) TF_DeleteTensor(t);
  TF_DeleteCheckpointReader(r);
}

/* ---------------------------------------------- attr builders and more */

static void AttrBuilders(void) {
  TF_AttrBuilder* b = TF_NewAttrBuilder("MatMul");
  TF_AttrBuilderSetType(b, "T", TF_FLOAT);
  Clear();
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  printf("MatMul float on CPU: code %d\n", TF_GetCode(s));
  TF_DeleteAttrBuilder(b);
  b = TF_NewAttrBuilder("MatMul");
  TF_AttrBuilderSetType(b, "T", TF_STRING);
  Clear();
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  printf("MatMul string on CPU: code %d\n", TF_GetCode(s));
  TF_DeleteAttrBuilder(b);
  b = TF_NewAttrBuilder("IdentityN");
  TF_DataType types[2] = {TF_FLOAT, TF_INT32};
  TF_AttrBuilderSetTypeList(b, "T", types, 2);
  Clear();
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  printf("IdentityN [float, int32] on CPU: code %d\n", TF_GetCode(s));
  TF_DeleteAttrBuilder(b);

  Clear();
  const char* attr = TF_GetNumberAttrForOpListInput("ConcatV2", 0, s);
  printf("number attr of ConcatV2 input 0: %s code %d\n", attr ? attr : "NULL",
         TF_GetCode(s));
  Clear();
  attr = TF_GetNumberAttrForOpListInput("AddN", 0, s);
  printf("number attr of AddN input 0: %s code %d\n", attr ? attr : "NULL",
         TF_GetCode(s));

  Clear();
  attr = TF_GetNumberAttrForOpListInput("MatMul", 0, s);
  printf("number attr of MatMul input 0: %s code %d\n", attr ? attr : "NULL",
         TF_GetCode(s));
  Clear();
  attr = TF_GetNumberAttrForOpListInput("ConcatV2", 7, s);
  printf("number attr of ConcatV2 input 7: %s code %d\n", attr ? attr : "NULL",
         TF_GetCode(s));
  Clear();
  attr = TF_GetNumberAttrForOpListInput("NoSuchOpAnywhere", 0, s);
  printf("number attr of an unknown op: %s code %d\n", attr ? attr : "NULL",
         TF_GetCode(s));

  TF_ShapeAndTypeList* list = TF_NewShapeAndTypeList(3);
  int64_t dims[2] = {4, -1};
  TF_ShapeAndTypeListSetShape(list, 0, dims, 2);
  TF_ShapeAndTypeListSetDtype(list, 0, TF_INT64);
  TF_ShapeAndTypeListSetUnknownShape(list, 1);
  printf("shape-and-type list: %d items:", list->num_items);
  for (int i = 0; i < list->num_items; ++i) {
    printf(" [rank %d dtype %d", list->items[i].num_dims, list->items[i].dtype);
    for (int j = 0; j < list->items[i].num_dims; ++j) {
      printf(" %lld", (long long)list->items[i].dims[j]);
    }
    printf("]");
  }
  printf("\n");
  TF_DeleteShapeAndTypeList(list);
  TF_ShapeAndTypeList** lists = malloc(2 * sizeof *lists);
  lists[0] = TF_NewShapeAndTypeList(1);
  lists[1] = TF_NewShapeAndTypeList(0);
  TF_DeleteShapeAndTypeListArray(lists, 2);

  printf("XLA: lazy %d, cpu jit %d, auto jit %d, folding disabled %d\n",
         TF_SetXlaEnableLazyCompilation(1), TF_SetTfXlaCpuGlobalJit(0),
         TF_GetXlaAutoJitEnabled(), TF_GetXlaConstantFoldingDisabled());
  TF_SetXlaConstantFoldingDisabled(1);
  printf("folding disabled after setting it: %d\n",
         TF_GetXlaConstantFoldingDisabled());
  TF_SetXlaConstantFoldingDisabled(0);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CHECKPOINT_PREFIX\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  s = TF_NewStatus();
  ApiDefs();
  HandleShapes();
  WhileInputHack();
  Checkpoint(argv[1]);
  AttrBuilders();
  TF_DeleteStatus(s);
  printf("DONE\n");
  return 0;
}
