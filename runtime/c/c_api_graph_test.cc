// TF_Graph: import (binary bytes, errors, prefixes), serialization,
// operation lookup and accessors, deletion without sessions, mutations.
#include <string>

#include <gtest/gtest.h>

#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_mutation.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::ImportText;
using c_api_test::NewStatus;
using c_api_test::PlaceholderNode;

const std::string kAddGraph = PlaceholderNode("x") + ConstFloatNode("c", 2) +
                              BinaryNode("AddV2", "z", "x", "c");

TEST(CApiGraphTest, NewAndDeleteTrackLiveCount) {
  const int64_t before = TF_TestOnlyLiveGraphCount();
  TF_Graph* g = TF_NewGraph();
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), before + 1);
  EXPECT_EQ(TF_GraphNumOperations(g), 0);
  TF_DeleteGraph(g);
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), before);
  TF_DeleteGraph(nullptr);
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), before);
}

TEST(CApiGraphTest, ImportAndLookUpOperations) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, kAddGraph), TF_OK);
  EXPECT_EQ(TF_GraphNumOperations(g), 3);
  TF_Operation* z = TF_GraphOperationByName(g, "z");
  ASSERT_NE(z, nullptr);
  EXPECT_STREQ(TF_OperationName(z), "z");
  EXPECT_STREQ(TF_OperationOpType(z), "AddV2");
  EXPECT_STREQ(TF_OperationDevice(z), "");
  EXPECT_EQ(TF_OperationNumOutputs(z), 1);
  EXPECT_EQ(TF_OperationNumInputs(z), 2);
  EXPECT_EQ(TF_OperationOutputType(TF_Output{z, 0}), TF_FLOAT);
  EXPECT_EQ(TF_OperationOutputType(TF_Output{z, 1}), 0);
  EXPECT_EQ(TF_OperationOutputType(TF_Output{nullptr, 0}), 0);
  TF_Operation* x = TF_GraphOperationByName(g, "x");
  ASSERT_NE(x, nullptr);
  EXPECT_STREQ(TF_OperationOpType(x), "Placeholder");
  EXPECT_EQ(TF_OperationNumInputs(x), 0);
  EXPECT_EQ(TF_GraphOperationByName(g, "nope"), nullptr);
  EXPECT_EQ(TF_GraphOperationByName(g, "_SOURCE"), nullptr);
  EXPECT_EQ(TF_GraphOperationByName(g, nullptr), nullptr);
  EXPECT_EQ(TF_GraphOperationByName(nullptr, "z"), nullptr);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, ImportAddsToExistingNodes) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, kAddGraph), TF_OK);
  ASSERT_EQ(ImportText(g, BinaryNode("Mul", "w", "z", "z")), TF_OK);
  EXPECT_EQ(TF_GraphNumOperations(g), 4);
  // Reusing a name is rejected.
  std::string msg;
  EXPECT_EQ(ImportText(g, ConstFloatNode("w", 1), "", &msg),
            TF_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("w"), std::string::npos) << msg;
  EXPECT_EQ(TF_GraphNumOperations(g), 4);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, BadGraphDefBytesAreInvalidArgument) {
  TF_Graph* g = TF_NewGraph();
  auto status = NewStatus();
  const char garbage[] = "\xff\xff\xff\xff not a proto";
  TF_Buffer* buf = TF_NewBufferFromString(garbage, sizeof(garbage));
  TF_GraphImportGraphDef(g, buf, nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT)
      << TF_Message(status.get());
  EXPECT_EQ(TF_GraphNumOperations(g), 0);
  TF_DeleteBuffer(buf);

  TF_GraphImportGraphDef(g, nullptr, nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_GraphImportGraphDef(nullptr, nullptr, nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, EmptyBufferImportsNothing) {
  TF_Graph* g = TF_NewGraph();
  auto status = NewStatus();
  TF_Buffer* buf = TF_NewBuffer();
  TF_GraphImportGraphDef(g, buf, nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(TF_GraphNumOperations(g), 0);
  TF_DeleteBuffer(buf);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, InvalidGraphsLeaveTheGraphUnchanged) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, kAddGraph), TF_OK);
  std::string msg;
  // Unknown op: NotFound naming it.
  EXPECT_EQ(ImportText(g, "node { name: 'u' op: 'NoSuchOp' }", "", &msg),
            TF_NOT_FOUND);
  EXPECT_NE(msg.find("NoSuchOp"), std::string::npos) << msg;
  // Unknown input, with a valid node before it in the same GraphDef.
  EXPECT_EQ(ImportText(g,
                       ConstFloatNode("ok", 1) +
                           BinaryNode("AddV2", "bad", "ok", "missing"),
                       "", &msg),
            TF_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
  EXPECT_EQ(TF_GraphNumOperations(g), 3);
  EXPECT_EQ(TF_GraphOperationByName(g, "ok"), nullptr);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, PrefixRenamesNodesAndInternalInputs) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, kAddGraph), TF_OK);
  // "z" is in the imported GraphDef (prefixed); "x" is not (existing node).
  ASSERT_EQ(
      ImportText(g,
                 ConstFloatNode("z", 5) + BinaryNode("Mul", "m", "z", "x") +
                     "node { name: 'n' op: 'NoOp' input: '^m' }\n",
                 "imported"),
      TF_OK);
  EXPECT_NE(TF_GraphOperationByName(g, "imported/z"), nullptr);
  EXPECT_NE(TF_GraphOperationByName(g, "imported/n"), nullptr);
  TF_Operation* m = TF_GraphOperationByName(g, "imported/m");
  ASSERT_NE(m, nullptr);

  TF_Buffer* out = TF_NewBuffer();
  auto status = NewStatus();
  TF_GraphToGraphDef(g, out, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  GraphDef gdef;
  ASSERT_TRUE(gdef.ParseFromArray(out->data, static_cast<int>(out->length)));
  bool saw_m = false, saw_n = false;
  for (const NodeDef& n : gdef.node()) {
    if (n.name() == "imported/m") {
      saw_m = true;
      ASSERT_EQ(n.input_size(), 2);
      EXPECT_EQ(n.input(0), "imported/z");
      EXPECT_EQ(n.input(1), "x");
    }
    if (n.name() == "imported/n") {
      saw_n = true;
      ASSERT_EQ(n.input_size(), 1);
      EXPECT_EQ(n.input(0), "^imported/m");
    }
  }
  EXPECT_TRUE(saw_m);
  EXPECT_TRUE(saw_n);
  TF_DeleteBuffer(out);
  TF_DeleteGraph(g);
}

