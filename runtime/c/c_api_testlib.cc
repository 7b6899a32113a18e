// Helpers for the C API tests.
#include "runtime/c/c_api_testlib.h"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/graph.pb.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace c_api_test {

std::string GraphDefBytes(const std::string& text) {
  GraphDef gdef;
  absl::Status s = ParseGraphDefFromText(text, &gdef);
  EXPECT_TRUE(s.ok()) << s;
  std::string bytes;
  EXPECT_TRUE(gdef.SerializeToString(&bytes));
  return bytes;
}

TF_Code ImportText(TF_Graph* graph, const std::string& text,
                   const std::string& prefix, std::string* message) {
  const std::string bytes = GraphDefBytes(text);
  TF_Buffer* buf = TF_NewBufferFromString(bytes.data(), bytes.size());
  TF_ImportGraphDefOptions* opts = TF_NewImportGraphDefOptions();
  if (!prefix.empty()) TF_ImportGraphDefOptionsSetPrefix(opts, prefix.c_str());
  StatusPtr status = NewStatus();
  TF_GraphImportGraphDef(graph, buf, opts, status.get());
  TF_DeleteImportGraphDefOptions(opts);
  TF_DeleteBuffer(buf);
  if (message != nullptr) *message = TF_Message(status.get());
  return TF_GetCode(status.get());
}

TF_Tensor* FloatScalar(float value) {
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, nullptr, 0, sizeof(float));
  std::memcpy(TF_TensorData(t), &value, sizeof(float));
  return t;
}

float FloatValue(const TF_Tensor* t) {
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(t), 0);
  float v = 0;
  std::memcpy(&v, TF_TensorData(t), sizeof(float));
  return v;
}

}  // namespace c_api_test
}  // namespace stepflow
