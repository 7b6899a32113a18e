// Graph building through Scope and the typed ops: names, sub-scopes,
// devices, control dependencies, colocation, type inference and the
// scope's sticky first error.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/client/graph.h"
#include "runtime/client/ops.h"
#include "runtime/client/scope.h"

namespace stepflow {
namespace client {
namespace {

const NodeDef* FindNode(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST(GraphBuilderTest, NamesAreUniqueAndPrefixedBySubScopes) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 1.0f);
  auto b = ops::Const(root, 2.0f);
  Scope layer = root.NewSubScope("layer");
  Scope layer2 = root.NewSubScope("layer");
  auto c = ops::Add(layer.WithOpName("sum"), a, b);
  auto d = ops::Add(layer2, a, b);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(a.name(), "Const");
  EXPECT_EQ(b.name(), "Const_1");
  EXPECT_EQ(c.name(), "layer/sum");
  EXPECT_EQ(d.name(), "layer_1/Add");
  EXPECT_EQ(root.graph().num_nodes(), 4);
}

TEST(GraphBuilderTest, DeviceControlDepsAndColocation) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w").WithDevice("/device:CPU:1"), {2},
                         DT_FLOAT);
  auto init = ops::Assign(root.WithOpName("init"), w,
                          ops::Const(root, {1.0f, 2.0f}, {2}));
  auto after = ops::Identity(
      root.WithOpName("after").WithControlDependencies({init.op()}), w);
  auto colo = ops::Const(root.WithOpName("colo").ColocateWith(w.op()), 3.0f);
  ASSERT_TRUE(root.ok()) << root.status();
  const GraphDef g = root.graph().ToGraphDef();
  EXPECT_EQ(FindNode(g, "w")->device(), "/device:CPU:1");
  EXPECT_EQ(w.dtype(), DT_FLOAT_REF);
  // Assign's T is inferred as the base type of its ref input.
  EXPECT_EQ(FindNode(g, "init")->attr().at("T").type(), DT_FLOAT);
  const NodeDef* a = FindNode(g, "after");
  ASSERT_EQ(a->input_size(), 2);
  EXPECT_EQ(a->input(1), "^init");
  EXPECT_EQ(after.dtype(), DT_FLOAT);
  EXPECT_EQ(FindNode(g, "colo")->attr().at("_class").list().s(0), "loc:@w");
  (void)colo;
}

TEST(GraphBuilderTest, MultiOutputAndListOps) {
  Scope root = Scope::NewRootScope();
  auto logits = ops::Const(root, {1, 2, 3, 4}, {2, 2});
  auto labels = ops::Const(root, {0, 1, 1, 0}, {2, 2});
  Operation xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto n = ops::AddN(root, {logits, labels, logits});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xent.num_outputs(), 2);
  EXPECT_EQ(xent.output(1).name(), xent.name() + ":1");
  const GraphDef g = root.graph().ToGraphDef();
  const NodeDef* addn = FindNode(g, n.name());
  EXPECT_EQ(addn->attr().at("N").i(), 3);
}

TEST(GraphBuilderTest, FirstErrorSticksAndLaterOpsAreNotAdded) {
  Scope root = Scope::NewRootScope();
  auto f = ops::Const(root, 1.0f);
  auto i = ops::Const(root, int32_t{1});
  auto bad = ops::Add(root.WithOpName("bad"), f, i);  // float + int32
  EXPECT_FALSE(bad.valid());
  EXPECT_TRUE(absl::IsInvalidArgument(root.status())) << root.status();
  EXPECT_TRUE(absl::StrContains(root.status().message(), "bad"))
      << root.status();
  const int nodes = root.graph().num_nodes();
  auto later = ops::Identity(root, f);
  EXPECT_FALSE(later.valid());
  EXPECT_EQ(root.graph().num_nodes(), nodes);
  // The first error is kept.
  EXPECT_TRUE(absl::StrContains(root.status().message(), "bad"));
}

TEST(GraphBuilderTest, UnknownOpAndForeignInputsAreErrors) {
  Scope root = Scope::NewRootScope();
  root.AddOp("NoSuchOp", {}, {});
  EXPECT_TRUE(absl::IsNotFound(root.status())) << root.status();

  Scope one = Scope::NewRootScope();
  Scope two = Scope::NewRootScope();
  auto x = ops::Const(one, 1.0f);
  auto y = ops::Identity(two, x);
  EXPECT_FALSE(y.valid());
  EXPECT_TRUE(absl::StrContains(two.status().message(), "different graph"))
      << two.status();
}

TEST(GraphBuilderTest, ConstShapeMismatchIsAnError) {
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root, {1, 2, 3}, {2, 2});
  EXPECT_FALSE(c.valid());
  EXPECT_TRUE(absl::IsInvalidArgument(root.status()));
}

TEST(GraphBuilderTest, DefaultGraphStack) {
  Graph outer_default = Graph::Default();
  Graph g;
  {
    auto guard = g.AsDefault();
    EXPECT_EQ(Graph::Default(), g);
    Scope s = Scope::DefaultScope();
    ops::Const(s, 1.0f);
    Graph h;
    {
      auto inner = h.AsDefault();
      EXPECT_EQ(Graph::Default(), h);
    }
    EXPECT_EQ(Graph::Default(), g);
  }
  EXPECT_EQ(g.num_nodes(), 1);
  EXPECT_EQ(Graph::Default(), outer_default);
  EXPECT_NE(Graph::Default(), g);
}

TEST(GraphBuilderTest, AddNodeRejectsDuplicatesAndMissingInputs) {
  Graph g;
  NodeDef c;
  c.set_name("c");
  c.set_op("NoOp");
  ASSERT_TRUE(g.AddNode(c, nullptr).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(g.AddNode(c, nullptr)));
  NodeDef d;
  d.set_name("d");
  d.set_op("NoOp");
  d.add_input("^missing");
  absl::Status s = g.AddNode(d, nullptr);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node d}}")) << s;
  EXPECT_EQ(g.num_nodes(), 1);
}

}  // namespace
}  // namespace client
}  // namespace stepflow
