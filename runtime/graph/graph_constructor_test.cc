#include "runtime/graph/graph_constructor.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/versions.h"
#include "runtime/graph/algorithm.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using test::Inputs;
using test::MakeNodeDef;
using test::Names;
using test::TestOpRegistry;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

GraphDef Def(const std::vector<NodeDef>& nodes) {
  GraphDef def;
  for (const NodeDef& n : nodes) *def.add_node() = n;
  return def;
}

class GraphConstructorTest : public ::testing::Test {
 protected:
  absl::Status Convert(const GraphDef& def) {
    return ConvertGraphDefToGraph(opts_, def, &g_);
  }
  absl::Status Import(const GraphDef& def) {
    return ImportGraphDef(opts_, def, &g_);
  }
  // Expects `def` to fail with `code`, every string in `mentions` in the
  // message, and the graph untouched.
  void ExpectError(const GraphDef& def, absl::StatusCode code,
                   const std::vector<std::string>& mentions) {
    const int ids_before = g_.num_node_ids();
    const int edges_before = g_.num_edge_ids();
    absl::Status s = Import(def);
    EXPECT_EQ(s.code(), code) << s;
    for (const std::string& m : mentions) {
      EXPECT_THAT(std::string(s.message()), HasSubstr(m));
    }
    EXPECT_EQ(g_.num_node_ids(), ids_before);
    EXPECT_EQ(g_.num_edge_ids(), edges_before);
  }

  GraphConstructorOptions opts_;
  Graph g_{TestOpRegistry()};
};

TEST_F(GraphConstructorTest, ImportsNodesEdgesAndDefaults) {
  GraphDef def = Def({
      MakeNodeDef("x", "Placeholder", {}, DT_FLOAT),
      MakeNodeDef("y", "Const", {}, DT_FLOAT),
      MakeNodeDef("sum", "Add", {"x", "y:0", "^w"}, DT_FLOAT),
      MakeNodeDef("w", "WithDefault"),
  });
  def.mutable_versions()->set_producer(27);
  ASSERT_TRUE(Convert(def).ok());
  EXPECT_THAT(Names(g_.op_nodes()), ElementsAre("x", "y", "sum", "w"));
  EXPECT_EQ(g_.versions().producer(), 27);
  Node* sum = g_.FindNodeByName("sum");
  ASSERT_NE(sum, nullptr);
  const Node* in = nullptr;
  ASSERT_TRUE(sum->input_node(0, &in).ok());
  EXPECT_EQ(in->name(), "x");
  ASSERT_TRUE(sum->input_node(1, &in).ok());
  EXPECT_EQ(in->name(), "y");
  EXPECT_EQ(sum->in_edges().size(), 3u);
  // Defaults filled.
  EXPECT_EQ(g_.FindNodeByName("w")->def().attr().at("a").i(), 7);
  EXPECT_TRUE(
      g_.FindNodeByName("x")->def().attr().at("shape").shape().unknown_rank());
  // SOURCE/SINK fixups: x, y, w have no inputs; sum has no consumers.
  for (const char* name : {"x", "y", "w"}) {
    const Node* n = g_.FindNodeByName(name);
    ASSERT_EQ(n->in_edges().size(), 1u) << name;
    EXPECT_EQ((*n->in_edges().begin())->src(), g_.source_node());
  }
  ASSERT_EQ(sum->out_edges().size(), 1u);
  EXPECT_EQ((*sum->out_edges().begin())->dst(), g_.sink_node());

  GraphDef out;
  g_.ToGraphDef(&out);
  EXPECT_THAT(Inputs(out.node(2)), ElementsAre("x", "y", "^w"));
}

TEST_F(GraphConstructorTest, NoDefaultsWhenDisabled) {
  opts_.add_default_attributes = false;
  ASSERT_TRUE(Convert(Def({MakeNodeDef("w", "WithDefault")})).ok());
  EXPECT_EQ(g_.FindNodeByName("w")->def().attr().count("a"), 0u);
}

