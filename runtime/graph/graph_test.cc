#include "runtime/graph/graph.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"

#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using test::AddNodeOrDie;
using test::Inputs;
using test::MakeNodeDef;
using test::Names;
using test::TestOpRegistry;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

TEST(GraphTest, NewGraphHasSourceAndSink) {
  Graph g(TestOpRegistry());
  ASSERT_NE(g.source_node(), nullptr);
  ASSERT_NE(g.sink_node(), nullptr);
  EXPECT_EQ(g.source_node()->id(), Graph::kSourceId);
  EXPECT_EQ(g.sink_node()->id(), Graph::kSinkId);
  EXPECT_EQ(g.source_node()->name(), "_SOURCE");
  EXPECT_EQ(g.sink_node()->name(), "_SINK");
  EXPECT_TRUE(g.source_node()->IsSource());
  EXPECT_TRUE(g.sink_node()->IsSink());
  EXPECT_FALSE(g.source_node()->IsOp());
  EXPECT_EQ(g.source_node()->type_string(), "NoOp");
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.num_op_nodes(), 0);
  ASSERT_EQ(g.num_edges(), 1);
  const Edge* e = g.edges()[0];
  EXPECT_EQ(e->src(), g.source_node());
  EXPECT_EQ(e->dst(), g.sink_node());
  EXPECT_TRUE(e->IsControlEdge());
  EXPECT_EQ(g.FindNodeByName("_SOURCE"), g.source_node());
  EXPECT_EQ(g.FindNodeByName("_SINK"), g.sink_node());
  EXPECT_TRUE(g.op_nodes().empty());
  EXPECT_EQ(g.versions().producer(), 2000);
}

TEST(GraphTest, WorksWithRegistryLackingNoOp) {
  OpRegistry empty;
  Graph g(&empty);
  EXPECT_EQ(g.source_node()->type_string(), "NoOp");
  EXPECT_EQ(g.source_node()->op_def().name(), "NoOp");
  EXPECT_EQ(g.source_node()->num_outputs(), 0);
  absl::StatusOr<Node*> n = g.AddNode(MakeNodeDef("a", "Const"));
  EXPECT_EQ(n.status().code(), absl::StatusCode::kNotFound);
}

TEST(GraphTest, AddNodeComputesTypesAndIds) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Add", DT_FLOAT);
  Node* v = AddNodeOrDie(&g, "v", "VariableV2", DT_INT32);
  EXPECT_EQ(a->id(), 2);
  EXPECT_EQ(b->id(), 3);
  EXPECT_EQ(v->id(), 4);
  EXPECT_EQ(a->num_inputs(), 0);
  EXPECT_THAT(a->output_types(), ElementsAre(DT_FLOAT));
  EXPECT_THAT(b->input_types(), ElementsAre(DT_FLOAT, DT_FLOAT));
  EXPECT_EQ(b->output_type(0), DT_FLOAT);
  EXPECT_EQ(v->output_type(0), DT_INT32_REF);
  EXPECT_TRUE(v->IsStateful());
  EXPECT_FALSE(b->IsStateful());
  EXPECT_EQ(g.num_op_nodes(), 3);
  EXPECT_EQ(g.FindNodeByName("b"), b);
  EXPECT_EQ(g.FindNodeByName("nope"), nullptr);
  EXPECT_EQ(g.FindNodeId(3), b);
  EXPECT_EQ(g.FindNodeId(99), nullptr);
  EXPECT_EQ(g.FindNodeId(-1), nullptr);
  EXPECT_EQ(b->op_def().name(), "Add");
  EXPECT_EQ(b->type_string(), "Add");
  EXPECT_THAT(b->DebugString(), HasSubstr("b"));
}

