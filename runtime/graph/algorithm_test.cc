#include "runtime/graph/algorithm.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using test::AddNodeOrDie;
using test::MakeNodeDef;
using test::Names;
using test::TestOpRegistry;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Position of each node name in `order`.
int Pos(const std::vector<Node*>& order, const std::string& name) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i]->name() == name) return static_cast<int>(i);
  }
  return -1;
}

// Diamond: a -> b, a -> c, b -> d, c -> d (data edges through Add).
class DiamondTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = AddNodeOrDie(&g_, "a", "Const", DT_FLOAT);
    c_ = AddNodeOrDie(&g_, "c", "Identity", DT_FLOAT);
    b_ = AddNodeOrDie(&g_, "b", "Identity", DT_FLOAT);
    d_ = AddNodeOrDie(&g_, "d", "Add", DT_FLOAT);
    g_.AddEdge(a_, 0, b_, 0);
    g_.AddEdge(a_, 0, c_, 0);
    g_.AddEdge(b_, 0, d_, 0);
    g_.AddEdge(c_, 0, d_, 1);
    FixupSourceAndSinkEdges(&g_);
  }
  Graph g_{TestOpRegistry()};
  Node *a_, *b_, *c_, *d_;
};

TEST_F(DiamondTest, DFSVisitsChildrenInIdOrder) {
  std::vector<std::string> entered, left;
  DFS(
      g_, [&](Node* n) { entered.push_back(n->name()); },
      [&](Node* n) { left.push_back(n->name()); });
  // c has a smaller id than b, so it is explored first.
  EXPECT_THAT(entered, ElementsAre("_SOURCE", "_SINK", "a", "c", "d", "b"));
  EXPECT_THAT(left, ElementsAre("_SINK", "d", "c", "b", "a", "_SOURCE"));
}

TEST_F(DiamondTest, DFSWithNameComparator) {
  std::vector<std::string> entered;
  DFS(
      g_, [&](Node* n) { entered.push_back(n->name()); }, nullptr,
      NodeComparatorName());
  EXPECT_THAT(entered, ElementsAre("_SOURCE", "_SINK", "a", "b", "d", "c"));
}

TEST_F(DiamondTest, PostOrderAndReversePostOrder) {
  std::vector<Node*> post;
  GetPostOrder(g_, &post);
  EXPECT_THAT(Names(post), ElementsAre("_SINK", "d", "c", "b", "a", "_SOURCE"));
  std::vector<Node*> rpo;
  GetReversePostOrder(g_, &rpo);
  EXPECT_THAT(Names(rpo), ElementsAre("_SOURCE", "a", "b", "c", "d", "_SINK"));
  // A topological order: every edge goes forward.
  for (const Edge* e : g_.edges()) {
    EXPECT_LT(Pos(rpo, e->src()->name()), Pos(rpo, e->dst()->name()))
        << e->DebugString();
  }
}

TEST_F(DiamondTest, ReverseDFSFrom) {
  std::vector<std::string> entered, left;
  Node* start[] = {d_};
  ReverseDFSFrom(
      g_, start, [&](Node* n) { entered.push_back(n->name()); },
      [&](Node* n) { left.push_back(n->name()); });
  EXPECT_THAT(entered, ElementsAre("d", "c", "a", "_SOURCE", "b"));
  EXPECT_THAT(left, ElementsAre("_SOURCE", "a", "c", "b", "d"));
}

TEST_F(DiamondTest, TopologicalSortBreaksTiesById) {
  std::vector<Node*> order;
  ASSERT_TRUE(TopologicalSort(g_, &order).ok());
  EXPECT_THAT(Names(order),
              ElementsAre("_SOURCE", "a", "c", "b", "d", "_SINK"));
  EXPECT_TRUE(ValidateGraphHasNoCycle(g_).ok());
}

TEST_F(DiamondTest, PruneForReverseReachability) {
  EXPECT_FALSE(PruneForReverseReachability(&g_, {d_}));
  EXPECT_EQ(g_.num_op_nodes(), 4);
  EXPECT_TRUE(PruneForReverseReachability(&g_, {b_}));
  EXPECT_THAT(Names(g_.op_nodes()), ElementsAre("a", "b"));
  EXPECT_NE(g_.source_node(), nullptr);
  EXPECT_NE(g_.sink_node(), nullptr);
  // b lost its consumer; fixing up reconnects it to SINK.
  EXPECT_TRUE(b_->out_edges().empty());
  EXPECT_TRUE(FixupSourceAndSinkEdges(&g_));
  ASSERT_EQ(b_->out_edges().size(), 1u);
  EXPECT_EQ((*b_->out_edges().begin())->dst(), g_.sink_node());
  EXPECT_FALSE(FixupSourceAndSinkEdges(&g_));
}

TEST(AlgorithmTest, PruneFollowsControlEdges) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "NoOp");
  Node* b = AddNodeOrDie(&g, "b", "NoOp");
  Node* other = AddNodeOrDie(&g, "other", "NoOp");
  g.AddControlEdge(a, b);
  g.AddControlEdge(other, g.sink_node());
  EXPECT_TRUE(PruneForReverseReachability(&g, {b}));
  EXPECT_THAT(Names(g.op_nodes()), ElementsAre("a", "b"));
}

TEST(AlgorithmTest, FixupSourceAndSinkEdges) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "Const", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Identity", DT_FLOAT);
  Node* lone = AddNodeOrDie(&g, "lone", "NoOp");
  g.AddEdge(a, 0, b, 0);
  EXPECT_TRUE(FixupSourceAndSinkEdges(&g));
  auto has_control = [](const Node* src, const Node* dst) {
    for (const Edge* e : dst->in_edges()) {
      if (e->IsControlEdge() && e->src() == src) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_control(g.source_node(), a));
  EXPECT_FALSE(has_control(g.source_node(), b));
  EXPECT_TRUE(has_control(b, g.sink_node()));
  EXPECT_FALSE(has_control(a, g.sink_node()));
  EXPECT_TRUE(has_control(g.source_node(), lone));
  EXPECT_TRUE(has_control(lone, g.sink_node()));
  EXPECT_FALSE(FixupSourceAndSinkEdges(&g));
}