TEST_F(GraphConstructorTest, InputsMayReferToLaterNodes) {
  GraphDef def = Def({
      MakeNodeDef("i", "Identity", {"sw:1"}, DT_FLOAT),
      MakeNodeDef("sw", "Switch", {"c", "p"}, DT_FLOAT),
      MakeNodeDef("p", "Const", {}, DT_BOOL),
      MakeNodeDef("c", "Const", {}, DT_FLOAT),
  });
  ASSERT_TRUE(Convert(def).ok());
  const Edge* e = nullptr;
  ASSERT_TRUE(g_.FindNodeByName("i")->input_edge(0, &e).ok());
  EXPECT_EQ(e->src()->name(), "sw");
  EXPECT_EQ(e->src_output(), 1);
  // Ids follow GraphDef order.
  EXPECT_EQ(g_.FindNodeByName("i")->id(), 2);
  EXPECT_EQ(g_.FindNodeByName("c")->id(), 5);
}

TEST_F(GraphConstructorTest, RoundTripsThroughToGraphDef) {
  GraphDef def = Def({
      MakeNodeDef("a", "Const", {}, DT_FLOAT),
      MakeNodeDef("b", "NoOp"),
      MakeNodeDef("c", "Add", {"a", "a", "^b"}, DT_FLOAT),
  });
  def.mutable_node(0)->set_device("/cpu:0");
  ASSERT_TRUE(Convert(def).ok());
  GraphDef out;
  g_.ToGraphDef(&out);
  Graph g2(TestOpRegistry());
  ASSERT_TRUE(ConvertGraphDefToGraph(opts_, out, &g2).ok());
  GraphDef out2;
  g2.ToGraphDef(&out2);
  EXPECT_TRUE(MessageDifferencer::Equals(out, out2));
  EXPECT_EQ(out.node(0).device(), "/cpu:0");
  EXPECT_FALSE(g_.FindNodeByName("a")->has_assigned_device_name());
}

TEST_F(GraphConstructorTest, ConsumingImportMovesNodeDefsAndMatchesCopying) {
  GraphDef def = Def({
      MakeNodeDef("a", "Const", {}, DT_FLOAT),
      MakeNodeDef("b", "NoOp"),
      MakeNodeDef("c", "Add", {"a", "a", "^b"}, DT_FLOAT),
  });
  ASSERT_TRUE(Convert(def).ok());
  GraphDef copied;
  g_.ToGraphDef(&copied);

  Graph moved(TestOpRegistry());
  GraphDef consumed = def;
  ASSERT_TRUE(ConvertGraphDefToGraph(opts_, std::move(consumed), &moved).ok());
  GraphDef out;
  moved.ToGraphDef(&out);
  EXPECT_TRUE(MessageDifferencer::Equals(out, copied));
  EXPECT_EQ(consumed.node_size(), 0);

  // Errors name the node as the copying import does.
  GraphDef bad =
      Def({MakeNodeDef("d", "Add", {"missing", "missing"}, DT_FLOAT)});
  Graph g2(TestOpRegistry());
  absl::Status s = ConvertGraphDefToGraph(opts_, std::move(bad), &g2);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("{{node d}}"));
  EXPECT_EQ(g2.num_op_nodes(), 0);
}

TEST_F(GraphConstructorTest, ExpectDeviceSpecAssignsDevices) {
  opts_.expect_device_spec = true;
  GraphDef def = Def({MakeNodeDef("a", "Const", {}, DT_FLOAT)});
  def.mutable_node(0)->set_device("/job:w/replica:0/task:0/device:CPU:0");
  ASSERT_TRUE(Convert(def).ok());
  EXPECT_EQ(g_.FindNodeByName("a")->assigned_device_name(),
            "/job:w/replica:0/task:0/device:CPU:0");
}

TEST_F(GraphConstructorTest, RejectsBadNodeNames) {
  for (const char* bad : {"", "a b", "_hidden", "-x", "a:0", "x^y", "/abs"}) {
    SCOPED_TRACE(bad);
    ExpectError(Def({MakeNodeDef(bad, "NoOp")}),
                absl::StatusCode::kInvalidArgument,
                {absl::StrCat("'", bad, "'")});
  }
  for (const char* good : {"a", "A.b/c-d_e", ".x", "0"}) {
    Graph g(TestOpRegistry());
    EXPECT_TRUE(
        ImportGraphDef(opts_, Def({MakeNodeDef(good, "NoOp")}), &g).ok())
        << good;
  }
}

