// Import options and results: prefixes (and their clashes), uniquified
// names and prefixes, input mappings (and the unused ones reported back),
// control remapping and dependencies, default devices, return outputs and
// operations, and atomicity on error.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/graph.pb.h"

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::GraphDefBytes;
using c_api_test::NewStatus;
using c_api_test::PlaceholderNode;
using c_api_test::StatusPtr;

const std::string kGraph = PlaceholderNode("x") + ConstFloatNode("c", 2) +
                           BinaryNode("AddV2", "z", "x", "c");

class CApiImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string bytes = GraphDefBytes(kGraph);
    graph_def_ = TF_NewBufferFromString(bytes.data(), bytes.size());
  }
  void TearDown() override {
    TF_DeleteImportGraphDefOptions(opts_);
    TF_DeleteBuffer(graph_def_);
    TF_DeleteGraph(graph_);
  }

  TF_ImportGraphDefResults* Import() {
    return TF_GraphImportGraphDefWithResults(graph_, graph_def_, opts_,
                                             status_.get());
  }

  TF_Graph* graph_ = TF_NewGraph();
  TF_Buffer* graph_def_ = nullptr;
  TF_ImportGraphDefOptions* opts_ = TF_NewImportGraphDefOptions();
  StatusPtr status_ = NewStatus();
};