TEST(GraphTest, AddNodeErrors) {
  Graph g(TestOpRegistry());
  absl::StatusOr<Node*> n = g.AddNode(MakeNodeDef("x", "NoSuchOp"));
  EXPECT_EQ(n.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(n.status().message(), HasSubstr("NoSuchOp"));
  EXPECT_THAT(n.status().message(), HasSubstr("{{node x}}"));

  // Identity without T: types cannot be computed.
  n = g.AddNode(MakeNodeDef("y", "Identity"));
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(n.status().message(), HasSubstr("{{node y}}"));

  AddNodeOrDie(&g, "dup", "NoOp");
  n = g.AddNode(MakeNodeDef("dup", "NoOp"));
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(n.status().message(), HasSubstr("dup"));
  EXPECT_EQ(g.num_op_nodes(), 1);
  EXPECT_EQ(g.num_node_ids(), 3);  // Failed adds use no id.
}

TEST(GraphTest, NodeClasses) {
  Graph g(TestOpRegistry());
  Node* sw = AddNodeOrDie(&g, "sw", "Switch", DT_FLOAT);
  Node* m = AddNodeOrDie(&g, MakeNodeDef("m", "Merge", {"x", "y"}, DT_FLOAT));
  Node* en = AddNodeOrDie(&g, "en", "Enter", DT_FLOAT);
  Node* ex = AddNodeOrDie(&g, "ex", "Exit", DT_FLOAT);
  Node* ni = AddNodeOrDie(&g, "ni", "NextIteration", DT_FLOAT);
  Node* lc = AddNodeOrDie(&g, "lc", "LoopCond");
  Node* ct = AddNodeOrDie(&g, "ct", "ControlTrigger");
  Node* send = AddNodeOrDie(&g, "send", "_Send", DT_FLOAT);
  Node* recv = AddNodeOrDie(&g, "recv", "_Recv", DT_FLOAT);
  Node* c = AddNodeOrDie(&g, "c", "Const", DT_FLOAT);
  Node* var = AddNodeOrDie(&g, "var", "VariableV2", DT_FLOAT);
  Node* id = AddNodeOrDie(&g, "id", "Identity", DT_FLOAT);
  Node* ph = AddNodeOrDie(&g, "ph", "Placeholder", DT_FLOAT);
  Node* no = AddNodeOrDie(&g, "no", "NoOp");
  Node* add = AddNodeOrDie(&g, "add", "Add", DT_FLOAT);

  EXPECT_TRUE(sw->IsSwitch());
  EXPECT_TRUE(m->IsMerge());
  EXPECT_EQ(m->num_inputs(), 2);
  EXPECT_THAT(m->output_types(), ElementsAre(DT_FLOAT, DT_INT32));
  EXPECT_TRUE(en->IsEnter());
  EXPECT_TRUE(ex->IsExit());
  EXPECT_TRUE(ni->IsNextIteration());
  EXPECT_TRUE(lc->IsLoopCond());
  for (Node* n : {sw, m, en, ex, ni, lc}) {
    EXPECT_TRUE(n->IsControlFlow()) << n->name();
  }
  EXPECT_TRUE(ct->IsControlTrigger());
  EXPECT_TRUE(send->IsSend());
  EXPECT_TRUE(recv->IsRecv());
  EXPECT_TRUE(c->IsConstant());
  EXPECT_TRUE(var->IsVariable());
  EXPECT_TRUE(id->IsIdentity());
  EXPECT_TRUE(ph->IsPlaceholder());
  EXPECT_TRUE(no->IsNoOp());
  for (Node* n : {ct, send, recv, c, var, id, ph, no, add}) {
    EXPECT_FALSE(n->IsControlFlow()) << n->name();
  }
  EXPECT_FALSE(add->IsSwitch() || add->IsMerge() || add->IsConstant() ||
               add->IsVariable() || add->IsIdentity() || add->IsSend() ||
               add->IsRecv() || add->IsNoOp() || add->IsPlaceholder() ||
               add->IsArg() || add->IsRetval() || add->IsControlTrigger());
  EXPECT_FALSE(sw->IsMerge());
  EXPECT_FALSE(c->IsVariable());
}

TEST(GraphTest, EdgesAndInputAccessors) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Const", DT_FLOAT);
  Node* add = AddNodeOrDie(&g, "add", "Add", DT_FLOAT);
  const Edge* e1 = g.AddEdge(b, 0, add, 1);
  const Edge* e0 = g.AddEdge(a, 0, add, 0);
  ASSERT_NE(e0, nullptr);
  ASSERT_NE(e1, nullptr);
  EXPECT_EQ(e1->id(), 1);  // 0 is SOURCE->SINK.
  EXPECT_EQ(e0->id(), 2);
  EXPECT_FALSE(e0->IsControlEdge());
  EXPECT_EQ(e0->src(), a);
  EXPECT_EQ(e0->dst(), add);
  EXPECT_EQ(e0->src_output(), 0);
  EXPECT_EQ(e0->dst_input(), 0);
  EXPECT_THAT(e0->DebugString(), HasSubstr("a:0 -> add:0"));
  // Insertion order.
  std::vector<const Edge*> in(add->in_edges().begin(), add->in_edges().end());
  EXPECT_THAT(in, ElementsAre(e1, e0));
  EXPECT_EQ(a->out_edges().size(), 1u);

  const Edge* found = nullptr;
  ASSERT_TRUE(add->input_edge(1, &found).ok());
  EXPECT_EQ(found, e1);
  const Node* src = nullptr;
  ASSERT_TRUE(add->input_node(0, &src).ok());
  EXPECT_EQ(src, a);
  EXPECT_EQ(add->input_edge(2, &found).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(add->input_edge(-1, &found).code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<const Edge*> by_slot;
  ASSERT_TRUE(add->input_edges(&by_slot).ok());
  EXPECT_THAT(by_slot, ElementsAre(e0, e1));

  g.RemoveEdge(e0);
  EXPECT_EQ(add->input_edge(0, &found).code(), absl::StatusCode::kNotFound);
  absl::Status s = add->input_edges(&by_slot);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node add}}"));
  ASSERT_EQ(by_slot.size(), 2u);
  EXPECT_EQ(by_slot[0], nullptr);
  EXPECT_EQ(by_slot[1], e1);
}

