#include "runtime/graph/control_only_nodes.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using test::AddNodeOrDie;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class ControlOnlyNodesTest : public ::testing::Test {
 protected:
  ControlOnlyNodesTest() : g_(test::TestOpRegistry()) {}

  Node* Add(const std::string& name, const std::string& op,
            DataType type = DT_FLOAT) {
    return AddNodeOrDie(&g_, name, op, type);
  }
  void Data(Node* src, Node* dst, int dst_input, int src_output = 0) {
    g_.AddEdge(src, src_output, dst, dst_input);
  }
  void Control(Node* src, Node* dst) { g_.AddControlEdge(src, dst); }

  absl::StatusOr<int> Run(absl::flat_hash_set<std::string> preserve = {}) {
    return ConvertControlOnlyNodesToNoOps(&g_, preserve);
  }

  std::string Op(const std::string& name) {
    Node* n = g_.FindNodeByName(name);
    return n == nullptr ? "<missing>" : n->type_string();
  }
  // "src" for data inputs, "^src" for control inputs, in edge order.
  std::vector<std::string> Inputs(const std::string& name) {
    std::vector<std::string> out;
    for (const Edge* e : g_.FindNodeByName(name)->in_edges()) {
      if (!e->src()->IsOp()) continue;
      out.push_back((e->IsControlEdge() ? "^" : "") + e->src()->name());
    }
    return out;
  }
  std::vector<std::string> ControlOutputs(const std::string& name) {
    std::vector<std::string> out;
    for (const Edge* e : g_.FindNodeByName(name)->out_edges()) {
      if (e->IsControlEdge() && e->dst()->IsOp()) {
        out.push_back(e->dst()->name());
      }
    }
    return out;
  }

  Graph g_;
};

// The gradient-gating shape: both products are grouped by a NoOp that the
// update waits on; only one product is read.
TEST_F(ControlOnlyNodesTest, UnreadProductBecomesNoOpKeepingItsOrdering) {
  Node* x = Add("x", "Const");
  Node* w = Add("w", "Const");
  Node* unread = Add("unread", "Add");
  Node* read = Add("read", "Add");
  Node* group = Add("group", "NoOp", DT_INVALID);
  Node* out = Add("out", "Identity");
  Data(x, unread, 0);
  Data(w, unread, 1);
  Data(w, read, 0);
  Data(w, read, 1);
  Control(unread, group);
  Control(read, group);
  Data(read, out, 0);
  Control(group, out);

  ASSERT_EQ(Run({"out"}).value(), 2);  // `unread`, then `x`.
  EXPECT_EQ(Op("unread"), "NoOp");
  EXPECT_THAT(Inputs("unread"), UnorderedElementsAre("^x", "^w"));
  EXPECT_THAT(ControlOutputs("unread"), ElementsAre("group"));
  EXPECT_EQ(Op("read"), "Add");
  EXPECT_EQ(Op("out"), "Identity");
  // x still has a (control) consumer; w still feeds `read`.
  EXPECT_EQ(Op("x"), "NoOp") << "a Const read by nobody goes too";
  EXPECT_EQ(Op("w"), "Const");
}

TEST_F(ControlOnlyNodesTest, ProducersOfAReplacedNodeAreReplacedInTurn) {
  Node* c = Add("c", "Const");
  Node* a = Add("a", "Add");
  Node* i = Add("i", "Identity");
  Node* target = Add("target", "NoOp", DT_INVALID);
  Data(c, a, 0);
  Data(c, a, 1);
  Data(a, i, 0);
  Control(i, target);
  ASSERT_EQ(Run({"target"}).value(), 3);
  EXPECT_EQ(Op("i"), "NoOp");
  EXPECT_EQ(Op("a"), "NoOp");
  EXPECT_EQ(Op("c"), "NoOp");
  EXPECT_THAT(Inputs("a"), ElementsAre("^c")) << "one edge per producer";
  EXPECT_THAT(Inputs("i"), ElementsAre("^a"));
}

