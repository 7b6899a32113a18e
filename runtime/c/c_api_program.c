/* A plain C program over TensorFlow's C API, built outside Bazel with
 * `cc prog.c -ltensorflow` against an installed library: graph building and
 * running, string tensors, GraphDef import with an input mapping, and a
 * SavedModel load (argv[1], a SavedModel written by TensorFlow with a
 * "serving_default" of x:0 [n,5] -> probabilities:0 [n,3]).
 *
 * It checks what it can itself (exit status 1 on a failed check) and prints
 * every value it computed, so the same source linked against TensorFlow's
 * own library must print the same lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

static int failures = 0;

#define CHECK_OK(s, what)                                               \
  do {                                                                  \
    if (TF_GetCode(s) != TF_OK) {                                       \
      printf("FAILED %s: %d %s\n", what, TF_GetCode(s), TF_Message(s)); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

#define CHECK(cond, what)                 \
  do {                                    \
    if (!(cond)) {                        \
      printf("CHECK FAILED: %s\n", what); \
      ++failures;                         \
    }                                     \
  } while (0)

static TF_Operation* Placeholder(TF_Graph* g, const char* name,
                                 TF_DataType dtype, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dtype);
  TF_Operation* op = TF_FinishOperation(d, s);
  CHECK_OK(s, name);
  return op;
}

static TF_Operation* ScalarConst(TF_Graph* g, const char* name, float v,
                                 TF_Status* s) {
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float*)TF_TensorData(t) = v;
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* op = TF_FinishOperation(d, s);
  TF_DeleteTensor(t);
  CHECK_OK(s, name);
  return op;
}

static TF_Operation* Binary(TF_Graph* g, const char* type, const char* name,
                            TF_Output a, TF_Output b, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  TF_Operation* op = TF_FinishOperation(d, s);
  CHECK_OK(s, name);
  return op;
}

static TF_Tensor* RunOne(TF_Graph* g, TF_Output* feeds, TF_Tensor** values,
                         int nfeeds, TF_Output fetch, TF_Status* s) {
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, opts, s);
  TF_DeleteSessionOptions(opts);
  CHECK_OK(s, "TF_NewSession");
  TF_Tensor* out = NULL;
  TF_SessionRun(session, NULL, feeds, values, nfeeds, &fetch, &out, 1, NULL, 0,
                NULL, s);
  CHECK_OK(s, "TF_SessionRun");
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
  return out;
}

static void GraphBuilding(TF_Status* s) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", TF_FLOAT, s);
  TF_Operation* three = ScalarConst(g, "three", 3.0f, s);
  TF_Operation* sum =
      Binary(g, "AddV2", "sum", (TF_Output){x, 0}, (TF_Output){three, 0}, s);
  TF_Operation* prod =
      Binary(g, "Mul", "prod", (TF_Output){sum, 0}, (TF_Output){x, 0}, s);
  printf("ops: %s %s inputs=%d outputs=%d consumers(x)=%d\n",
         TF_OperationName(prod), TF_OperationOpType(prod),
         TF_OperationNumInputs(prod), TF_OperationNumOutputs(prod),
         TF_OperationOutputNumConsumers((TF_Output){x, 0}));

  TF_Tensor* feed = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float*)TF_TensorData(feed) = 4.0f;
  TF_Output fx = {x, 0};
  TF_Tensor* out = RunOne(g, &fx, &feed, 1, (TF_Output){prod, 0}, s);
  float v = *(float*)TF_TensorData(out);
  printf("(4 + 3) * 4 = %g\n", v);
  CHECK(v == 28.0f, "graph value");
  TF_DeleteTensor(out);
  TF_DeleteTensor(feed);

  /* The GraphDef, for the import below. */
  TF_Buffer* def = TF_NewBuffer();
  TF_GraphToGraphDef(g, def, s);
  CHECK_OK(s, "TF_GraphToGraphDef");

  /* Import it again under a prefix with x mapped to a new constant. */
  TF_Graph* g2 = TF_NewGraph();
  TF_Operation* ten = ScalarConst(g2, "ten", 10.0f, s);
  TF_ImportGraphDefOptions* opts = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(opts, "imported");
  TF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, (TF_Output){ten, 0});
  TF_ImportGraphDefOptionsAddReturnOutput(opts, "prod", 0);
  TF_ImportGraphDefResults* results =
      TF_GraphImportGraphDefWithResults(g2, def, opts, s);
  CHECK_OK(s, "import");
  int nout = 0;
  TF_Output* outs = NULL;
  TF_ImportGraphDefResultsReturnOutputs(results, &nout, &outs);
  int nmissing = 0;
  const char** missing_names = NULL;
  int* missing_indexes = NULL;
  TF_ImportGraphDefResultsMissingUnusedInputMappings(
      results, &nmissing, &missing_names, &missing_indexes);
  printf("imported: returned %s, missing input mappings %d\n",
         TF_OperationName(outs[0].oper), nmissing);
  out = RunOne(g2, NULL, NULL, 0, outs[0], s);
  v = *(float*)TF_TensorData(out);
  printf("imported with x := 10: %g\n", v);
  CHECK(v == 130.0f, "imported value");
  TF_DeleteTensor(out);
  TF_DeleteImportGraphDefResults(results);
  TF_DeleteImportGraphDefOptions(opts);
  TF_DeleteBuffer(def);
  TF_DeleteGraph(g2);
  TF_DeleteGraph(g);
}

