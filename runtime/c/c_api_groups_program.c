/* A C program over each group of the C API that the other differential
 * programs do not reach, whose output must be the same linked against
 * stepflow's libtensorflow.so.2 and against TensorFlow's own library
 * (c_api_differential_live_test.sh; its golden is
 * testdata/c_api_groups_program.golden): status payloads, buffers,
 * tensors (deallocators, TF_TensorMaybeMove, TF_SetShape, bitcasts),
 * TF_TString, string tensors through a session, attribute metadata and
 * getters, operation queries (consumers, control edges, iteration),
 * import options, export and re-import, TF_NewWhile loops, device lists,
 * servers, and the deprecated TF_Run / TF_PRun sessions. */
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

/* Some calls leave the status alone on success: clear it before them. */
static void Clear(void) { TF_SetStatus(s, TF_OK, ""); }

static void PrintStatus(const char* label) {
  printf("%s: code %d", label, TF_GetCode(s));
  if (TF_GetCode(s) != TF_OK) printf(" \"%s\"", TF_Message(s));
  printf("\n");
}

static TF_Operation* Placeholder(TF_Graph* g, const char* name,
                                 TF_DataType type) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", type);
  TF_Operation* op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die(name);
  return op;
}

static TF_Operation* ScalarConst(TF_Graph* g, const char* name, float v) {
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float*)TF_TensorData(t) = v;
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_Operation* op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die(name);
  return op;
}

static TF_Operation* Binary(TF_Graph* g, const char* type, const char* name,
                            TF_Output a, TF_Output b) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  TF_Operation* op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die(name);
  return op;
}

static TF_Session* NewSession(TF_Graph* g) {
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, opts, s);
  TF_DeleteSessionOptions(opts);
  if (TF_GetCode(s) != TF_OK) Die("TF_NewSession");
  return session;
}

static void CloseSession(TF_Session* session) {
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
}

/* ------------------------------------------------------------- status */

/* Payloads are visited in no set order: collected, then printed sorted. */
static char payloads[8][64];
static int num_payloads = 0;

static void CollectPayload(const char* key, const char* value, void* capture) {
  (void)capture;
  if (num_payloads < 8) {
    snprintf(payloads[num_payloads++], sizeof payloads[0], "%s = %s", key,
             value);
  }
}

static int CompareStrings(const void* a, const void* b) {
  return strcmp((const char*)a, (const char*)b);
}

static void Status(void) {
  TF_Status* st = TF_NewStatus();
  printf("new status: code %d, message \"%s\"\n", TF_GetCode(st),
         TF_Message(st));
  TF_SetStatus(st, TF_ABORTED, "step aborted");
  TF_SetPayload(st, "type.googleapis.com/a", "1");
  TF_SetPayload(st, "type.googleapis.com/b", "2");
  printf("aborted: code %d, message \"%s\"\n", TF_GetCode(st), TF_Message(st));
  TF_ForEachPayload(st, CollectPayload, NULL);
  qsort(payloads, num_payloads, sizeof payloads[0], CompareStrings);
  for (int i = 0; i < num_payloads; ++i) printf("  payload %s\n", payloads[i]);
  TF_SetStatus(st, TF_OK, "ignored");
  printf("ok again: code %d, message \"%s\"\n", TF_GetCode(st),
         TF_Message(st));
  TF_DeleteStatus(st);
}

/* ------------------------------------------------------------ buffers */

static void Buffers(void) {
  TF_Buffer* b = TF_NewBufferFromString("abc", 3);
  TF_Buffer copy = TF_GetBuffer(b);
  printf("buffer: %zu bytes \"%.*s\", copy %zu bytes\n", b->length,
         (int)b->length, (const char*)b->data, copy.length);
  TF_DeleteBuffer(b);
  TF_Buffer* empty = TF_NewBuffer();
  printf("empty buffer: %zu bytes, data %s\n", empty->length,
         empty->data ? "set" : "NULL");
  TF_DeleteBuffer(empty);
}

/* ------------------------------------------------------------ tensors */

/* Counts its calls in *arg; frees the 64-byte aligned block the data
 * lies in. */
static void TensorDeallocator(void* data, size_t len, void* arg) {
  (void)len;
  *(int*)arg += 1;
  free((void*)((uintptr_t)data & ~(uintptr_t)63));
}

