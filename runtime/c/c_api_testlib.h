// Helpers for the C API tests: GraphDef bytes from text, small graph
// fragments, scalar tensors and a self-deleting TF_Status.
#ifndef STEPFLOW_RUNTIME_C_C_API_TESTLIB_H_
#define STEPFLOW_RUNTIME_C_C_API_TESTLIB_H_

#include <memory>
#include <string>

#include "runtime/c/c_api.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace c_api_test {

struct StatusDeleter {
  void operator()(TF_Status* s) const { TF_DeleteStatus(s); }
};
using StatusPtr = std::unique_ptr<TF_Status, StatusDeleter>;
inline StatusPtr NewStatus() { return StatusPtr(TF_NewStatus()); }

// Text-format node fragments (concatenate, then GraphDefBytes): the graph
// tests' own (runtime/graph/graph_test_util.h).
using ::stepflow::test::BinaryNode;
using ::stepflow::test::ConstFloatNode;
using ::stepflow::test::PlaceholderNode;

// Serialized (binary) GraphDef from its text form; aborts the test on a
// parse error.
std::string GraphDefBytes(const std::string& text);

// Imports text-format nodes into `graph`; returns the resulting code.
TF_Code ImportText(TF_Graph* graph, const std::string& text,
                   const std::string& prefix = "",
                   std::string* message = nullptr);

// A float scalar tensor (owned by the caller).
TF_Tensor* FloatScalar(float value);
// The value of a float scalar tensor.
float FloatValue(const TF_Tensor* t);

}  // namespace c_api_test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_C_C_API_TESTLIB_H_
