/* A C program over the C API whose output must be the same linked against
 * stepflow's libtensorflow.so.2 and against TensorFlow's own library
 * (c_api_differential_live_test.sh): symbolic gradients (values, NULL
 * results, error codes and messages), functions built from graphs
 * (signature names, FunctionDef structure, results through
 * PartitionedCall, errors) and the kernel list of one op. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

static TF_Status* s;

static void Die(const char* what) {
  printf("FAILED %s: %d %s\n", what, TF_GetCode(s), TF_Message(s));
  exit(1);
}

static TF_Operation* Placeholder(TF_Graph* g, const char* name) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die(name);
  return op;
}

static TF_Operation* Op(TF_Graph* g, const char* type, const char* name,
                        TF_Output* in, int n) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; ++i) TF_AddInput(d, in[i]);
  TF_Operation* op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die(name);
  return op;
}

static TF_Tensor* Vector(const float* v, int n) {
  int64_t dims[1] = {n};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, 1, n * sizeof(float));
  memcpy(TF_TensorData(t), v, n * sizeof(float));
  return t;
}

static void PrintTensor(const char* label, TF_Tensor* t) {
  printf("%s [", label);
  const float* d = (const float*)TF_TensorData(t);
  size_t n = TF_TensorByteSize(t) / sizeof(float);
  for (size_t i = 0; i < n; ++i) printf("%s%.5f", i ? " " : "", d[i]);
  printf("]\n");
}

/* Runs `fetches` of g feeding placeholder x with `xv`. */
static void Run(TF_Graph* g, TF_Output x, TF_Tensor* xv, TF_Output* fetches,
                int n, TF_Tensor** out) {
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, opts, s);
  TF_DeleteSessionOptions(opts);
  if (TF_GetCode(s) != TF_OK) Die("session");
  TF_SessionRun(session, NULL, &x, &xv, 1, fetches, out, n, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) Die("run");
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
}