/* 64 bytes of floats 0, 1, 2, ... at a 64-byte boundary. */
static float* AlignedFloats(void) {
  float* data = aligned_alloc(64, 64);
  for (int i = 0; i < 16; ++i) data[i] = (float)i;
  return data;
}

static void Tensors(void) {
  printf("default alignment: %zu\n", TF_TensorDefaultAlignment());
  printf("type sizes: float %zu, double %zu, int8 %zu, bool %zu, string %zu\n",
         TF_DataTypeSize(TF_FLOAT), TF_DataTypeSize(TF_DOUBLE),
         TF_DataTypeSize(TF_INT8), TF_DataTypeSize(TF_BOOL),
         TF_DataTypeSize(TF_STRING));
  int64_t dims[2] = {2, 3};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, 2, 6 * sizeof(float));
  printf("allocated: type %d, rank %d, dims %lld x %lld, %zu bytes, %lld "
         "elements, aligned %d\n",
         TF_TensorType(t), TF_NumDims(t), (long long)TF_Dim(t, 0),
         (long long)TF_Dim(t, 1), TF_TensorByteSize(t),
         (long long)TF_TensorElementCount(t), TF_TensorIsAligned(t));
  int64_t flat[1] = {6};
  TF_SetShape(t, flat, 1);
  printf("after TF_SetShape: rank %d, dim %lld\n", TF_NumDims(t),
         (long long)TF_Dim(t, 0));
  /* A sole owner moves: `t` is gone, the result holds its bytes. */
  TF_Tensor* moved = TF_TensorMaybeMove(t);
  printf("maybe move of a sole owner: %s\n", moved ? "moved" : "NULL");
  TF_DeleteTensor(moved ? moved : t);

  /* Aligned caller memory is used in place (and freed by the deallocator
   * once no tensor uses it); misaligned memory is copied and handed back
   * at once. */
  int calls = 0;
  float* data = AlignedFloats();
  int64_t four[1] = {4};
  TF_Tensor* owned = TF_NewTensor(TF_FLOAT, four, 1, data, 4 * sizeof(float),
                                  TensorDeallocator, &calls);
  printf("new tensor over aligned caller memory: in place %d, calls %d\n",
         TF_TensorData(owned) == data, calls);
  int misaligned_calls = 0;
  float* misaligned = AlignedFloats() + 1;
  TF_Tensor* copied =
      TF_NewTensor(TF_FLOAT, four, 1, misaligned, 4 * sizeof(float),
                   TensorDeallocator, &misaligned_calls);
  printf("new tensor over misaligned caller memory: in place %d, calls %d, "
         "first %g\n",
         TF_TensorData(copied) == misaligned, misaligned_calls,
         *(float*)TF_TensorData(copied));
  TF_DeleteTensor(copied);
  int64_t two_by_two[2] = {2, 2};
  TF_Tensor* view = TF_AllocateTensor(TF_INT32, two_by_two, 2, 16);
  TF_TensorBitcastFrom(owned, TF_INT32, view, two_by_two, 2, s);
  PrintStatus("bitcast float[4] to int32[2,2]");
  printf("  shares the bytes: %d, first word 0x%08x\n",
         TF_TensorData(view) == TF_TensorData(owned),
         ((uint32_t*)TF_TensorData(view))[1]);
  int64_t three[1] = {3};
  TF_TensorBitcastFrom(owned, TF_INT32, view, three, 1, s);
  printf("bitcast to 3 elements: code %d\n", TF_GetCode(s));
  TF_TensorBitcastFrom(owned, TF_INT64, view, two_by_two, 2, s);
  printf("bitcast to int64[2,2]: code %d\n", TF_GetCode(s));
  TF_DeleteTensor(owned);
  printf("deallocator calls with a view alive: %d\n", calls);
  TF_DeleteTensor(view);
  printf("deallocator calls after both: %d\n", calls);

  /* A length that does not match the shape: NULL, and the deallocator
   * runs at once (as TensorFlow documents). */
  calls = 0;
  data = AlignedFloats();
  TF_Tensor* bad = TF_NewTensor(TF_FLOAT, four, 1, data, 8, TensorDeallocator,
                                &calls);
  printf("new tensor of the wrong length: %s, deallocator calls %d\n",
         bad ? "a tensor" : "NULL", calls);
  if (bad) TF_DeleteTensor(bad);
}

/* ------------------------------------------------------------ strings */