TEST(GraphTest, ControlEdgesDeduplicate) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "NoOp");
  Node* b = AddNodeOrDie(&g, "b", "NoOp");
  const Edge* e = g.AddControlEdge(a, b);
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->IsControlEdge());
  EXPECT_EQ(e->src_output(), Graph::kControlSlot);
  EXPECT_EQ(e->dst_input(), Graph::kControlSlot);
  EXPECT_EQ(g.AddControlEdge(a, b), nullptr);
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_NE(g.AddControlEdge(a, b, /*allow_duplicates=*/true), nullptr);
  EXPECT_EQ(g.num_edges(), 3);
  g.RemoveControlEdge(e);
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_EQ(b->in_edges().size(), 1u);
}

TEST(GraphTest, RemoveEdgeKeepsIdsAndReusesObjects) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* i = AddNodeOrDie(&g, "i", "Identity", DT_FLOAT);
  const Edge* e = g.AddEdge(a, 0, i, 0);
  const int old_id = e->id();
  g.RemoveEdge(e);
  EXPECT_EQ(g.FindEdgeId(old_id), nullptr);
  EXPECT_EQ(g.num_edges(), 1);
  EXPECT_EQ(g.num_edge_ids(), 2);
  EXPECT_TRUE(a->out_edges().empty());
  EXPECT_TRUE(i->in_edges().empty());
  g.RemoveEdge(e);  // Already removed: ignored.
  EXPECT_EQ(g.num_edges(), 1);

  const Edge* again = g.AddEdge(a, 0, i, 0);
  EXPECT_EQ(again, e);        // Object came off the free list...
  EXPECT_EQ(again->id(), 2);  // ...but the id is fresh.
  EXPECT_EQ(g.FindEdgeId(2), again);
  std::vector<const Edge*> edges = g.edges();
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0]->id(), 0);
  EXPECT_EQ(edges[1]->id(), 2);
}

