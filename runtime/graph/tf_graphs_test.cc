// Loads GraphDefs written by TensorFlow itself (shared/testdata/tf, beside
// the checkout). Skips when they are not present.
#include <string>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_def_io.h"
#include "testing/tf_testdata.h"

namespace stepflow {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;

std::string RequireFile(const std::string& name) {
  std::optional<std::string> path = TfTestdataFile(name);
  return path.value_or("");
}

#define SKIP_IF_ABSENT(path, name)                                  \
  if ((path).empty()) {                                             \
    GTEST_SKIP() << "TensorFlow testdata '" << (name)               \
                 << "' not found (set STEPFLOW_TF_TESTDATA or put " \
                    "shared/testdata/tf beside the checkout)";      \
  }

TEST(TfGraphsTest, AdditionInt32Imports) {
  const std::string path = RequireFile("addition_int32.pb");
  SKIP_IF_ABSENT(path, "addition_int32.pb");
  GraphDef def;
  absl::Status s = ReadGraphDefFromFile(path, &def);
  ASSERT_TRUE(s.ok()) << s;
  Graph g(OpRegistry::Global());
  s = ConvertGraphDefToGraph(GraphConstructorOptions(), def, &g);
  ASSERT_TRUE(s.ok()) << s;
  Node* x = g.FindNodeByName("x");
  Node* y = g.FindNodeByName("y");
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_TRUE(x->IsPlaceholder());
  EXPECT_THAT(x->output_types(), ElementsAre(DT_INT32));
  // z = AddV2(x, y).
  Node* z = nullptr;
  for (Node* n : g.op_nodes()) {
    if (n->type_string() == "AddV2" || n->type_string() == "Add") z = n;
  }
  ASSERT_NE(z, nullptr);
  const Node* in0 = nullptr;
  const Node* in1 = nullptr;
  ASSERT_TRUE(z->input_node(0, &in0).ok());
  ASSERT_TRUE(z->input_node(1, &in1).ok());
  EXPECT_EQ(in0, x);
  EXPECT_EQ(in1, y);
  EXPECT_THAT(z->output_types(), ElementsAre(DT_INT32));
}

TEST(TfGraphsTest, MultiplicationFloatImports) {
  const std::string path = RequireFile("multiplication_float.pb");
  SKIP_IF_ABSENT(path, "multiplication_float.pb");
  GraphDef def;
  absl::Status s = ReadGraphDefFromFile(path, &def);
  ASSERT_TRUE(s.ok()) << s;
  Graph g(OpRegistry::Global());
  s = ConvertGraphDefToGraph(GraphConstructorOptions(), def, &g);
  ASSERT_TRUE(s.ok()) << s;
  Node* a = g.FindNodeByName("a");
  Node* b = g.FindNodeByName("b");
  Node* c = g.FindNodeByName("c");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->type_string(), "Mul");
  EXPECT_THAT(c->input_types(), ElementsAre(DT_FLOAT, DT_FLOAT));

  // Text round trip of a real graph imports to the same thing.
  GraphDef text_def;
  ASSERT_TRUE(ParseGraphDefFromText(GraphDefToText(def), &text_def).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(text_def, def));
}

TEST(TfGraphsTest, LinearRegressionParses) {
  const std::string path = RequireFile("linear_regression_train.pb");
  SKIP_IF_ABSENT(path, "linear_regression_train.pb");
  GraphDef def;
  absl::Status s = ReadGraphDefFromFile(path, &def);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_GT(def.node_size(), 20);
  bool has_apply = false;
  for (const NodeDef& n : def.node()) {
    has_apply |= n.op() == "ApplyGradientDescent";
  }
  EXPECT_TRUE(has_apply);
}

}  // namespace
}  // namespace stepflow