static void Strings(void) {
  TF_TString str;
  TF_TString_Init(&str);
  printf("empty tstring: size %zu, type %d\n", TF_TString_GetSize(&str),
         (int)TF_TString_GetType(&str));
  TF_TString_Copy(&str, "short", 5);
  printf("small: \"%.*s\" type %d\n", (int)TF_TString_GetSize(&str),
         TF_TString_GetDataPointer(&str), (int)TF_TString_GetType(&str));
  const char* long_text = "a string longer than the inline capacity of 22";
  TF_TString_Copy(&str, long_text, strlen(long_text));
  printf("large: size %zu type %d\n", TF_TString_GetSize(&str),
         (int)TF_TString_GetType(&str));
  TF_TString_AppendN(&str, "!?", 1);
  printf("appended: \"%.*s\"\n", (int)TF_TString_GetSize(&str),
         TF_TString_GetDataPointer(&str));
  TF_TString view;
  TF_TString_Init(&view);
  TF_TString_AssignView(&view, long_text, 8);
  printf("view: \"%.*s\" type %d\n", (int)TF_TString_GetSize(&view),
         TF_TString_GetDataPointer(&view), (int)TF_TString_GetType(&view));
  TF_TString_Dealloc(&view);

  /* Fed and fetched through a session: Identity of a string vector. */
  TF_Graph* g = TF_NewGraph();
  TF_Operation* in = Placeholder(g, "in", TF_STRING);
  TF_OperationDescription* d = TF_NewOperation(g, "Identity", "out");
  TF_AddInput(d, (TF_Output){in, 0});
  TF_Operation* out = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("Identity");
  int64_t two[1] = {2};
  TF_Tensor* feed =
      TF_AllocateTensor(TF_STRING, two, 1, 2 * sizeof(TF_TString));
  TF_TString* elems = (TF_TString*)TF_TensorData(feed);
  TF_TString_Init(&elems[0]);
  TF_TString_Init(&elems[1]);
  TF_TString_Copy(&elems[0], "hello", 5);
  TF_TString_Copy(&elems[1], long_text, strlen(long_text));
  TF_Session* session = NewSession(g);
  TF_Output feed_out = {in, 0}, fetch = {out, 0};
  TF_Tensor* got = NULL;
  TF_SessionRun(session, NULL, &feed_out, &feed, 1, &fetch, &got, 1, NULL, 0,
                NULL, s);
  PrintStatus("string run");
  if (got != NULL) {
    const TF_TString* r = (const TF_TString*)TF_TensorData(got);
    for (int i = 0; i < 2; ++i) {
      printf("  fetched %d: \"%.*s\"\n", i, (int)TF_TString_GetSize(&r[i]),
             TF_TString_GetDataPointer(&r[i]));
    }
    TF_DeleteTensor(got);
  }
  CloseSession(session);
  TF_DeleteTensor(feed);
  TF_TString_Dealloc(&str);
  TF_DeleteGraph(g);
}

/* --------------------------------------------------- attrs and queries */

static void Attrs(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT);
  TF_OperationDescription* d = TF_NewOperation(g, "Conv2D", "conv");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){x, 0});
  int64_t strides[4] = {1, 2, 2, 1};
  TF_SetAttrIntList(d, "strides", strides, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_SetAttrType(d, "T", TF_FLOAT);
  TF_Operation* conv = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("Conv2D");
  const char* names[] = {"T", "strides", "padding", "use_cudnn_on_gpu",
                         "data_format", "dilations", "explicit_paddings",
                         "no_such_attr"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    Clear();
    TF_AttrMetadata m = TF_OperationGetAttrMetadata(conv, names[i], s);
    printf("attr %s: code %d", names[i], TF_GetCode(s));
    if (TF_GetCode(s) == TF_OK) {
      printf(" list %d size %lld type %d total_size %lld",
             (int)m.is_list, (long long)m.list_size, (int)m.type,
             (long long)m.total_size);
    }
    printf("\n");
  }
  char padding[8] = {0};
  Clear();
  TF_OperationGetAttrString(conv, "padding", padding, 4, s);
  PrintStatus("get padding");
  int64_t got_strides[4] = {0};
  Clear();
  TF_OperationGetAttrIntList(conv, "strides", got_strides, 4, s);
  PrintStatus("get strides");
  unsigned char cudnn = 0;
  Clear();
  TF_OperationGetAttrBool(conv, "use_cudnn_on_gpu", &cudnn, s);
  PrintStatus("get use_cudnn_on_gpu");
  TF_DataType t = 0;
  Clear();
  TF_OperationGetAttrType(conv, "T", &t, s);
  PrintStatus("get T");
  printf("padding %s strides %lld,%lld,%lld,%lld cudnn %d T %d\n", padding,
         (long long)got_strides[0], (long long)got_strides[1],
         (long long)got_strides[2], (long long)got_strides[3], cudnn, t);
  int64_t one_int;
  TF_OperationGetAttrInt(conv, "padding", &one_int, s);
  printf("padding read as an int: code %d\n", TF_GetCode(s));
  TF_DeleteGraph(g);
}