TEST(GraphTest, RemoveNodeRemovesEdgesAndFreesName) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Identity", DT_FLOAT);
  Node* c = AddNodeOrDie(&g, "c", "Identity", DT_FLOAT);
  g.AddEdge(a, 0, b, 0);
  g.AddEdge(b, 0, c, 0);
  g.AddControlEdge(g.source_node(), a);
  b->set_assigned_device_name("/job:a/replica:0/task:0/device:CPU:0");
  const int edges_before = g.num_edges();
  g.RemoveNode(b);
  EXPECT_EQ(g.num_edges(), edges_before - 2);
  EXPECT_EQ(g.FindNodeId(3), nullptr);
  EXPECT_EQ(g.FindNodeByName("b"), nullptr);
  EXPECT_EQ(g.num_op_nodes(), 2);
  EXPECT_EQ(g.num_node_ids(), 5);
  EXPECT_TRUE(a->out_edges().empty());
  EXPECT_TRUE(c->in_edges().empty());
  EXPECT_THAT(Names(g.op_nodes()), ElementsAre("a", "c"));
  EXPECT_THAT(Names(g.nodes()), ElementsAre("_SOURCE", "_SINK", "a", "c"));

  Node* b2 = AddNodeOrDie(&g, "b", "Const", DT_INT32);
  EXPECT_EQ(b2, b);        // Reused object...
  EXPECT_EQ(b2->id(), 5);  // ...fresh id.
  EXPECT_FALSE(b2->has_assigned_device_name());
  EXPECT_TRUE(b2->in_edges().empty());
  EXPECT_TRUE(b2->out_edges().empty());
  EXPECT_EQ(b2->output_type(0), DT_INT32);
  EXPECT_EQ(g.FindNodeByName("b"), b2);

  // SOURCE and SINK cannot be removed.
  g.RemoveNode(g.source_node());
  g.RemoveNode(g.sink_node());
  EXPECT_NE(g.source_node(), nullptr);
  EXPECT_NE(g.sink_node(), nullptr);
}

TEST(GraphTest, UpdateEdge) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Const", DT_FLOAT);
  Node* i = AddNodeOrDie(&g, "i", "Identity", DT_FLOAT);
  g.AddEdge(a, 0, i, 0);
  ASSERT_TRUE(g.UpdateEdge(b, 0, i, 0).ok());
  const Node* src = nullptr;
  ASSERT_TRUE(i->input_node(0, &src).ok());
  EXPECT_EQ(src, b);
  EXPECT_TRUE(a->out_edges().empty());
  absl::Status s = g.UpdateEdge(b, 0, i, 3);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node i}}"));
}

TEST(GraphTest, ToGraphDefOrdersInputs) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* sw = AddNodeOrDie(&g, "sw", "Switch", DT_FLOAT);
  Node* p = AddNodeOrDie(&g, "p", "Const", DT_BOOL);
  Node* z = AddNodeOrDie(&g, "z", "NoOp");
  Node* y = AddNodeOrDie(&g, "y", "NoOp");
  Node* add = AddNodeOrDie(&g, "add", "Add", DT_FLOAT);
  g.AddEdge(a, 0, sw, 0);
  g.AddEdge(p, 0, sw, 1);
  // Inserted out of order; serialised by slot, controls sorted by name.
  g.AddControlEdge(z, add);
  g.AddEdge(sw, 1, add, 1);
  g.AddControlEdge(y, add);
  g.AddEdge(a, 0, add, 0);
  g.AddControlEdge(g.source_node(), a);
  g.AddControlEdge(add, g.sink_node());
  a->set_requested_device("/cpu:0");
  sw->set_requested_device("/cpu:0");
  sw->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  VersionDef v;
  v.set_producer(27);
  g.set_versions(v);

  GraphDef def;
  g.ToGraphDef(&def);
  EXPECT_EQ(def.versions().producer(), 27);
  ASSERT_EQ(def.node_size(), 6);
  EXPECT_EQ(def.node(0).name(), "a");
  EXPECT_EQ(def.node(1).name(), "sw");
  EXPECT_EQ(def.node(5).name(), "add");
  EXPECT_TRUE(def.node(0).input().empty());  // SOURCE edge omitted.
  EXPECT_EQ(def.node(0).device(), "/cpu:0");
  EXPECT_EQ(def.node(1).device(),
            "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_THAT(Inputs(def.node(1)), ElementsAre("a", "p"));
  EXPECT_THAT(Inputs(def.node(5)), ElementsAre("a", "sw:1", "^y", "^z"));
  EXPECT_EQ(def.node(5).attr().at("T").type(), DT_FLOAT);

  // Removing a node leaves a hole but keeps the order of the rest.
  g.RemoveNode(p);
  g.ToGraphDef(&def);
  ASSERT_EQ(def.node_size(), 5);
  EXPECT_EQ(def.node(1).name(), "sw");
  EXPECT_THAT(Inputs(def.node(1)), ElementsAre("a"));
}