static void StringTensors(TF_Status* s) {
  const char* words[] = {"", "hello",
                         "a string longer than the small-string "
                         "buffer of a TF_TString"};
  int64_t dims[1] = {3};
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, 1, 3 * sizeof(TF_TString));
  TF_TString* data = (TF_TString*)TF_TensorData(t);
  for (int i = 0; i < 3; ++i) {
    TF_StringInit(&data[i]);
    TF_StringCopy(&data[i], words[i], strlen(words[i]));
  }
  /* Run it through Identity and read it back. */
  TF_Graph* g = TF_NewGraph();
  TF_Operation* in = Placeholder(g, "words", TF_STRING, s);
  TF_OperationDescription* d = TF_NewOperation(g, "Identity", "same");
  TF_AddInput(d, (TF_Output){in, 0});
  TF_Operation* same = TF_FinishOperation(d, s);
  CHECK_OK(s, "Identity");
  TF_Output feed = {in, 0};
  TF_Tensor* out = RunOne(g, &feed, &t, 1, (TF_Output){same, 0}, s);
  const TF_TString* got = (const TF_TString*)TF_TensorData(out);
  for (int i = 0; i < 3; ++i) {
    printf("string %d: size=%zu \"%.*s\"\n", i, TF_StringGetSize(&got[i]),
           (int)TF_StringGetSize(&got[i]), TF_StringGetDataPointer(&got[i]));
    CHECK(TF_StringGetSize(&got[i]) == strlen(words[i]) &&
              memcmp(TF_StringGetDataPointer(&got[i]), words[i],
                     strlen(words[i])) == 0,
          "string round trip");
  }
  for (int i = 0; i < 3; ++i) TF_StringDealloc(&data[i]);
  TF_DeleteTensor(out);
  TF_DeleteTensor(t);
  TF_DeleteGraph(g);
}

static void SavedModel(const char* dir, TF_Status* s) {
  TF_Graph* g = TF_NewGraph();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  const char* tags[] = {"serve"};
  TF_Session* session =
      TF_LoadSessionFromSavedModel(opts, NULL, dir, tags, 1, g, NULL, s);
  TF_DeleteSessionOptions(opts);
  CHECK_OK(s, "TF_LoadSessionFromSavedModel");
  TF_Output x = {TF_GraphOperationByName(g, "x"), 0};
  TF_Output p = {TF_GraphOperationByName(g, "probabilities"), 0};
  CHECK(x.oper != NULL && p.oper != NULL, "signature tensors");
  int64_t dims[2] = {2, 5};
  TF_Tensor* in = TF_AllocateTensor(TF_FLOAT, dims, 2, 10 * sizeof(float));
  for (int i = 0; i < 10; ++i) {
    ((float*)TF_TensorData(in))[i] = (float)(i % 7) * 0.25f - 0.5f;
  }
  TF_Tensor* out = NULL;
  TF_SessionRun(session, NULL, &x, &in, 1, &p, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s, "SavedModel run");
  const float* prob = (const float*)TF_TensorData(out);
  printf("saved model: dims=%d [%lld,%lld]\n", TF_NumDims(out),
         (long long)TF_Dim(out, 0), (long long)TF_Dim(out, 1));
  for (int r = 0; r < 2; ++r) {
    float total = 0;
    printf("  row %d:", r);
    for (int c = 0; c < 3; ++c) {
      printf(" %.5f", prob[r * 3 + c]);
      total += prob[r * 3 + c];
    }
    printf("\n");
    CHECK(fabsf(total - 1.0f) < 1e-5f, "probabilities sum to 1");
  }
  TF_DeleteTensor(out);
  TF_DeleteTensor(in);
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SAVED_MODEL_DIR\n", argv[0]);
    return 2;
  }
  TF_Status* s = TF_NewStatus();
  GraphBuilding(s);
  StringTensors(s);
  SavedModel(argv[1], s);
  TF_DeleteStatus(s);
  printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