static void Queries(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT);
  TF_Operation* c = ScalarConst(g, "c", 2);
  TF_Operation* mul = Binary(g, "Mul", "mul", (TF_Output){x, 0},
                             (TF_Output){c, 0});
  TF_Operation* add = Binary(g, "AddV2", "add", (TF_Output){mul, 0},
                             (TF_Output){x, 0});
  TF_OperationDescription* d = TF_NewOperation(g, "NoOp", "after");
  TF_AddControlInput(d, add);
  TF_AddControlInput(d, mul);
  TF_SetDevice(d, "/cpu:0");
  TF_Operation* after = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("NoOp");

  printf("x consumers: %d\n", TF_OperationOutputNumConsumers((TF_Output){x, 0}));
  TF_Input consumers[4];
  int n = TF_OperationOutputConsumers((TF_Output){x, 0}, consumers, 4);
  for (int i = 0; i < n; ++i) {
    printf("  %s input %d\n", TF_OperationName(consumers[i].oper),
           consumers[i].index);
  }
  printf("after: %d control inputs, device \"%s\"\n",
         TF_OperationNumControlInputs(after), TF_OperationDevice(after));
  TF_Operation* controls[4];
  n = TF_OperationGetControlInputs(after, controls, 4);
  for (int i = 0; i < n; ++i) printf("  control input %s\n", TF_OperationName(controls[i]));
  printf("add: %d control outputs\n", TF_OperationNumControlOutputs(add));
  printf("add output type %d, input 0 from %s\n",
         TF_OperationOutputType((TF_Output){add, 0}),
         TF_OperationName(TF_OperationInput((TF_Input){add, 0}).oper));
  printf("mul input list \"x\": length %d\n",
         TF_OperationInputListLength(mul, "x", s));
  Clear();
  TF_OperationInputListLength(mul, "nope", s);
  printf("unknown input list: code %d\n", TF_GetCode(s));

  size_t pos = 0;
  TF_Operation* op;
  int count = 0;
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL) ++count;
  printf("operations: %d\n", count);
  printf("by name: %s, missing %s\n",
         TF_OperationName(TF_GraphOperationByName(g, "mul")),
         TF_GraphOperationByName(g, "nope") ? "found" : "NULL");
  TF_DeleteGraph(g);
}

/* ------------------------------------------------ import and export */