TEST(GraphTest, ToSerializedGraphDefIsToGraphDefWithTheGivenLibrary) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* y = AddNodeOrDie(&g, "y", "NoOp");
  Node* add = AddNodeOrDie(&g, "add", "Add", DT_FLOAT);
  g.AddEdge(a, 0, add, 0);
  g.AddEdge(a, 0, add, 1);
  g.AddControlEdge(y, add);
  add->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  VersionDef v;
  v.set_producer(27);
  g.set_versions(v);
  FunctionDefLibrary library;
  library.add_function()->mutable_signature()->set_name("f");

  std::string bytes;
  ASSERT_TRUE(g.ToSerializedGraphDef(library, &bytes).ok());
  GraphDef parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  GraphDef expected;
  g.ToGraphDef(&expected);
  *expected.mutable_library() = library;
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(parsed, expected))
      << parsed.DebugString();
  EXPECT_EQ(parsed.library().function(0).signature().name(), "f");
  EXPECT_THAT(Inputs(parsed.node(2)), ElementsAre("a", "a", "^y"));
}

TEST(GraphTest, NewNameIsUnused) {
  Graph g(TestOpRegistry());
  EXPECT_EQ(g.NewName("foo"), "foo/_0");
  AddNodeOrDie(&g, "foo/_1", "NoOp");
  EXPECT_EQ(g.NewName("foo"), "foo/_2");
  EXPECT_EQ(g.NewName("bar"), "bar/_3");
}

TEST(GraphTest, TakeNodeDefMovesTheDefAndKeepsTheRest) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* id = AddNodeOrDie(&g, "id", "Identity", DT_FLOAT);
  g.AddEdge(a, 0, id, 0);
  id->set_assigned_device_name("/job:w/replica:0/task:1/device:CPU:0");
  const NodeDef before = id->def();

  const NodeDef taken = g.TakeNodeDef(id);
  EXPECT_EQ(taken.SerializeAsString(), before.SerializeAsString());
  EXPECT_EQ(id->name(), "");
  EXPECT_EQ(id->type_string(), "");
  EXPECT_TRUE(id->def().attr().empty());
  // Everything else stays: id, types, edges, device, the name index.
  EXPECT_EQ(id->id(), 3);
  EXPECT_THAT(id->input_types(), ElementsAre(DT_FLOAT));
  EXPECT_TRUE(id->IsIdentity());
  ASSERT_EQ(id->in_edges().size(), 1u);
  EXPECT_EQ((*id->in_edges().begin())->src(), a);
  EXPECT_EQ(id->assigned_device_name(), "/job:w/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(g.FindNodeByName("id"), id);
  EXPECT_EQ(a->name(), "a");
}

