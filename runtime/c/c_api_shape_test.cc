// Shape inference through the C API: TF_FinishOperation and
// TF_GraphImportGraphDef run the ops' shape functions and refuse
// inconsistent shapes; TF_GraphGetTensorShape answers with what was
// inferred. Shapes and messages are TensorFlow 2.21's for the same calls.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::NewStatus;
using c_api_test::StatusPtr;

class CApiShapeTest : public ::testing::Test {
 protected:
  void TearDown() override { TF_DeleteGraph(graph_); }

  TF_Operation* Placeholder(const char* name, std::vector<int64_t> dims) {
    TF_OperationDescription* d = TF_NewOperation(graph_, "Placeholder", name);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    TF_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    return TF_FinishOperation(d, status_.get());
  }
  TF_Operation* Binary(const char* op, const char* name, TF_Operation* a,
                       TF_Operation* b) {
    TF_OperationDescription* d = TF_NewOperation(graph_, op, name);
    TF_AddInput(d, TF_Output{a, 0});
    TF_AddInput(d, TF_Output{b, 0});
    return TF_FinishOperation(d, status_.get());
  }
  // "[2,?]", or "?" for an unknown rank.
  std::string Shape(TF_Operation* op, int index = 0) {
    const TF_Output out{op, index};
    const int rank = TF_GraphGetTensorNumDims(graph_, out, status_.get());
    EXPECT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
    if (rank < 0) return "?";
    std::vector<int64_t> dims(rank);
    TF_GraphGetTensorShape(graph_, out, dims.data(), rank, status_.get());
    EXPECT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
    std::string s = "[";
    for (int i = 0; i < rank; ++i) {
      s += (i ? "," : "") +
           (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    }
    return s + "]";
  }

  TF_Graph* graph_ = TF_NewGraph();
  StatusPtr status_ = NewStatus();
};

TEST_F(CApiShapeTest, FinishOperationInfersShapes) {
  TF_Operation* a = Placeholder("a", {-1, 3});
  TF_Operation* b = Placeholder("b", {3, 4});
  TF_Operation* m = Binary("MatMul", "m", a, b);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(Shape(m), "[?,4]");
  TF_Operation* c = Placeholder("c", {4});
  TF_Operation* add = Binary("AddV2", "add", m, c);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(Shape(add), "[?,4]");

  // Refining an input does not re-run its consumers (as in TensorFlow).
  const int64_t batch[] = {8, 3};
  TF_GraphSetTensorShape(graph_, TF_Output{a, 0}, batch, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(Shape(a), "[8,3]");
  EXPECT_EQ(Shape(m), "[?,4]");
  TF_Operation* m2 = Binary("MatMul", "m2", a, b);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(Shape(m2), "[8,4]");
}

TEST_F(CApiShapeTest, FinishOperationRefusesInconsistentShapes) {
  TF_Operation* a = Placeholder("a", {2});
  TF_Operation* b = Placeholder("b", {3});
  EXPECT_EQ(Binary("Add", "add", a, b), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // TensorFlow's message, except that this C API's NodeDefs name output 0
  // "a:0" where TensorFlow's builder writes "a" (the node summary shows
  // the inputs as written).
  const std::string message = TF_Message(status_.get());
  EXPECT_EQ(message.substr(0, message.find("](") + 2),
            "Dimensions must be equal, but are 2 and 3 for '{{node add}} = "
            "Add[T=DT_FLOAT](");
  EXPECT_EQ(message.substr(message.find(")' with")),
            ")' with input shapes: [2], [3].");
  EXPECT_EQ(TF_GraphOperationByName(graph_, "add"), nullptr);
  // The name is free again.
  TF_Operation* ok = Binary("Add", "add", a, a);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(Shape(ok), "[2]");
}

TEST_F(CApiShapeTest, ImportInfersAndRefuses) {
  std::string message;
  ASSERT_EQ(c_api_test::ImportText(graph_, R"(
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 }
                                                dim { size: 6 } } } } }
    node { name: "t" op: "Transpose" input: "x" input: "perm"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tperm" value { type: DT_INT32 } } }
    node { name: "perm" op: "Const"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32
               tensor_shape { dim { size: 2 } } int_val: 1 int_val: 0 } } } })",
                                   "", &message),
            TF_OK)
      << message;
  EXPECT_EQ(Shape(TF_GraphOperationByName(graph_, "t")), "[6,2]");
  EXPECT_EQ(c_api_test::ImportText(graph_, R"(
    node { name: "y" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 }
                                                dim { size: 3 } } } } }
    node { name: "m" op: "AddV2" input: "x" input: "y"
           attr { key: "T" value { type: DT_FLOAT } } })",
                                   "", &message),
            TF_INVALID_ARGUMENT);
  // TensorFlow's message; the importer rewrites input "y" as "y:0".
  EXPECT_EQ(message.substr(0, message.find("](") + 2),
            "Dimensions must be equal, but are 6 and 3 for '{{node m}} = "
            "AddV2[T=DT_FLOAT](");
  EXPECT_EQ(message.substr(message.find(")' with")),
            ")' with input shapes: [2,6], [2,3].");
  EXPECT_EQ(TF_GraphOperationByName(graph_, "y"), nullptr);
  EXPECT_EQ(TF_GraphOperationByName(graph_, "m"), nullptr);
}

}  // namespace
}  // namespace stepflow