static void ImportExport(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT);
  TF_Operation* c = ScalarConst(g, "c", 3);
  Binary(g, "Mul", "y", (TF_Output){x, 0}, (TF_Output){c, 0});
  TF_Buffer* def = TF_NewBuffer();
  TF_GraphToGraphDef(g, def, s);
  if (TF_GetCode(s) != TF_OK) Die("TF_GraphToGraphDef");

  /* Into a second graph: x mapped to a const there, a control dependency
   * on another node, returns, and an unused mapping. */
  TF_Graph* h = TF_NewGraph();
  TF_Operation* five = ScalarConst(h, "five", 5);
  TF_Operation* gate = ScalarConst(h, "gate", 0);
  TF_ImportGraphDefOptions* o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "imported");
  TF_ImportGraphDefOptionsAddInputMapping(o, "x", 0, (TF_Output){five, 0});
  TF_ImportGraphDefOptionsAddInputMapping(o, "unused", 0, (TF_Output){five, 0});
  TF_ImportGraphDefOptionsAddControlDependency(o, gate);
  TF_ImportGraphDefOptionsAddReturnOutput(o, "y", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(o, "c");
  TF_ImportGraphDefResults* r = TF_GraphImportGraphDefWithResults(h, def, o, s);
  PrintStatus("import with mapping");
  if (r != NULL) {
    int n;
    TF_Output* outs;
    TF_ImportGraphDefResultsReturnOutputs(r, &n, &outs);
    printf("  return output: %s:%d\n", TF_OperationName(outs[0].oper),
           outs[0].index);
    TF_Operation** ops;
    TF_ImportGraphDefResultsReturnOperations(r, &n, &ops);
    printf("  return operation: %s, %d control inputs\n",
           TF_OperationName(ops[0]), TF_OperationNumControlInputs(ops[0]));
    const char** names;
    int* indexes;
    TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names,
                                                       &indexes);
    printf("  missing unused input mappings: %d", n);
    for (int i = 0; i < n; ++i) printf(" %s:%d", names[i], indexes[i]);
    printf("\n");
    TF_Session* session = NewSession(h);
    TF_Tensor* got = NULL;
    TF_SessionRun(session, NULL, NULL, NULL, 0, outs, &got, 1, NULL, 0, NULL,
                  s);
    PrintStatus("  run");
    if (got) {
      printf("  imported y = %g\n", *(float*)TF_TensorData(got));
      TF_DeleteTensor(got);
    }
    CloseSession(session);
    TF_DeleteImportGraphDefResults(r);
  }
  TF_DeleteImportGraphDefOptions(o);

  /* Again under the same prefix, uniquified. (Without uniquification
   * TensorFlow's importer adds nodes whose names the graph already has;
   * stepflow refuses that import.) */
  o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "imported");
  TF_ImportGraphDefOptionsSetUniquifyPrefix(o, 1);
  TF_ImportGraphDefOptionsAddInputMapping(o, "x", 0, (TF_Output){five, 0});
  TF_GraphImportGraphDef(h, def, o, s);
  PrintStatus("import with a uniquified prefix");
  printf("  imported_1/y exists: %d\n",
         TF_GraphOperationByName(h, "imported_1/y") != NULL);
  TF_DeleteImportGraphDefOptions(o);

  size_t pos = 0;
  TF_Operation* op;
  printf("operations after the imports:");
  while ((op = TF_GraphNextOperation(h, &pos)) != NULL) {
    printf(" %s", TF_OperationName(op));
  }
  printf("\n");
  TF_DeleteBuffer(def);
  TF_DeleteGraph(h);
  TF_DeleteGraph(g);
}

/* ------------------------------------------------------- while loops */

static void WhileLoop(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* start = ScalarConst(g, "start", 1);
  TF_Output inputs[1] = {{start, 0}};
  TF_WhileParams p = TF_NewWhile(g, inputs, 1, s);
  if (TF_GetCode(s) != TF_OK) Die("TF_NewWhile");
  TF_Operation* limit = ScalarConst(p.cond_graph, "limit", 100);
  TF_OperationDescription* d = TF_NewOperation(p.cond_graph, "Less", "less");
  TF_AddInput(d, p.cond_inputs[0]);
  TF_AddInput(d, (TF_Output){limit, 0});
  p.cond_output = (TF_Output){TF_FinishOperation(d, s), 0};
  if (TF_GetCode(s) != TF_OK) Die("cond");
  TF_Operation* two = ScalarConst(p.body_graph, "two", 2);
  d = TF_NewOperation(p.body_graph, "Mul", "times_two");
  TF_AddInput(d, p.body_inputs[0]);
  TF_AddInput(d, (TF_Output){two, 0});
  p.body_outputs[0] = (TF_Output){TF_FinishOperation(d, s), 0};
  if (TF_GetCode(s) != TF_OK) Die("body");
  p.name = "doubling";
  TF_Output outputs[1];
  TF_FinishWhile(&p, s, outputs);
  PrintStatus("TF_FinishWhile");
  TF_Session* session = NewSession(g);
  TF_Tensor* got = NULL;
  TF_SessionRun(session, NULL, NULL, NULL, 0, outputs, &got, 1, NULL, 0, NULL,
                s);
  PrintStatus("loop run");
  if (got) {
    printf("  loop result %g\n", *(float*)TF_TensorData(got));
    TF_DeleteTensor(got);
  }
  CloseSession(session);

  TF_WhileParams aborted = TF_NewWhile(g, inputs, 1, s);
  if (TF_GetCode(s) != TF_OK) Die("second TF_NewWhile");
  TF_AbortWhile(&aborted);
  size_t pos = 0;
  TF_Operation* op;
  printf("operations after an aborted loop:");
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL) {
    printf(" %s", TF_OperationName(op));
  }
  printf("\n");
  TF_DeleteGraph(g);
}