TEST_F(CApiImportTest, PrefixReturnOutputsAndOperations) {
  TF_ImportGraphDefOptionsSetPrefix(opts_, "imported");
  TF_ImportGraphDefOptionsAddReturnOutput(opts_, "z", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(opts_, "c");
  EXPECT_EQ(TF_ImportGraphDefOptionsNumReturnOutputs(opts_), 1);
  EXPECT_EQ(TF_ImportGraphDefOptionsNumReturnOperations(opts_), 1);
  TF_ImportGraphDefResults* results = Import();
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  int n = 0;
  TF_Output* outputs = nullptr;
  TF_ImportGraphDefResultsReturnOutputs(results, &n, &outputs);
  ASSERT_EQ(n, 1);
  EXPECT_STREQ(TF_OperationName(outputs[0].oper), "imported/z");
  TF_Operation** opers = nullptr;
  TF_ImportGraphDefResultsReturnOperations(results, &n, &opers);
  ASSERT_EQ(n, 1);
  EXPECT_STREQ(TF_OperationName(opers[0]), "imported/c");
  TF_DeleteImportGraphDefResults(results);
  EXPECT_NE(TF_GraphOperationByName(graph_, "imported/x"), nullptr);

  // The same prefix again clashes, unless uniquified.
  EXPECT_EQ(Import(), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_GraphNumOperations(graph_), 3);
  TF_ImportGraphDefOptionsSetUniquifyPrefix(opts_, 1);
  results = Import();
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_ImportGraphDefResultsReturnOutputs(results, &n, &outputs);
  EXPECT_STREQ(TF_OperationName(outputs[0].oper), "imported_1/z");
  TF_DeleteImportGraphDefResults(results);
}

TEST_F(CApiImportTest, UniquifyNamesAndDefaultDevice) {
  TF_GraphImportGraphDef(graph_, graph_def_, nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  // Same names again: an error, then renamed with uniquify_names.
  TF_GraphImportGraphDef(graph_, graph_def_, opts_, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_ImportGraphDefOptionsSetUniquifyNames(opts_, 1);
  TF_ImportGraphDefOptionsSetDefaultDevice(opts_, "/cpu:0");
  TF_ImportGraphDefOptionsAddReturnOutput(opts_, "z", 0);
  TF_Output z;
  TF_GraphImportGraphDefWithReturnOutputs(graph_, graph_def_, opts_, &z, 1,
                                          status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_STREQ(TF_OperationName(z.oper), "z_1");
  EXPECT_STREQ(TF_OperationDevice(z.oper), "/cpu:0");
  TF_Output in = TF_OperationInput(TF_Input{z.oper, 0});
  EXPECT_STREQ(TF_OperationName(in.oper), "x_1");
  TF_GraphImportGraphDefWithReturnOutputs(graph_, graph_def_, opts_, &z, 2,
                                          status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
}

TEST_F(CApiImportTest, InputMappingsAndControlDependencies) {
  const std::string base = GraphDefBytes(PlaceholderNode("feed") +
                                         "node { name: 'init' op: 'NoOp' }");
  TF_Buffer* base_buf = TF_NewBufferFromString(base.data(), base.size());
  TF_GraphImportGraphDef(graph_, base_buf, nullptr, status_.get());
  TF_DeleteBuffer(base_buf);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_Operation* feed = TF_GraphOperationByName(graph_, "feed");
  TF_Operation* init = TF_GraphOperationByName(graph_, "init");

  TF_ImportGraphDefOptionsSetPrefix(opts_, "sub");
  TF_ImportGraphDefOptionsAddInputMapping(opts_, "x", 0, TF_Output{feed, 0});
  TF_ImportGraphDefOptionsAddInputMapping(opts_, "absent", 2,
                                          TF_Output{feed, 0});
  TF_ImportGraphDefOptionsAddInputMapping(opts_, "c", 5, TF_Output{feed, 0});
  TF_ImportGraphDefOptionsAddInputMapping(opts_, "z", 0, TF_Output{feed, 0});
  TF_ImportGraphDefOptionsAddControlDependency(opts_, init);
  TF_ImportGraphDefOptionsAddReturnOutput(opts_, "x", 0);
  TF_ImportGraphDefResults* results = Import();
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());

  TF_Operation* z = TF_GraphOperationByName(graph_, "sub/z");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(TF_OperationInput(TF_Input{z, 0}).oper, feed);
  // A mapped return output is the mapping's target.
  int n = 0;
  TF_Output* outputs = nullptr;
  TF_ImportGraphDefResultsReturnOutputs(results, &n, &outputs);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(outputs[0].oper, feed);
  // Nodes without imported inputs depend on init.
  TF_Operation* c = TF_GraphOperationByName(graph_, "sub/c");
  EXPECT_EQ(TF_OperationNumControlInputs(c), 1);
  EXPECT_EQ(TF_OperationNumControlInputs(z), 0);

  const char** names = nullptr;
  int* indexes = nullptr;
  TF_ImportGraphDefResultsMissingUnusedInputMappings(results, &n, &names,
                                                     &indexes);
  // z:0 is unused but is an output of the GraphDef; c:5 is not.
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(names[0], "absent");
  EXPECT_EQ(indexes[0], 2);
  EXPECT_STREQ(names[1], "c");
  EXPECT_EQ(indexes[1], 5);
  TF_DeleteImportGraphDefResults(results);
}

TEST_F(CApiImportTest, WithoutSerialization) {
  GraphDef gdef;
  ASSERT_TRUE(gdef.ParseFromArray(graph_def_->data,
                                  static_cast<int>(graph_def_->length)));
  TF_Buffer object{&gdef, 0, nullptr};
  TF_ImportGraphDefResults* results =
      TF_GraphImportGraphDefWithResultsNoSerialization(graph_, &object, opts_,
                                                       status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(TF_GraphNumOperations(graph_), 3);
  TF_DeleteImportGraphDefResults(results);
  EXPECT_EQ(TF_GraphImportGraphDefWithResultsNoSerialization(
                graph_, nullptr, opts_, status_.get()),
            nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
}

TEST_F(CApiImportTest, BadRequestsLeaveTheGraphUnchanged) {
  TF_ImportGraphDefOptionsAddReturnOutput(opts_, "nope", 0);
  EXPECT_EQ(Import(), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteImportGraphDefOptions(opts_);
  opts_ = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsAddReturnOutput(opts_, "z", 3);
  EXPECT_EQ(Import(), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteImportGraphDefOptions(opts_);
  opts_ = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsAddReturnOperation(opts_, "nope");
  EXPECT_EQ(Import(), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteImportGraphDefOptions(opts_);
  opts_ = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsAddInputMapping(opts_, "x", 0, TF_Output{nullptr, 0});
  EXPECT_EQ(Import(), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_GraphNumOperations(graph_), 0);

  EXPECT_EQ(TF_GraphImportGraphDefWithResults(nullptr, graph_def_, nullptr,
                                              status_.get()),
            nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
}

// Shapes a GraphDef's writer recorded in "_output_shapes" refine the
// inferred ones at import, and contradicting ones refuse the import, with
// TensorFlow's messages (cases checked against tf.import_graph_def).
TEST(CApiImportOutputShapesTest, RecordedShapesRefineOrRefuse) {
  const std::string x =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: '_output_shapes' value { list { shape { dim "
      "{ size: 2 } dim { size: -1 } } } } } }";
  auto neg = [](const std::string& shapes) {
    return "node { name: 'y' op: 'Neg' input: 'x' attr { key: 'T' value { "
           "type: DT_FLOAT } }" +
           (shapes.empty() ? std::string()
                           : " attr { key: '_output_shapes' value { list { " +
                                 shapes + " } } }") +
           " }";
  };
  auto shape_of = [](TF_Graph* g, const char* name) {
    StatusPtr status = NewStatus();
    TF_Output out{TF_GraphOperationByName(g, name), 0};
    const int rank = TF_GraphGetTensorNumDims(g, out, status.get());
    std::vector<int64_t> dims(std::max(rank, 0));
    TF_GraphGetTensorShape(g, out, dims.data(), rank, status.get());
    std::string text;
    for (int64_t d : dims)
      text += (text.empty() ? "" : ",") + std::to_string(d);
    return "[" + text + "]";
  };

  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(c_api_test::ImportText(g, x + neg("")), TF_OK);
  EXPECT_EQ(shape_of(g, "x"), "[2,-1]");
  EXPECT_EQ(shape_of(g, "y"), "[2,-1]");  // Inferred from the refined x.
  TF_DeleteGraph(g);

  g = TF_NewGraph();
  ASSERT_EQ(c_api_test::ImportText(
                g, x + neg("shape { dim { size: 2 } dim { size: 3 } }")),
            TF_OK);
  EXPECT_EQ(shape_of(g, "y"), "[2,3]");
  TF_DeleteGraph(g);

  g = TF_NewGraph();
  std::string message;
  EXPECT_EQ(c_api_test::ImportText(
                g, x + neg("shape { dim { size: 3 } dim { size: 3 } }"), "",
                &message),
            TF_INVALID_ARGUMENT);
  EXPECT_NE(message.find("Node 'y' has an _output_shapes attribute "
                         "inconsistent with the GraphDef for output #0: "
                         "Dimension 0 in both shapes must be equal, but are "
                         "2 and 3. Shapes are [2,?] and [3,3]."),
            std::string::npos)
      << message;
  EXPECT_EQ(TF_GraphOperationByName(g, "y"), nullptr);
  TF_DeleteGraph(g);

  g = TF_NewGraph();
  EXPECT_EQ(c_api_test::ImportText(
                g,
                "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value "
                "{ type: DT_FLOAT } } attr { key: '_output_shapes' value { "
                "list { } } } }",
                "", &message),
            TF_INVALID_ARGUMENT);
  EXPECT_NE(message.find("Node 'x' has 1 outputs but the _output_shapes "
                         "attribute specifies shapes for 0 outputs"),
            std::string::npos)
      << message;
  TF_DeleteGraph(g);
}

}  // namespace
}  // namespace stepflow