TEST_F(ControlOnlyNodesTest, ReadTargetedStatefulAndUnfedNodesStay) {
  Node* c = Add("c", "Const");
  Node* targeted = Add("targeted", "Identity");
  Node* fetched = Add("fetched", "Identity");
  Node* fetch = Add("_retval", "Identity");  // Stands for the fetch node.
  Node* ph = Add("ph", "Placeholder");
  Node* var = Add("var", "VariableV2");
  Node* assign = Add("assign", "Assign");
  Node* sink_group = Add("g", "NoOp", DT_INVALID);
  Data(c, targeted, 0);
  Data(c, fetched, 0);
  Data(fetched, fetch, 0);
  Data(var, assign, 0);
  Data(c, assign, 1);
  Control(ph, sink_group);
  Control(assign, sink_group);
  Control(targeted, sink_group);
  ASSERT_EQ(Run({"targeted", "_retval"}).value(), 0);
  EXPECT_EQ(Op("targeted"), "Identity");
  EXPECT_EQ(Op("fetched"), "Identity");
  EXPECT_EQ(Op("ph"), "Placeholder");
  EXPECT_EQ(Op("assign"), "Assign") << "ref input";
  EXPECT_EQ(Op("var"), "VariableV2");
}

TEST_F(ControlOnlyNodesTest, LoopAndNonCpuNodesStay) {
  Node* c = Add("c", "Const");
  Node* pred = Add("pred", "Const", DT_BOOL);
  Node* sw = Add("sw", "Switch");
  Node* in_branch = Add("in_branch", "Identity");
  NodeDef gpu_def = test::MakeNodeDef("on_gpu", "Identity", {}, DT_FLOAT);
  gpu_def.set_device("/device:GPU:0");
  Node* on_gpu = AddNodeOrDie(&g_, gpu_def);
  Node* group = Add("group", "NoOp", DT_INVALID);
  Data(c, sw, 0);
  Data(pred, sw, 1);
  Data(sw, in_branch, 0, 1);
  Data(c, on_gpu, 0);
  Control(in_branch, group);
  Control(on_gpu, group);
  ASSERT_EQ(Run({"group"}).value(), 0);
  EXPECT_EQ(Op("in_branch"), "Identity");
  EXPECT_EQ(Op("on_gpu"), "Identity");
}

TEST_F(ControlOnlyNodesTest, FunctionCallsStay) {
  FunctionDefLibrary lib;
  lib.add_function()->mutable_signature()->set_name("Identity");
  g_.set_library(lib);  // Pretend Identity is a library function.
  Node* c = Add("c", "Const");
  Node* call = Add("call", "Identity");
  Node* group = Add("group", "NoOp", DT_INVALID);
  Data(c, call, 0);
  Control(call, group);
  ASSERT_EQ(Run({"group"}).value(), 0);
  EXPECT_EQ(Op("call"), "Identity");
}

TEST_F(ControlOnlyNodesTest, OpsTakingFunctionsStay) {
  Node* c = Add("c", "Const");
  Node* call = Add("call", "Identity");
  AttrValue f;
  f.mutable_func()->set_name("body");
  call->AddAttr("f", f);
  Node* group = Add("group", "NoOp", DT_INVALID);
  Data(c, call, 0);
  Control(call, group);
  ASSERT_EQ(Run({"group"}).value(), 0);
  EXPECT_EQ(Op("call"), "Identity");
  // Without the attr it would go: the check above is not vacuous.
  call->ClearAttr("f");
  EXPECT_EQ(Run({"group"}).value(), 2);
}

TEST_F(ControlOnlyNodesTest, NothingToDoOnAnEmptyGraph) {
  EXPECT_EQ(Run().value(), 0);
  EXPECT_THAT(g_.op_nodes(), IsEmpty());
}

}  // namespace
}  // namespace stepflow