// TensorFlow's import checks that "loc:@x" names a node of the GraphDef
// (the placer no longer does: x may be fed and pruned away).
TEST(CApiGraphTest, ColocationWithANodeOutsideTheGraphDefIsInvalidArgument) {
  const std::string colocated =
      ConstFloatNode("a", 1) +
      "node { name: 'b' op: 'Identity' input: 'a' "
      "attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: '_class' value { list { s: 'loc:@a' } } } }\n";
  TF_Graph* g = TF_NewGraph();
  std::string msg;
  EXPECT_EQ(ImportText(g,
                       ConstFloatNode("c", 1) +
                           "node { name: 'd' op: 'Identity' input: 'c' "
                           "attr { key: 'T' value { type: DT_FLOAT } } "
                           "attr { key: '_class' value { list { "
                           "s: 'loc:@missing' } } } }\n",
                       "", &msg),
            TF_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("expects to be colocated with unknown node 'missing'"),
            std::string::npos)
      << msg;
  EXPECT_EQ(TF_GraphNumOperations(g), 0);
  ASSERT_EQ(ImportText(g, colocated), TF_OK);
  // With a prefix the entry follows the renamed node.
  ASSERT_EQ(ImportText(g, colocated, "p", &msg), TF_OK) << msg;
  TF_Buffer* out = TF_NewBuffer();
  auto status = NewStatus();
  TF_GraphToGraphDef(g, out, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  GraphDef gdef;
  ASSERT_TRUE(gdef.ParseFromArray(out->data, static_cast<int>(out->length)));
  bool saw = false;
  for (const NodeDef& n : gdef.node()) {
    if (n.name() != "p/b") continue;
    saw = true;
    ASSERT_EQ(n.attr().at("_class").list().s_size(), 1);
    EXPECT_EQ(n.attr().at("_class").list().s(0), "loc:@p/a");
  }
  EXPECT_TRUE(saw);
  TF_DeleteBuffer(out);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, PrefixWithTrailingSlash) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, ConstFloatNode("a", 1), "p/"), TF_OK);
  EXPECT_NE(TF_GraphOperationByName(g, "p/a"), nullptr);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, ToGraphDefRoundTripsIntoAnotherGraph) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, kAddGraph), TF_OK);
  auto status = NewStatus();
  TF_Buffer* out = TF_NewBufferFromString("old", 3);  // Replaced, not leaked.
  TF_GraphToGraphDef(g, out, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  GraphDef gdef;
  ASSERT_TRUE(gdef.ParseFromArray(out->data, static_cast<int>(out->length)));
  ASSERT_EQ(gdef.node_size(), 3);
  EXPECT_EQ(gdef.node(2).name(), "z");

  TF_Graph* copy = TF_NewGraph();
  TF_GraphImportGraphDef(copy, out, nullptr, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(TF_GraphNumOperations(copy), 3);
  TF_DeleteBuffer(out);

  TF_GraphToGraphDef(nullptr, nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_DeleteGraph(copy);
  TF_DeleteGraph(g);
}

TEST(CApiGraphTest, SetRequestedDeviceAndAddControlInput) {
  TF_Graph* g = TF_NewGraph();
  ASSERT_EQ(ImportText(g, kAddGraph), TF_OK);
  TF_Operation* z = TF_GraphOperationByName(g, "z");
  TF_Operation* c = TF_GraphOperationByName(g, "c");
  SetRequestedDevice(g, z, "/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(z), "/device:CPU:0");
  SetRequestedDevice(g, z, nullptr);
  EXPECT_STREQ(TF_OperationDevice(z), "");

  TF_Operation* x = TF_GraphOperationByName(g, "x");
  AddControlInput(g, c, x);
  AddControlInput(g, c, x);  // Duplicate: no second edge.
  TF_Buffer* out = TF_NewBuffer();
  auto status = NewStatus();
  TF_GraphToGraphDef(g, out, status.get());
  GraphDef gdef;
  ASSERT_TRUE(gdef.ParseFromArray(out->data, static_cast<int>(out->length)));
  for (const NodeDef& n : gdef.node()) {
    if (n.name() != "c") continue;
    ASSERT_EQ(n.input_size(), 1);
    EXPECT_EQ(n.input(0), "^x");
  }
  TF_DeleteBuffer(out);
  TF_DeleteGraph(g);
}

TEST(CApiImportOptionsTest, NewSetDelete) {
  TF_ImportGraphDefOptions* opts = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(opts, "a");
  TF_ImportGraphDefOptionsSetPrefix(opts, nullptr);
  TF_ImportGraphDefOptionsSetPrefix(nullptr, "a");
  TF_Graph* g = TF_NewGraph();
  const std::string bytes = c_api_test::GraphDefBytes(ConstFloatNode("k", 1));
  TF_Buffer* buf = TF_NewBufferFromString(bytes.data(), bytes.size());
  auto status = NewStatus();
  TF_GraphImportGraphDef(g, buf, opts, status.get());  // Prefix cleared.
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_NE(TF_GraphOperationByName(g, "k"), nullptr);
  TF_DeleteBuffer(buf);
  TF_DeleteGraph(g);
  TF_DeleteImportGraphDefOptions(opts);
  TF_DeleteImportGraphDefOptions(nullptr);
}

}  // namespace
}  // namespace stepflow