/* ------------------------------------------ devices and deprecated API */

static void Devices(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Session* session = NewSession(g);
  TF_DeviceList* list = TF_SessionListDevices(session, s);
  if (TF_GetCode(s) != TF_OK) Die("TF_SessionListDevices");
  const int n = TF_DeviceListCount(list);
  int cpus = 0;
  for (int i = 0; i < n; ++i) {
    if (strcmp(TF_DeviceListType(list, i, s), "CPU") == 0) {
      ++cpus;
      printf("cpu device %s, memory %lld, incarnation set %d\n",
             TF_DeviceListName(list, i, s),
             (long long)TF_DeviceListMemoryBytes(list, i, s),
             TF_DeviceListIncarnation(list, i, s) != 0);
    }
  }
  printf("cpu devices: %d\n", cpus);
  Clear();
  TF_DeviceListName(list, n, s);
  printf("device past the end: code %d\n", TF_GetCode(s));
  TF_DeleteDeviceList(list);
  CloseSession(session);
  TF_DeleteGraph(g);
}

static void Deprecated(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* a = Placeholder(g, "a", TF_FLOAT);
  TF_Operation* b = Placeholder(g, "b", TF_FLOAT);
  TF_Operation* sum = Binary(g, "AddV2", "sum", (TF_Output){a, 0},
                             (TF_Output){b, 0});
  Binary(g, "Mul", "prod", (TF_Output){sum, 0}, (TF_Output){b, 0});
  TF_Buffer* def = TF_NewBuffer();
  TF_GraphToGraphDef(g, def, s);
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_DeprecatedSession* session = TF_NewDeprecatedSession(opts, s);
  TF_DeleteSessionOptions(opts);
  if (TF_GetCode(s) != TF_OK) Die("TF_NewDeprecatedSession");
  TF_ExtendGraph(session, def->data, def->length, s);
  PrintStatus("TF_ExtendGraph");

  const char* feeds[2] = {"a", "b"};
  TF_Tensor* values[2];
  for (int i = 0; i < 2; ++i) {
    values[i] = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
    *(float*)TF_TensorData(values[i]) = (float)(i + 2);
  }
  const char* fetches[1] = {"prod"};
  TF_Tensor* out[1] = {NULL};
  TF_Run(session, NULL, feeds, values, 2, fetches, out, 1, NULL, 0, NULL, s);
  PrintStatus("TF_Run");
  if (out[0]) {
    printf("  prod = %g\n", *(float*)TF_TensorData(out[0]));
    TF_DeleteTensor(out[0]);
  }
  /* The inputs stay the caller's. */
  TF_DeleteTensor(values[0]);
  TF_DeleteTensor(values[1]);

  const char* handle = NULL;
  const char* prun_fetches[2] = {"sum", "prod"};
  TF_PRunSetup(session, feeds, 2, prun_fetches, 2, NULL, 0, &handle, s);
  PrintStatus("TF_PRunSetup");
  TF_Tensor* a_value = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float*)TF_TensorData(a_value) = 1;
  TF_Tensor* b_value = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float*)TF_TensorData(b_value) = 10;
  TF_Tensor* feed_values[2] = {a_value, b_value};
  TF_PRun(session, handle, feeds, feed_values, 2, prun_fetches, out, 1, NULL,
          0, s);
  PrintStatus("TF_PRun sum");
  if (out[0]) {
    printf("  sum = %g\n", *(float*)TF_TensorData(out[0]));
    TF_DeleteTensor(out[0]);
  }
  TF_PRun(session, handle, NULL, NULL, 0, prun_fetches + 1, out, 1, NULL, 0, s);
  PrintStatus("TF_PRun prod");
  if (out[0]) {
    printf("  prod = %g\n", *(float*)TF_TensorData(out[0]));
    TF_DeleteTensor(out[0]);
  }
  TF_DeleteTensor(a_value);
  TF_DeleteTensor(b_value);
  TF_DeletePRunHandle(handle);
  TF_CloseDeprecatedSession(session, s);
  TF_DeleteDeprecatedSession(session, s);
  TF_DeleteBuffer(def);
  TF_DeleteGraph(g);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  s = TF_NewStatus();
  Status();
  Buffers();
  Tensors();
  Strings();
  Attrs();
  Queries();
  ImportExport();
  WhileLoop();
  Devices();
  Deprecated();
  TF_DeleteStatus(s);
  printf("DONE\n");
  return 0;
}