TEST(AlgorithmTest, CycleIsReportedWithNodeNames) {
  Graph g(TestOpRegistry());
  Node* c = AddNodeOrDie(&g, "c", "Const", DT_FLOAT);
  Node* a = AddNodeOrDie(&g, "a", "Add", DT_FLOAT);
  Node* b = AddNodeOrDie(&g, "b", "Identity", DT_FLOAT);
  Node* after = AddNodeOrDie(&g, "after", "Identity", DT_FLOAT);
  g.AddEdge(c, 0, a, 0);
  g.AddEdge(b, 0, a, 1);
  g.AddEdge(a, 0, b, 0);
  g.AddEdge(b, 0, after, 0);
  FixupSourceAndSinkEdges(&g);
  absl::Status s = ValidateGraphHasNoCycle(g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Graph has a cycle: {{node a}} -> {{node b}} -> {{node a}}");
  std::vector<Node*> order;
  s = TopologicalSort(g, &order);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node b}}"));
  // Only what precedes the cycle could be ordered.
  EXPECT_THAT(Names(order), ElementsAre("_SOURCE", "c"));
}

TEST(AlgorithmTest, SelfLoopIsACycle) {
  Graph g(TestOpRegistry());
  Node* a = AddNodeOrDie(&g, "a", "NoOp");
  g.AddControlEdge(a, a);
  absl::Status s = ValidateGraphHasNoCycle(g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Graph has a cycle: {{node a}} -> {{node a}}");
}

// A while loop: Enter -> Merge -> Switch -> Identity -> NextIteration ->
// Merge (back edge), Switch -> Exit; LoopCond on a Less.
TEST(AlgorithmTest, WhileLoopBackEdgeIsAllowed) {
  Graph g(TestOpRegistry());
  Node* init = AddNodeOrDie(&g, "init", "Const", DT_INT32);
  Node* limit = AddNodeOrDie(&g, "limit", "Const", DT_INT32);
  Node* enter = AddNodeOrDie(&g, "enter", "Enter", DT_INT32);
  Node* merge =
      AddNodeOrDie(&g, MakeNodeDef("merge", "Merge", {"x", "y"}, DT_INT32));
  Node* less = AddNodeOrDie(&g, "less", "Less", DT_INT32);
  Node* cond = AddNodeOrDie(&g, "cond", "LoopCond");
  Node* sw = AddNodeOrDie(&g, "switch", "Switch", DT_INT32);
  Node* body = AddNodeOrDie(&g, "body", "Identity", DT_INT32);
  Node* next = AddNodeOrDie(&g, "next", "NextIteration", DT_INT32);
  Node* exit = AddNodeOrDie(&g, "exit", "Exit", DT_INT32);
  g.AddEdge(init, 0, enter, 0);
  g.AddEdge(enter, 0, merge, 0);
  g.AddEdge(next, 0, merge, 1);
  g.AddEdge(merge, 0, less, 0);
  g.AddEdge(limit, 0, less, 1);
  g.AddEdge(less, 0, cond, 0);
  g.AddEdge(merge, 0, sw, 0);
  g.AddEdge(cond, 0, sw, 1);
  g.AddEdge(sw, 1, body, 0);
  g.AddEdge(body, 0, next, 0);
  g.AddEdge(sw, 0, exit, 0);
  FixupSourceAndSinkEdges(&g);

  EXPECT_TRUE(ValidateGraphHasNoCycle(g).ok());
  std::vector<Node*> order;
  ASSERT_TRUE(TopologicalSort(g, &order).ok());
  EXPECT_EQ(order.size(), static_cast<size_t>(g.num_nodes()));
  for (const Edge* e : g.edges()) {
    if (e->src()->IsNextIteration() && e->dst()->IsMerge()) continue;
    EXPECT_LT(Pos(order, e->src()->name()), Pos(order, e->dst()->name()))
        << e->DebugString();
  }

  // The same cycle without NextIteration is rejected.
  Node* bad = AddNodeOrDie(&g, "bad", "Identity", DT_INT32);
  g.AddEdge(body, 0, bad, 0);
  g.AddControlEdge(bad, merge);
  absl::Status s = ValidateGraphHasNoCycle(g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node bad}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node merge}}"));
}

TEST(AlgorithmTest, TraversalsAreDeterministic) {
  auto build = [](Graph* g) {
    Node* root = AddNodeOrDie(g, "root", "NoOp");
    std::vector<Node*> kids;
    for (int i = 0; i < 20; ++i) {
      kids.push_back(AddNodeOrDie(g, "k" + std::to_string(i), "NoOp"));
    }
    // Edges inserted in a scrambled order.
    for (int i = 0; i < 20; ++i) g->AddControlEdge(root, kids[(i * 7) % 20]);
    FixupSourceAndSinkEdges(g);
  };
  Graph g1(TestOpRegistry()), g2(TestOpRegistry());
  build(&g1);
  build(&g2);
  std::vector<Node*> o1, o2;
  GetReversePostOrder(g1, &o1);
  GetReversePostOrder(g2, &o2);
  EXPECT_EQ(Names(o1), Names(o2));
  // Children are explored in id order, so k0 finishes first and lands last
  // among the kids in reverse post-order.
  EXPECT_LT(Pos(o1, "k19"), Pos(o1, "k0"));
}

}  // namespace
}  // namespace stepflow