TEST_F(GraphConstructorTest, InternalNamesNeedAllowInternalOps) {
  GraphDef def = Def({MakeNodeDef("_arg_x_0_0", "NoOp")});
  ExpectError(def, absl::StatusCode::kInvalidArgument, {"_arg_x_0_0"});
  opts_.allow_internal_ops = true;
  EXPECT_TRUE(Import(def).ok());
  // Still no spaces.
  ExpectError(Def({MakeNodeDef("_a b", "NoOp")}),
              absl::StatusCode::kInvalidArgument, {"_a b"});
}

TEST_F(GraphConstructorTest, RejectsDuplicateNames) {
  ExpectError(Def({MakeNodeDef("a", "NoOp"), MakeNodeDef("b", "NoOp"),
                   MakeNodeDef("a", "NoOp")}),
              absl::StatusCode::kInvalidArgument, {"{{node a}}", "Duplicate"});
}

TEST_F(GraphConstructorTest, RejectsUnknownInputNode) {
  ExpectError(Def({MakeNodeDef("b", "Identity", {"a"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              {"{{node b}}", "Unknown input node 'a'"});
  ExpectError(Def({MakeNodeDef("b", "NoOp", {"^ghost"})}),
              absl::StatusCode::kInvalidArgument, {"{{node b}}", "'ghost'"});
  // "a:x" is a node named "a:x", which does not exist.
  ExpectError(Def({MakeNodeDef("a", "Const", {}, DT_FLOAT),
                   MakeNodeDef("b", "Identity", {"a:x"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, {"{{node b}}", "'a:x'"});
}

TEST_F(GraphConstructorTest, SourceAndSinkAreNotVisibleByName) {
  opts_.allow_internal_ops = true;
  ExpectError(Def({MakeNodeDef("b", "NoOp", {"^_SOURCE"})}),
              absl::StatusCode::kInvalidArgument, {"{{node b}}", "_SOURCE"});
  ExpectError(Def({MakeNodeDef("_SINK", "NoOp")}),
              absl::StatusCode::kInvalidArgument, {"_SINK"});
}

TEST_F(GraphConstructorTest, RejectsOutputIndexOutOfRange) {
  ExpectError(Def({MakeNodeDef("a", "Const", {}, DT_FLOAT),
                   MakeNodeDef("b", "Identity", {"a:1"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              {"{{node b}}", "'a'", "output 1"});
  ExpectError(Def({MakeNodeDef("a", "NoOp"),
                   MakeNodeDef("b", "Identity", {"a"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, {"{{node b}}", "'a'"});
}

TEST_F(GraphConstructorTest, RejectsWrongNumberOfInputs) {
  ExpectError(Def({MakeNodeDef("a", "Const", {}, DT_FLOAT),
                   MakeNodeDef("sum", "Add", {"a"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, {"{{node sum}}", "Add"});
  ExpectError(Def({MakeNodeDef("a", "Const", {}, DT_FLOAT),
                   MakeNodeDef("sum", "Add", {"a", "a", "a"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, {"{{node sum}}"});
  // Merge's N must match its inputs.
  NodeDef merge = MakeNodeDef("m", "Merge", {"a", "a"}, DT_FLOAT);
  AddNodeAttr("N", 3, &merge);
  ExpectError(Def({MakeNodeDef("a", "Const", {}, DT_FLOAT), merge}),
              absl::StatusCode::kInvalidArgument, {"{{node m}}"});
}

TEST_F(GraphConstructorTest, RejectsIncompatibleInputTypes) {
  ExpectError(Def({MakeNodeDef("i", "Const", {}, DT_INT32),
                   MakeNodeDef("f", "Const", {}, DT_FLOAT),
                   MakeNodeDef("sum", "Add", {"f", "i"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              {"{{node sum}}", "int32", "float", "i:0"});
  // A non-ref value cannot feed a ref input.
  ExpectError(Def({MakeNodeDef("c", "Const", {}, DT_FLOAT),
                   MakeNodeDef("assign", "Assign", {"c", "c"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              {"{{node assign}}", "float_ref"});
}

TEST_F(GraphConstructorTest, RefOutputMayFeedRefAndNonRefInputs) {
  GraphDef def = Def({
      MakeNodeDef("v", "VariableV2", {}, DT_FLOAT),
      MakeNodeDef("c", "Const", {}, DT_FLOAT),
      MakeNodeDef("assign", "Assign", {"v", "c"}, DT_FLOAT),
      MakeNodeDef("read", "Identity", {"v"}, DT_FLOAT),
      MakeNodeDef("sum", "Add", {"read", "v"}, DT_FLOAT),
  });
  absl::Status s = Convert(def);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(g_.FindNodeByName("assign")->input_type(0), DT_FLOAT_REF);
  // A ref of another base type is still rejected.
  ExpectError(Def({MakeNodeDef("vi", "VariableV2", {}, DT_INT32),
                   MakeNodeDef("bad", "Identity", {"vi"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, {"{{node bad}}"});
}

TEST_F(GraphConstructorTest, UnknownOpIsNotFound) {
  ExpectError(Def({MakeNodeDef("n", "FancyOp")}), absl::StatusCode::kNotFound,
              {"{{node n}}", "FancyOp"});
  ExpectError(Def({MakeNodeDef("n", "")}), absl::StatusCode::kNotFound,
              {"{{node n}}"});
}

// Every missing op type is named at once, with the first node using it and
// how many do, instead of one import attempt per missing op.
TEST_F(GraphConstructorTest, EveryUnregisteredOpTypeIsNamedInOneError) {
  ExpectError(Def({MakeNodeDef("x", "Placeholder", {}, DT_FLOAT),
                   MakeNodeDef("conv1/Conv2D", "FooConv", {"x"}),
                   MakeNodeDef("conv2/Conv2D", "FooConv", {"conv1/Conv2D"}),
                   MakeNodeDef("pool", "FooPool", {"conv2/Conv2D"}),
                   MakeNodeDef("conv3/Conv2D", "FooConv", {"pool"}),
                   MakeNodeDef("ident", "Identitty", {"x"}, DT_FLOAT)}),
              absl::StatusCode::kNotFound,
              {"Op types not registered in this binary: "
               "'FooConv' (used by {{node conv1/Conv2D}} and 2 more nodes), "
               "'FooPool' (used by {{node pool}}), "
               "'Identitty' (used by {{node ident}}; did you mean "
               "'Identity'?)"});
  // One missing type: TensorFlow's wording, with the node.
  ExpectError(Def({MakeNodeDef("a", "FooConv"), MakeNodeDef("b", "FooConv")}),
              absl::StatusCode::kNotFound,
              {"Op type not registered 'FooConv' in this binary, used by "
               "{{node a}} and 1 more node."});
}

// A node whose op is a function of the library, or an unregistered call op
// such as StatefulPartitionedCall, is a function call that direct import
// cannot take (a session rewrites it first): said so, rather than "op not
// registered".
// With allow_function_calls a call by name imports, its OpDef the
// function's signature (the function may come in the same GraphDef); a
// failed import leaves the graph's library as it was.
TEST_F(GraphConstructorTest, FunctionCallsImportWhenAllowed) {
  opts_.allow_function_calls = true;
  GraphDef def = Def({MakeNodeDef("x", "Placeholder", {}, DT_FLOAT),
                      MakeNodeDef("call", "my_fn", {"x"})});
  OpDef* sig = def.mutable_library()->add_function()->mutable_signature();
  sig->set_name("my_fn");
  OpDef::ArgDef* in = sig->add_input_arg();
  in->set_name("a");
  in->set_type(DT_FLOAT);
  OpDef::ArgDef* out = sig->add_output_arg();
  out->set_name("b");
  out->set_type(DT_FLOAT);
  ASSERT_TRUE(Import(def).ok());
  const Node* call = g_.FindNodeByName("call");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op_def().name(), "my_fn");
  EXPECT_EQ(call->num_inputs(), 1);
  EXPECT_EQ(call->num_outputs(), 1);
  EXPECT_EQ(g_.library().function_size(), 1);

  // Two inputs for a one-input signature: refused, library unchanged.
  GraphDef bad = Def({MakeNodeDef("call2", "other_fn", {"x", "x"})});
  *bad.mutable_library()->add_function() = def.library().function(0);
  bad.mutable_library()->mutable_function(0)->mutable_signature()->set_name(
      "other_fn");
  ExpectError(bad, absl::StatusCode::kInvalidArgument, {"call2"});
  EXPECT_EQ(g_.library().function_size(), 1);
}

TEST_F(GraphConstructorTest, FunctionCallsAreUnimplementedNamingTheFunction) {
  GraphDef def = Def({MakeNodeDef("x", "Placeholder", {}, DT_FLOAT),
                      MakeNodeDef("call", "my_fn", {"x"})});
  def.mutable_library()->add_function()->mutable_signature()->set_name("my_fn");
  ExpectError(def, absl::StatusCode::kUnimplemented,
              {"Function calls are not supported yet",
               "{{node call}} calls function 'my_fn'",
               "convert_variables_to_constants_v2"});

  NodeDef spc = MakeNodeDef("model/StatefulPartitionedCall",
                            "StatefulPartitionedCall", {"x"});
  (*spc.mutable_attr())["f"].mutable_func()->set_name("__inference_call_42");
  NodeDef spc2 = spc;
  spc2.set_name("model/StatefulPartitionedCall_1");
  NodeDef branch = MakeNodeDef("cond", "StatelessIfX", {"x"});
  (*branch.mutable_attr())["then_branch"].mutable_func()->set_name("cond_true");
  (*branch.mutable_attr())["else_branch"].mutable_func()->set_name(
      "cond_false");
  ExpectError(
      Def({MakeNodeDef("x", "Placeholder", {}, DT_FLOAT), spc, spc2, branch,
           MakeNodeDef("other", "FooPool", {"x"})}),
      absl::StatusCode::kUnimplemented,
      {"{{node model/StatefulPartitionedCall}} (StatefulPartitionedCall) "
       "calls function '__inference_call_42', as do 1 more node",
       "{{node cond}} (StatelessIfX) calls function 'cond_false'",
       "{{node cond}} (StatelessIfX) calls function 'cond_true'",
       "Op type not registered 'FooPool'"});
}

// TensorFlow's ImportGraphDef refuses "loc:@x" naming no node of the
// GraphDef; ConvertGraphDefToGraph (and so the sessions) accept it.
TEST_F(GraphConstructorTest, ColocationNamesAreCheckedOnlyWhenAsked) {
  NodeDef a = MakeNodeDef("a", "Placeholder", {}, DT_FLOAT);
  NodeDef b = MakeNodeDef("b", "Identity", {"a"}, DT_FLOAT);
  (*b.mutable_attr())["_class"].mutable_list()->add_s("loc:@a");
  NodeDef c = MakeNodeDef("c", "Identity", {"a"}, DT_FLOAT);
  (*c.mutable_attr())["_class"].mutable_list()->add_s("loc:@missing");
  opts_.validate_colocation_constraints = true;
  ExpectError(Def({a, b, c}), absl::StatusCode::kInvalidArgument,
              {"{{node c}} expects to be colocated with unknown node "
               "'missing'"});
  EXPECT_TRUE(Import(Def({a, b})).ok());
  opts_.validate_colocation_constraints = false;
  Graph other(TestOpRegistry());
  absl::Status s = ConvertGraphDefToGraph(opts_, Def({a, b, c}), &other);
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(GraphConstructorTest, RejectsBadAttrs) {
  // Missing required attr (no default): InvalidArgument, not NotFound.
  ExpectError(Def({MakeNodeDef("c", "Const")}),
              absl::StatusCode::kInvalidArgument, {"{{node c}}", "dtype"});
  // Type outside the allowed set.
  ExpectError(Def({MakeNodeDef("a", "Const", {}, DT_BOOL),
                   MakeNodeDef("s", "Add", {"a", "a"}, DT_BOOL)}),
              absl::StatusCode::kInvalidArgument, {"{{node s}}"});
  // Attr of the wrong kind.
  NodeDef wrong = MakeNodeDef("c", "Const");
  AddNodeAttr("dtype", static_cast<int64_t>(5), &wrong);
  ExpectError(Def({wrong}), absl::StatusCode::kInvalidArgument, {"{{node c}}"});
}

TEST_F(GraphConstructorTest, RejectsCycles) {
  ExpectError(Def({MakeNodeDef("c", "Const", {}, DT_FLOAT),
                   MakeNodeDef("a", "Add", {"c", "b"}, DT_FLOAT),
                   MakeNodeDef("b", "Identity", {"a"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument,
              {"Graph has a cycle: {{node a}} -> {{node b}} -> {{node a}}"});
  ExpectError(Def({MakeNodeDef("self", "NoOp", {"^self"})}),
              absl::StatusCode::kInvalidArgument, {"cycle", "{{node self}}"});
}

TEST_F(GraphConstructorTest, AllowsWhileLoopThroughNextIteration) {
  GraphDef def = Def({
      MakeNodeDef("init", "Const", {}, DT_INT32),
      MakeNodeDef("limit", "Const", {}, DT_INT32),
      MakeNodeDef("enter", "Enter", {"init"}, DT_INT32),
      MakeNodeDef("merge", "Merge", {"enter", "next"}, DT_INT32),
      MakeNodeDef("less", "Less", {"merge", "limit"}, DT_INT32),
      MakeNodeDef("cond", "LoopCond", {"less"}),
      MakeNodeDef("switch", "Switch", {"merge", "cond"}, DT_INT32),
      MakeNodeDef("body", "Identity", {"switch:1"}, DT_INT32),
      MakeNodeDef("next", "NextIteration", {"body"}, DT_INT32),
      MakeNodeDef("exit", "Exit", {"switch"}, DT_INT32),
  });
  absl::Status s = Convert(def);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(ValidateGraphHasNoCycle(g_).ok());
  EXPECT_EQ(g_.num_op_nodes(), 10);

  // Replacing NextIteration by Identity makes it an illegal cycle.
  Graph g2(TestOpRegistry());
  *def.mutable_node(8) = MakeNodeDef("next", "Identity", {"body"}, DT_INT32);
  s = ImportGraphDef(opts_, def, &g2);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node merge}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node next}}"));
  EXPECT_EQ(g2.num_op_nodes(), 0);
}

TEST_F(GraphConstructorTest, ChecksVersions) {
  GraphDef def = Def({MakeNodeDef("a", "NoOp")});
  def.mutable_versions()->set_producer(kGraphDefVersionMinProducer - 1);
  ExpectError(def, absl::StatusCode::kInvalidArgument, {});
  def.mutable_versions()->set_producer(10);
  def.mutable_versions()->set_min_consumer(kGraphDefVersion + 1);
  ExpectError(def, absl::StatusCode::kInvalidArgument, {});
  def.mutable_versions()->set_min_consumer(0);
  def.mutable_versions()->add_bad_consumers(kGraphDefVersion);
  ExpectError(def, absl::StatusCode::kInvalidArgument, {});
  def.mutable_versions()->clear_bad_consumers();
  ASSERT_TRUE(Import(def).ok());
  EXPECT_EQ(g_.versions().producer(), 10);

  // Merging a different producer into a non-empty graph.
  GraphDef more = Def({MakeNodeDef("b", "NoOp")});
  more.mutable_versions()->set_producer(11);
  ExpectError(more, absl::StatusCode::kInvalidArgument, {"10", "11"});
  more.mutable_versions()->set_producer(10);
  EXPECT_TRUE(Import(more).ok());
}

TEST_F(GraphConstructorTest, RejectsInternalOpsUnlessAllowed) {
  for (const char* op : {"_Send", "_Recv"}) {
    SCOPED_TRACE(op);
    GraphDef def = Def({MakeNodeDef("a", "Const", {}, DT_FLOAT),
                        MakeNodeDef("n", op, {}, DT_FLOAT)});
    if (std::string(op) == "_Send") def.mutable_node(1)->add_input("a");
    ExpectError(def, absl::StatusCode::kInvalidArgument, {"{{node n}}", op});
  }
  opts_.allow_internal_ops = true;
  GraphDef def = Def({MakeNodeDef("a", "Const", {}, DT_FLOAT),
                      MakeNodeDef("s", "_Send", {"a"}, DT_FLOAT),
                      MakeNodeDef("r", "_Recv", {}, DT_FLOAT)});
  absl::Status s = Import(def);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(g_.FindNodeByName("s")->IsSend());
  EXPECT_TRUE(g_.FindNodeByName("r")->IsRecv());
}

TEST_F(GraphConstructorTest, ControlInputsMustFollowDataInputs) {
  ExpectError(
      Def({MakeNodeDef("a", "Const", {}, DT_FLOAT), MakeNodeDef("b", "NoOp"),
           MakeNodeDef("i", "Identity", {"^b", "a"}, DT_FLOAT)}),
      absl::StatusCode::kInvalidArgument, {"{{node i}}", "'a'", "'^b'"});
}

TEST_F(GraphConstructorTest, RejectsMalformedInputs) {
  GraphDef base = Def({MakeNodeDef("x", "NoOp")});
  for (const char* bad : {"^x:1", "^", "", "^x:"}) {
    SCOPED_TRACE(bad);
    GraphDef def = base;
    *def.add_node() = MakeNodeDef("b", "NoOp", {bad});
    ExpectError(def, absl::StatusCode::kInvalidArgument, {"{{node b}}"});
  }
  ExpectError(
      Def({MakeNodeDef("b", "NoOp", {"^x:1"}), MakeNodeDef("x", "NoOp")}),
      absl::StatusCode::kInvalidArgument, {"^x:1"});
}

TEST_F(GraphConstructorTest, DuplicateControlInputsMakeOneEdge) {
  ASSERT_TRUE(Convert(Def({MakeNodeDef("a", "NoOp"),
                           MakeNodeDef("b", "NoOp", {"^a", "^a"})}))
                  .ok());
  EXPECT_EQ(g_.FindNodeByName("b")->in_edges().size(), 1u);
}

TEST_F(GraphConstructorTest, ExtendReferencesExistingNodes) {
  ASSERT_TRUE(Import(Def({MakeNodeDef("a", "Const", {}, DT_FLOAT)})).ok());
  Node* a = g_.FindNodeByName("a");
  ASSERT_TRUE(Import(Def({MakeNodeDef("b", "Identity", {"a"}, DT_FLOAT),
                          MakeNodeDef("c", "NoOp", {"^a"})}))
                  .ok());
  const Node* in = nullptr;
  ASSERT_TRUE(g_.FindNodeByName("b")->input_node(0, &in).ok());
  EXPECT_EQ(in, a);
  EXPECT_THAT(Names(g_.op_nodes()), ElementsAre("a", "b", "c"));
  EXPECT_TRUE(ValidateGraphHasNoCycle(g_).ok());

  const size_t a_out = a->out_edges().size();  // b, c and SINK.
  EXPECT_EQ(a_out, 3u);
  // Re-using an existing name fails, naming it; nothing is added.
  ExpectError(Def({MakeNodeDef("d", "NoOp"), MakeNodeDef("b", "NoOp")}),
              absl::StatusCode::kInvalidArgument, {"{{node b}}", "exists"});
  EXPECT_EQ(g_.FindNodeByName("d"), nullptr);
  // A later error also leaves the graph as it was.
  ExpectError(Def({MakeNodeDef("d", "Identity", {"a"}, DT_FLOAT),
                   MakeNodeDef("e", "Identity", {"zz"}, DT_FLOAT)}),
              absl::StatusCode::kInvalidArgument, {"{{node e}}", "'zz'"});
  EXPECT_EQ(g_.FindNodeByName("d"), nullptr);
  EXPECT_EQ(a->out_edges().size(), a_out);
}

TEST_F(GraphConstructorTest, ConvertNeedsEmptyGraph) {
  ASSERT_TRUE(Convert(Def({MakeNodeDef("a", "NoOp")})).ok());
  absl::Status s = Convert(Def({MakeNodeDef("b", "NoOp")}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(g_.FindNodeByName("b"), nullptr);
}

TEST_F(GraphConstructorTest, EmptyGraphDefIsFine) {
  EXPECT_TRUE(Convert(GraphDef()).ok());
  EXPECT_EQ(g_.num_op_nodes(), 0);
}

TEST_F(GraphConstructorTest, LibraryIsKeptAndMerged) {
  GraphDef def = Def({MakeNodeDef("a", "NoOp")});
  def.mutable_library()->add_function()->mutable_signature()->set_name("f");
  ASSERT_TRUE(Import(def).ok());
  ASSERT_EQ(g_.library().function_size(), 1);
  GraphDef more = Def({MakeNodeDef("b", "NoOp")});
  *more.mutable_library()->add_function() = def.library().function(0);
  more.mutable_library()->add_function()->mutable_signature()->set_name("g");
  ASSERT_TRUE(Import(more).ok());
  EXPECT_EQ(g_.library().function_size(), 2);
  GraphDef conflict = Def({MakeNodeDef("c", "NoOp")});
  FunctionDef* f = conflict.mutable_library()->add_function();
  f->mutable_signature()->set_name("f");
  f->mutable_signature()->set_description("different");
  ExpectError(conflict, absl::StatusCode::kInvalidArgument, {"'f'"});
}

// Deterministic mutation fuzzing: no input may crash the importer, and
// whatever it accepts is a well-formed graph.
TEST_F(GraphConstructorTest, MutatedGraphDefsNeverCrash) {
  const GraphDef seed = Def({
      MakeNodeDef("init", "Const", {}, DT_INT32),
      MakeNodeDef("limit", "Const", {}, DT_INT32),
      MakeNodeDef("enter", "Enter", {"init"}, DT_INT32),
      MakeNodeDef("merge", "Merge", {"enter", "next"}, DT_INT32),
      MakeNodeDef("less", "Less", {"merge", "limit"}, DT_INT32),
      MakeNodeDef("cond", "LoopCond", {"less"}),
      MakeNodeDef("switch", "Switch", {"merge", "cond"}, DT_INT32),
      MakeNodeDef("body", "Identity", {"switch:1", "^limit"}, DT_INT32),
      MakeNodeDef("next", "NextIteration", {"body"}, DT_INT32),
      MakeNodeDef("exit", "Exit", {"switch"}, DT_INT32),
      MakeNodeDef("v", "VariableV2", {}, DT_INT32),
      MakeNodeDef("assign", "Assign", {"v", "exit"}, DT_INT32),
  });
  const std::vector<std::string> pieces = {
      "init",    "merge", "next", "switch:1", "switch:2", "^cond",
      "v",       "^v:0",  "",     "^",        "body:-1",  "exit:99999999999",
      "_SOURCE", "a b",   "v:0"};
  const std::vector<std::string> ops = {"Identity", "Merge", "NoOp", "_Recv",
                                        "Unknown",  "Add",   "Const"};
  uint64_t state = 12345;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>((state >> 33) % n);
  };
  int accepted = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    GraphDef def = seed;
    const int mutations = 1 + static_cast<int>(next(3));
    for (int m = 0; m < mutations; ++m) {
      NodeDef* n = def.mutable_node(static_cast<int>(next(def.node_size())));
      switch (next(7)) {
        case 0:
          n->add_input(pieces[next(pieces.size())]);
          break;
        case 1:
          if (n->input_size() > 0) {
            n->set_input(static_cast<int>(next(n->input_size())),
                         pieces[next(pieces.size())]);
          }
          break;
        case 2:
          n->set_op(ops[next(ops.size())]);
          break;
        case 3:
          n->set_name(pieces[next(pieces.size())]);
          break;
        case 4:
          n->mutable_attr()->clear();
          break;
        case 5:
          AddNodeAttr("T", static_cast<DataType>(next(30)), n);
          break;
        case 6:
          if (n->input_size() > 0) n->mutable_input()->RemoveLast();
          break;
      }
    }
    Graph g(TestOpRegistry());
    GraphConstructorOptions opts;
    opts.allow_internal_ops = next(2) == 0;
    absl::Status s = ImportGraphDef(opts, def, &g);
    if (s.ok()) {
      ++accepted;
      EXPECT_TRUE(ValidateGraphHasNoCycle(g).ok());
      for (Node* node : g.op_nodes()) {
        std::vector<const Edge*> inputs;
        EXPECT_TRUE(node->input_edges(&inputs).ok()) << node->name();
      }
    } else {
      EXPECT_TRUE(s.code() == absl::StatusCode::kInvalidArgument ||
                  s.code() == absl::StatusCode::kNotFound)
          << s;
      EXPECT_EQ(g.num_op_nodes(), 0);
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace stepflow
