#include "benchmarks/dag_shapes.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow::bench {
namespace {

// Every predecessor precedes its node and appears once.
void ExpectTopological(const DagShape& s) {
  for (int i = 0; i < s.num_nodes(); ++i) {
    std::set<int> seen;
    for (int p : s.preds[i]) {
      EXPECT_LT(p, i) << s.name << " node " << i;
      EXPECT_GE(p, 0) << s.name << " node " << i;
      EXPECT_TRUE(seen.insert(p).second) << s.name << " duplicate " << p;
    }
  }
}

TEST(DagShapesTest, ChainLinksEachNodeToThePreviousOne) {
  DagShape s = ChainShape(5);
  ASSERT_EQ(s.num_nodes(), 5);
  EXPECT_EQ(s.num_edges(), 4);
  EXPECT_TRUE(s.preds[0].empty());
  for (int i = 1; i < 5; ++i) EXPECT_EQ(s.preds[i], std::vector<int>{i - 1});
}

TEST(DagShapesTest, FanOutInHasOneSourceAndOneSink) {
  DagShape s = FanOutInShape(4);
  ASSERT_EQ(s.num_nodes(), 6);
  EXPECT_EQ(s.num_edges(), 8);
  EXPECT_EQ(s.preds[5], (std::vector<int>{1, 2, 3, 4}));
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(s.preds[i], std::vector<int>{0});
  ExpectTopological(s);
}

TEST(DagShapesTest, LayeredTakesDistinctInputsFromThePreviousLayer) {
  DagShape s = RandomLayeredShape(1050, 100, 2, 7);
  ASSERT_EQ(s.num_nodes(), 1050);
  EXPECT_EQ(s.num_edges(), 2 * (1050 - 100));
  ExpectTopological(s);
  for (int i = 100; i < 1050; ++i) {
    const int layer = i / 100;
    for (int p : s.preds[i]) EXPECT_EQ(p / 100, layer - 1) << "node " << i;
  }
  // Same seed, same shape; another seed, another shape.
  EXPECT_EQ(RandomLayeredShape(1050, 100, 2, 7).preds, s.preds);
  EXPECT_NE(RandomLayeredShape(1050, 100, 2, 8).preds, s.preds);
}

TEST(DagShapesTest, SuccessorsInvertPredecessors) {
  DagShape s = RandomLayeredShape(500, 50, 2, 3);
  Successors succ = ComputeSuccessors(s);
  ASSERT_EQ(succ.begin.size(), 501u);
  EXPECT_EQ(static_cast<int64_t>(succ.ids.size()), s.num_edges());
  for (int i = 0; i < s.num_nodes(); ++i) {
    for (int64_t k = succ.begin[i]; k < succ.begin[i + 1]; ++k) {
      const std::vector<int>& p = s.preds[succ.ids[k]];
      EXPECT_NE(std::find(p.begin(), p.end(), i), p.end());
    }
  }
}

TEST(DagShapesTest, GraphDefsImportWithTheShapesEdges) {
  DagShape s = RandomLayeredShape(300, 30, 2, 5);
  for (bool values : {false, true}) {
    GraphDef def = values ? IdentityGraphDef(s) : NoOpGraphDef(s);
    Graph g;
    absl::Status st =
        ConvertGraphDefToGraph(GraphConstructorOptions(), def, &g);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(g.num_op_nodes(), s.num_nodes());
    int64_t op_edges = 0;
    for (const Edge* e : g.edges()) {
      if (e->src()->IsOp() && e->dst()->IsOp()) ++op_edges;
    }
    EXPECT_EQ(op_edges, s.num_edges()) << "values=" << values;
  }
  GraphDef def = IdentityGraphDef(FanOutInShape(3));
  EXPECT_EQ(def.node(0).op(), "Const");
  EXPECT_EQ(def.node(4).op(), "Identity");
  ASSERT_EQ(def.node(4).input_size(), 3);
  EXPECT_EQ(def.node(4).input(0), "n1");
  EXPECT_EQ(def.node(4).input(1), "^n2");
}

}  // namespace
}  // namespace stepflow::bench