static void Gradients(void) {
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x");
  TF_Output xo = {x, 0};
  TF_Operation* t = Op(g, "Tanh", "t", &xo, 1);
  TF_Output tx[2] = {{t, 0}, {x, 0}};
  TF_Operation* m = Op(g, "Mul", "m", tx, 2);
  TF_Output mo = {m, 0};
  TF_Operation* sq = Op(g, "Square", "sq", &mo, 1);
  TF_Output so = {sq, 0};
  TF_Operation* sm = Op(g, "Softmax", "sm", &so, 1);
  TF_Output ys[2] = {{sm, 0}, {m, 0}};
  TF_Output dy[1];
  TF_AddGradients(g, ys, 2, &xo, 1, NULL, s, dy);
  if (TF_GetCode(s) != TF_OK) Die("gradients");
  printf("gradient op type: %s\n", TF_OperationOpType(dy[0].oper));

  float xs[4] = {-1.5f, -0.25f, 0.5f, 2.0f};
  TF_Tensor* xv = Vector(xs, 4);
  TF_Tensor* out[1];
  Run(g, xo, xv, dy, 1, out);
  PrintTensor("d(softmax((tanh(x)*x)^2) + tanh(x)*x)/dx", out[0]);
  TF_DeleteTensor(out[0]);

  /* With given initial gradients. */
  float w[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  TF_Tensor* wt = Vector(w, 4);
  TF_OperationDescription* d = TF_NewOperation(g, "Const", "w");
  TF_SetAttrTensor(d, "value", wt, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* wop = TF_FinishOperation(d, s);
  TF_DeleteTensor(wt);
  TF_Output wo = {wop, 0};
  TF_AddGradientsWithPrefix(g, "weighted", &mo, 1, &xo, 1, &wo, s, dy);
  if (TF_GetCode(s) != TF_OK) Die("weighted gradients");
  Run(g, xo, xv, dy, 1, out);
  PrintTensor("w . d(tanh(x)*x)/dx", out[0]);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(xv);

  /* Errors and a result with no gradient. */
  TF_AddGradientsWithPrefix(g, "m", &mo, 1, &xo, 1, NULL, s, dy);
  printf("prefix conflict: %d %s\n", TF_GetCode(s), TF_Message(s));
  TF_Operation* other = Placeholder(g, "other");
  TF_Output oo = {other, 0};
  TF_AddGradients(g, &mo, 1, &oo, 1, NULL, s, dy);
  printf("unreachable: %d %s\n", TF_GetCode(s), TF_Message(s));
  TF_Operation* fl = Op(g, "Floor", "floor", &xo, 1);
  TF_Output fo = {fl, 0};
  TF_AddGradients(g, &fo, 1, &xo, 1, NULL, s, dy);
  printf("floor: %d oper=%s index=%d\n", TF_GetCode(s),
         dy[0].oper == NULL ? "NULL" : "set", dy[0].index);
  TF_Operation* dg = Op(g, "Digamma", "digamma", &xo, 1);
  TF_Output dgo = {dg, 0};
  TF_AddGradients(g, &dgo, 1, &xo, 1, NULL, s, dy);
  printf("digamma: %d %s\n", TF_GetCode(s), TF_Message(s));
  TF_DeleteGraph(g);
}

/* Minimal protobuf wire reading, for the FunctionDef fields printed. */
typedef struct {
  const unsigned char* p;
  const unsigned char* end;
} Reader;

static uint64_t Varint(Reader* r) {
  uint64_t v = 0;
  for (int shift = 0; r->p < r->end; shift += 7) {
    unsigned char b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

/* Next field: its number, and for length-delimited ones the bytes in
 * *sub; other wire types are skipped (returns 0 at the end). */
static int Next(Reader* r, Reader* sub) {
  while (r->p < r->end) {
    uint64_t tag = Varint(r);
    int wire = (int)(tag & 7);
    if (wire == 2) {
      uint64_t n = Varint(r);
      sub->p = r->p;
      sub->end = r->p + n;
      r->p += n;
      return (int)(tag >> 3);
    }
    if (wire == 0) Varint(r);
    if (wire == 1) r->p += 8;
    if (wire == 5) r->p += 4;
  }
  return 0;
}

/* Prints the string fields `field` of message `m`, prefixed by `label`. */
static void Strings(Reader m, int field, const char* label) {
  Reader sub;
  int f;
  while ((f = Next(&m, &sub)) != 0) {
    if (f == field) printf(" %s%.*s", label, (int)(sub.end - sub.p), sub.p);
  }
}

static int CompareStrings(const void* a, const void* b) {
  return strcmp((const char*)a, (const char*)b);
}

/* The signature, nodes and returns of f's FunctionDef (returns sorted). */
static void PrintFunction(TF_Function* f) {
  TF_Buffer* buf = TF_NewBuffer();
  TF_FunctionToFunctionDef(f, buf, s);
  if (TF_GetCode(s) != TF_OK) Die("FunctionDef");
  char rets[16][128];
  int nret = 0;
  printf("function %s:", TF_FunctionName(f));
  Reader fdef = {buf->data, (const unsigned char*)buf->data + buf->length};
  Reader sub, arg;
  int field;
  while ((field = Next(&fdef, &sub)) != 0) {
    if (field == 1) { /* signature: OpDef */
      Reader sig = sub;
      int g;
      while ((g = Next(&sig, &arg)) != 0) {
        if (g == 2) Strings(arg, 1, "in=");
        if (g == 3) Strings(arg, 1, "out=");
        if (g == 6) printf(" description=%.*s", (int)(arg.end - arg.p), arg.p);
      }
    } else if (field == 3) { /* node_def */
      Strings(sub, 1, "node=");
      Strings(sub, 2, "op=");
      Strings(sub, 3, "input=");
    } else if (field == 4 && nret < 16) { /* ret entry (map: unordered) */
      Reader entry = sub, kv;
      int k;
      rets[nret][0] = '\0';
      while ((k = Next(&entry, &kv)) != 0) {
        size_t used = strlen(rets[nret]);
        snprintf(rets[nret] + used, sizeof(rets[nret]) - used, "%s%.*s",
                 k == 1 ? " ret:" : " ->", (int)(kv.end - kv.p), kv.p);
      }
      ++nret;
    }
  }
  qsort(rets, nret, sizeof(rets[0]), CompareStrings);
  for (int i = 0; i < nret; ++i) printf("%s", rets[i]);
  printf("\n");
  TF_DeleteBuffer(buf);
}

static void Functions(void) {
  TF_Graph* fg = TF_NewGraph();
  TF_Operation* a = Placeholder(fg, "Feed/A");
  TF_Operation* b = Placeholder(fg, "feed_b");
  TF_Output ab[2] = {{a, 0}, {b, 0}};
  TF_Operation* add = Op(fg, "AddV2", "add", ab, 2);
  TF_Output addo = {add, 0};
  TF_Operation* neg = Op(fg, "Neg", "Neg", &addo, 1);
  TF_Output outs[2] = {{neg, 0}, {add, 0}};
  TF_Function* f = TF_GraphToFunction(fg, "my_func", 0, -1, NULL, 2, ab, 2,
                                      outs, NULL, NULL, "desc", s);
  if (TF_GetCode(s) != TF_OK) Die("TF_GraphToFunction");
  PrintFunction(f);

  /* Call it through PartitionedCall. */
  TF_Graph* g = TF_NewGraph();
  TF_GraphCopyFunction(g, f, NULL, s);
  if (TF_GetCode(s) != TF_OK) Die("copy");
  TF_Operation* x = Placeholder(g, "x");
  TF_Output xo = {x, 0};
  TF_Output args[2] = {xo, xo};
  TF_OperationDescription* d = TF_NewOperation(g, "PartitionedCall", "call");
  TF_AddInputList(d, args, 2);
  TF_DataType tin[2] = {TF_FLOAT, TF_FLOAT}, tout[2] = {TF_FLOAT, TF_FLOAT};
  TF_SetAttrTypeList(d, "Tin", tin, 2);
  TF_SetAttrTypeList(d, "Tout", tout, 2);
  TF_SetAttrFuncName(d, "f", "my_func", 7);
  TF_Operation* call = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) Die("PartitionedCall");
  float xs[3] = {1.0f, -2.0f, 0.25f};
  TF_Tensor* xv = Vector(xs, 3);
  TF_Output fetches[2] = {{call, 0}, {call, 1}};
  TF_Tensor* out[2];
  Run(g, xo, xv, fetches, 2, out);
  PrintTensor("my_func(x, x)[0]", out[0]);
  PrintTensor("my_func(x, x)[1]", out[1]);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteTensor(xv);
  TF_DeleteGraph(g);
  TF_DeleteFunction(f);

  /* Errors. */
  TF_Output dup[2] = {{a, 0}, {a, 0}};
  f = TF_GraphToFunction(fg, "f", 0, -1, NULL, 2, dup, 1, &addo, NULL, NULL,
                         NULL, s);
  printf("duplicate input: %d %s\n", TF_GetCode(s), TF_Message(s));
  TF_Output bad = {a, 3};
  f = TF_GraphToFunction(fg, "f", 0, -1, NULL, 1, &bad, 1, &addo, NULL, NULL,
                         NULL, s);
  printf("bad index: %d %s\n", TF_GetCode(s), TF_Message(s));
  const TF_Operation* body[1] = {neg};
  f = TF_GraphToFunction(fg, "f", 0, 1, body, 1, ab, 1, &addo, NULL, NULL, NULL,
                         s);
  printf("missing input: %d %s\n", TF_GetCode(s), TF_Message(s));
  const char* names[2] = {"same", "same"};
  f = TF_GraphToFunction(fg, "f", 0, -1, NULL, 2, ab, 2, outs, names, NULL,
                         NULL, s);
  printf("duplicate output names: %d %s\n", TF_GetCode(s), TF_Message(s));
  TF_DeleteGraph(fg);
}

static void Kernels(void) {
  TF_Buffer* k = TF_GetRegisteredKernelsForOp("NoSuchOpAnywhere", s);
  printf("kernels of an unknown op: %d, %zu bytes\n", TF_GetCode(s), k->length);
  TF_DeleteBuffer(k);
}

int main(void) {
  s = TF_NewStatus();
  Gradients();
  Functions();
  Kernels();
  TF_DeleteStatus(s);
  printf("DONE\n");
  return 0;
}
