/* A C program that includes only TensorFlow's C API headers
 * (tensorflow/c/...): it builds a small graph operation by operation, runs
 * it with numeric and string feeds, and checks the values and the errors.
 * Exit status 0 on success; prints the failed check otherwise. */
#include <stdio.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#define CHECK_OK(s)                                                      \
  do {                                                                   \
    if (TF_GetCode(s) != TF_OK) {                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, TF_Message(s)); \
      return 1;                                                          \
    }                                                                    \
  } while (0)

static void NoDealloc(void* data, size_t len, void* arg) {
  (void)data;
  (void)len;
  (void)arg;
}

int main(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  CHECK(strlen(TF_Version()) > 0);
  CHECK(TF_DataTypeSize(TF_FLOAT) == 4);
  CHECK(TF_DataTypeSize(TF_STRING) == 0);
  CHECK(sizeof(TF_TString) == 24);

  /* x: a float [2] placeholder; two: a constant 2; y = x * two. */
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", "x");
  int64_t dims[1] = {2};
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", dims, 1);
  TF_Operation* x = TF_FinishOperation(d, s);
  CHECK_OK(s);

  float two_value = 2.0f;
  TF_Tensor* two_tensor = TF_NewTensor(TF_FLOAT, NULL, 0, &two_value,
                                       sizeof(float), NoDealloc, NULL);
  CHECK(two_tensor != NULL);
  d = TF_NewOperation(g, "Const", "two");
  TF_SetAttrTensor(d, "value", two_tensor, s);
  CHECK_OK(s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* two = TF_FinishOperation(d, s);
  CHECK_OK(s);
  TF_DeleteTensor(two_tensor);

  d = TF_NewOperation(g, "Mul", "y");
  TF_Output x_out = {x, 0};
  TF_Output two_out = {two, 0};
  TF_AddInput(d, x_out);
  TF_AddInput(d, two_out);
  TF_Operation* y = TF_FinishOperation(d, s);
  CHECK_OK(s);
  CHECK(strcmp(TF_OperationOpType(y), "Mul") == 0);
  CHECK(TF_GraphGetTensorNumDims(g, x_out, s) == 1);

  /* A mistake is an error, not a crash. */
  d = TF_NewOperation(g, "Mul", "bad");
  TF_AddInput(d, x_out);
  CHECK(TF_FinishOperation(d, s) == NULL);
  CHECK(TF_GetCode(s) == TF_INVALID_ARGUMENT);

  /* Run y with x = [1.5, -3]. */
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, opts, s);
  CHECK_OK(s);
  TF_DeleteSessionOptions(opts);
  TF_Tensor* x_value = TF_AllocateTensor(TF_FLOAT, dims, 1, 2 * sizeof(float));
  ((float*)TF_TensorData(x_value))[0] = 1.5f;
  ((float*)TF_TensorData(x_value))[1] = -3.0f;
  TF_Output y_out = {y, 0};
  TF_Tensor* y_value = NULL;
  TF_SessionRun(session, NULL, &x_out, &x_value, 1, &y_out, &y_value, 1, NULL,
                0, NULL, s);
  CHECK_OK(s);
  CHECK(TF_TensorType(y_value) == TF_FLOAT);
  CHECK(TF_NumDims(y_value) == 1 && TF_Dim(y_value, 0) == 2);
  CHECK(((float*)TF_TensorData(y_value))[0] == 3.0f);
  CHECK(((float*)TF_TensorData(y_value))[1] == -6.0f);
  TF_DeleteTensor(y_value);
  TF_DeleteTensor(x_value);

  /* Strings: an Identity over a string placeholder. */
  d = TF_NewOperation(g, "Placeholder", "words");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation* words = TF_FinishOperation(d, s);
  CHECK_OK(s);
  d = TF_NewOperation(g, "Identity", "same");
  TF_Output words_out = {words, 0};
  TF_AddInput(d, words_out);
  TF_Operation* same = TF_FinishOperation(d, s);
  CHECK_OK(s);
  int64_t one[1] = {1};
  TF_Tensor* text = TF_AllocateTensor(TF_STRING, one, 1, sizeof(TF_TString));
  TF_StringCopy((TF_TString*)TF_TensorData(text), "stepflow", 8);
  TF_Output same_out = {same, 0};
  TF_Tensor* text_out = NULL;
  TF_SessionRun(session, NULL, &words_out, &text, 1, &same_out, &text_out, 1,
                NULL, 0, NULL, s);
  CHECK_OK(s);
  const TF_TString* got = (const TF_TString*)TF_TensorData(text_out);
  CHECK(TF_StringGetSize(got) == 8);
  CHECK(memcmp(TF_StringGetDataPointer(got), "stepflow", 8) == 0);
  TF_DeleteTensor(text_out);
  TF_DeleteTensor(text);

  /* Devices. */
  TF_DeviceList* devices = TF_SessionListDevices(session, s);
  CHECK_OK(s);
  CHECK(TF_DeviceListCount(devices) >= 1);
  CHECK(strcmp(TF_DeviceListType(devices, 0, s), "CPU") == 0);
  TF_DeviceListName(devices, 99, s);
  CHECK(TF_GetCode(s) == TF_INVALID_ARGUMENT);
  TF_DeleteDeviceList(devices);

  TF_CloseSession(session, s);
  CHECK_OK(s);
  TF_DeleteSession(session, s);
  CHECK_OK(s);
  TF_DeleteGraph(g);

  TF_MakeInternalErrorStatus(s, "boom");
  CHECK(TF_GetCode(s) == TF_INTERNAL);
  TF_DeleteStatus(s);
  printf("c_api_tf_headers_c_test: OK\n");
  return 0;
}