TEST(GraphTest, CopyNodeAndAttrs) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  a->set_assigned_device_name("/job:w/replica:0/task:1/device:CPU:0");
  AttrValue v;
  v.set_i(3);
  a->AddAttr("_extra", v);
  EXPECT_EQ(a->def().attr().at("_extra").i(), 3);

  Graph other(TestOpRegistry());
  Node* copy = other.CopyNode(a);
  EXPECT_EQ(copy->name(), "a");
  EXPECT_EQ(copy->id(), 2);
  EXPECT_EQ(copy->assigned_device_name(), a->assigned_device_name());
  EXPECT_THAT(copy->output_types(), ElementsAre(DT_FLOAT));
  EXPECT_TRUE(copy->IsConstant());
  EXPECT_TRUE(copy->in_edges().empty());
  EXPECT_EQ(other.FindNodeByName("a"), copy);
  EXPECT_EQ(copy->def().attr().at("_extra").i(), 3);

  a->ClearAttr("_extra");
  EXPECT_EQ(a->def().attr().count("_extra"), 0u);
  EXPECT_EQ(copy->def().attr().count("_extra"), 1u);
}

TEST(GraphTest, AssignedDeviceNamesAreInternedPerGraph) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Const", DT_FLOAT);
  Node* c = AddNodeOrDie(&g, "c", "Const", DT_FLOAT);
  EXPECT_EQ(a->assigned_device_name_index(), 0);
  EXPECT_EQ(a->assigned_device_name(), "");
  const std::string cpu0 = "/job:w/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:w/replica:0/task:0/device:CPU:1";
  a->set_assigned_device_name(cpu0);
  b->set_assigned_device_name(cpu1);
  c->set_assigned_device_name(cpu0);
  // One copy of each name: nodes on the same device share its index.
  EXPECT_EQ(a->assigned_device_name_index(), c->assigned_device_name_index());
  EXPECT_NE(a->assigned_device_name_index(), b->assigned_device_name_index());
  EXPECT_EQ(&a->assigned_device_name(), &c->assigned_device_name());
  EXPECT_EQ(b->assigned_device_name(), cpu1);

  // References stay valid however many names are added later.
  const std::string* held = &a->assigned_device_name();
  for (int i = 0; i < 1000; ++i) {
    g.InternDeviceName(
        absl::StrCat("/job:w/replica:0/task:", i, "/device:CPU:0"));
  }
  EXPECT_EQ(held, &a->assigned_device_name());
  EXPECT_EQ(*held, cpu0);

  // Clearing goes back to index 0; another graph keeps its own table.
  c->set_assigned_device_name("");
  EXPECT_FALSE(c->has_assigned_device_name());
  Graph other(TestOpRegistry());
  Node* copy = other.CopyNode(b);
  EXPECT_EQ(copy->assigned_device_name(), cpu1);
  EXPECT_EQ(copy->assigned_device_name_index(), 1);
  EXPECT_NE(&copy->assigned_device_name(), &b->assigned_device_name());
}

TEST(GraphTest, EdgeSetsKeepInsertionOrderPastTheirInlineCapacity) {
  Graph g(TestOpRegistry());
  Node* src = AddNodeOrDie(&g, "src", "Const", DT_FLOAT);
  std::vector<Node*> consumers;
  std::vector<const Edge*> added;
  for (int i = 0; i < 5; ++i) {
    Node* n = AddNodeOrDie(&g, absl::StrCat("id", i), "Identity", DT_FLOAT);
    consumers.push_back(n);
    added.push_back(g.AddEdge(src, 0, n, 0));
  }
  EXPECT_THAT(std::vector<const Edge*>(src->out_edges().begin(),
                                       src->out_edges().end()),
              ElementsAreArray(added));
  g.RemoveEdge(added[1]);
  g.RemoveEdge(added[3]);
  EXPECT_THAT(std::vector<const Edge*>(src->out_edges().begin(),
                                       src->out_edges().end()),
              ElementsAre(added[0], added[2], added[4]));
}

}  // namespace
}  // namespace stepflow
