#include "benchmarks/random_graph.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow::bench {
namespace {

TEST(RandomGraphTest, ImportsAndHasTheAdvertisedShape) {
  PipelineGraphDef p = PipelineGraph(5000, 4, 1);
  ASSERT_EQ(p.graph.node_size(), 5002);
  EXPECT_EQ(p.graph.node(0).name(), "x");
  EXPECT_EQ(p.graph.node(5001).name(), "train");
  EXPECT_EQ(p.feed, "x:0");
  EXPECT_EQ(p.target, "train");
  Graph g;
  absl::Status s =
      ConvertGraphDefToGraph(GraphConstructorOptions(), p.graph, &g);
  ASSERT_TRUE(s.ok()) << s;

  std::set<std::string> devices, ops;
  for (const NodeDef& n : p.graph.node()) {
    if (!n.device().empty()) devices.insert(n.device());
    ops.insert(n.op());
  }
  EXPECT_EQ(devices.size(), 4u);
  EXPECT_EQ(ops, (std::set<std::string>{"Add", "Const", "Identity", "Mul",
                                        "NoOp", "Placeholder"}));
  // The fetch has an output; train leaves some sinks out (dead code).
  const std::string fetch_node = p.fetch.substr(0, p.fetch.find(':'));
  bool found = false;
  for (const NodeDef& n : p.graph.node()) {
    if (n.name() == fetch_node) {
      found = true;
      EXPECT_NE(n.op(), "NoOp");
    }
  }
  EXPECT_TRUE(found);
  // Sinks other than train: the dead code train leaves out (one in ten of
  // the otherwise unconsumed nodes).
  const NodeDef& train = p.graph.node(5001);
  int dead_sinks = 0;
  for (const Node* n : g.op_nodes()) {
    bool has_op_consumer = false;
    for (const Edge* e : n->out_edges()) has_op_consumer |= e->dst()->IsOp();
    if (!has_op_consumer && n->name() != "train") ++dead_sinks;
  }
  EXPECT_GT(dead_sinks, 0);
  EXPECT_GT(train.input_size(), 5 * dead_sinks);
}

// name|op|device|inputs of every node (protobuf map serialization is not
// deterministic, so bytes cannot be compared).
std::vector<std::string> Summary(const GraphDef& g) {
  std::vector<std::string> out;
  for (const NodeDef& n : g.node()) {
    std::string s = n.name() + "|" + n.op() + "|" + n.device();
    for (const std::string& in : n.input()) s += "|" + in;
    out.push_back(s);
  }
  return out;
}

TEST(RandomGraphTest, SameSeedSameGraph) {
  const std::vector<std::string> a = Summary(PipelineGraph(2000, 4, 3).graph);
  EXPECT_TRUE(a == Summary(PipelineGraph(2000, 4, 3).graph));
  EXPECT_FALSE(a == Summary(PipelineGraph(2000, 4, 4).graph));
}

}  // namespace
}  // namespace stepflow::bench
