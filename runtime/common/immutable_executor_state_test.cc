// What NewLocalExecutor checks and lays out once per graph
// (ImmutableExecutorState): kernel creation errors, malformed graphs, the
// per-frame layout of nodes, edges and counters, and the choice between
// the simple and the loop-frame propagator.
#include "runtime/common/immutable_executor_state.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/graph.pb.h"
#include "runtime/common/executor.h"
#include "runtime/common/executor_testutil.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace test {
namespace {

class ImmutableExecutorStateTest : public ExecutorTest {
 protected:
  std::unique_ptr<ImmutableExecutorState> Layout(const GraphDef& def) {
    std::unique_ptr<ImmutableExecutorState> state;
    absl::Status s = BuildImmutableState(def, cpu0(), &env_, &state);
    EXPECT_TRUE(s.ok()) << s;
    return state;
  }
};

const NodeItem& ItemNamed(const ImmutableExecutorState& state,
                          const std::string& name) {
  for (const Node* node : state.graph().nodes()) {
    if (node->name() == name) return state.item(node->id());
  }
  ADD_FAILURE() << "no node " << name;
  static const NodeItem* const kNone = new NodeItem;
  return *kNone;
}

// ---------------------------------------------------------------------------
// Layout.

TEST_F(ImmutableExecutorStateTest, LaysOutAGraphWithoutLoops) {
  // a -> b, and c = Add(a, b): `a` has two readers of output 0.
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  AddTyped(&g, "b", "Identity", {"a"}, DT_FLOAT);
  AddTyped(&g, "c", "Add", {"a", "b"}, DT_FLOAT);
  auto state = Layout(g);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->num_static_frames(), 1);
  EXPECT_FALSE(state->requires_control_flow_support());
  // Only SOURCE has no in-edges (the graph adds SOURCE -> a).
  EXPECT_EQ(state->root_nodes(), std::vector<int>{Graph::kSourceId});

  const NodeItem& a = ItemNamed(*state, "a");
  const NodeItem& b = ItemNamed(*state, "b");
  const NodeItem& c = ItemNamed(*state, "c");
  const StaticFrame& root = state->static_frame(0);
  EXPECT_EQ(root.name, "");
  EXPECT_EQ(root.parent, -1);
  EXPECT_EQ(root.initial_pending[a.pending_id].pending, 1);  // SOURCE.
  EXPECT_EQ(root.initial_pending[b.pending_id].pending, 1);
  EXPECT_EQ(root.initial_pending[c.pending_id].pending, 2);
  // Input slots are consecutive per node and disjoint.
  EXPECT_EQ(root.total_inputs, 3);
  EXPECT_NE(b.input_start, c.input_start);
  EXPECT_EQ(c.num_inputs, 2);

  // a's data out-edges: only the last reader of output 0 may move it.
  std::vector<const OutEdge*> data_edges;
  for (int k = a.out_begin; k < a.out_end; ++k) {
    const OutEdge& e = state->out_edges()[k];
    if (e.src_slot != kControlSlot) data_edges.push_back(&e);
  }
  ASSERT_EQ(data_edges.size(), 2u);
  EXPECT_FALSE(data_edges[0]->last_use);
  EXPECT_TRUE(data_edges[1]->last_use);
}

TEST_F(ImmutableExecutorStateTest, LaysOutLoopFrames) {
  auto state = Layout(CounterLoop(3, 5));
  ASSERT_NE(state, nullptr);
  EXPECT_TRUE(state->requires_control_flow_support());
  ASSERT_EQ(state->num_static_frames(), 2);
  const StaticFrame& loop = state->static_frame(1);
  EXPECT_EQ(loop.name, "loop");
  EXPECT_EQ(loop.parent, 0);
  EXPECT_EQ(loop.num_enters, 2);  // i/enter and limit/enter.

  const NodeItem& enter = ItemNamed(*state, "i/enter");
  EXPECT_EQ(enter.frame, 0);
  EXPECT_EQ(enter.child_frame, 1);
  EXPECT_EQ(enter.parallel_iterations, 5);
  EXPECT_FALSE(enter.is_constant_enter);
  EXPECT_TRUE(ItemNamed(*state, "limit/enter").is_constant_enter);
  for (const char* name :
       {"i/merge", "i/switch", "count", "i/next", "i/exit"}) {
    EXPECT_EQ(ItemNamed(*state, name).frame, 1) << name;
  }
  EXPECT_EQ(ItemNamed(*state, "r").frame, 0);
  // A Merge waits for its control inputs (none) plus one live data input.
  const NodeItem& merge = ItemNamed(*state, "i/merge");
  EXPECT_EQ(loop.initial_pending[merge.pending_id].pending, 1);
}

TEST_F(ImmutableExecutorStateTest, ControlFlowSupportIsForLoopsAndDeadness) {
  auto build = [&](const std::string& op) {
    GraphDef g;
    AddConst(&g, "x", Tensor::Scalar<float>(1));
    AddConst(&g, "p", Tensor::Scalar<bool>(true));
    if (op == "Switch") {
      AddTyped(&g, "n", "Switch", {"x", "p"}, DT_FLOAT);
    } else if (op == "Merge") {
      AddNodeAttr("N", 1, AddTyped(&g, "n", "Merge", {"x"}, DT_FLOAT));
    } else if (op == "_Recv") {
      AddRecv(&g, "n", DT_FLOAT, "k", cpu0(), cpu1());
    } else if (op == "ControlTrigger") {
      AddNode(&g, "n", "ControlTrigger", {"^x"});
    } else if (op == "NoOp") {
      AddNode(&g, "n", "NoOp", {"^x", "^p"});
      AddTyped(&g, "after", "Identity", {"x", "^n"}, DT_FLOAT);
    } else {
      AddTyped(&g, "n", op, {"x"}, DT_FLOAT);
    }
    return Layout(g);
  };
  for (const char* op : {"Identity", "NoOp"}) {
    auto state = build(op);
    ASSERT_NE(state, nullptr) << op;
    EXPECT_FALSE(state->requires_control_flow_support()) << op;
  }
  for (const char* op : {"Switch", "Merge", "_Recv", "ControlTrigger"}) {
    auto state = build(op);
    ASSERT_NE(state, nullptr) << op;
    EXPECT_TRUE(state->requires_control_flow_support()) << op;
  }
}

// ---------------------------------------------------------------------------
// Errors, through NewLocalExecutor.

TEST_F(ImmutableExecutorStateTest, KernelCreationErrorNamesNode) {
  GraphDef g;
  AddNode(&g, "nokernel", "ExecTestNoKernel");
  std::unique_ptr<Executor> ex;
  absl::Status s = Build(g, cpu0(), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "nokernel")) << s;
  EXPECT_EQ(ex, nullptr);
}

TEST_F(ImmutableExecutorStateTest, CustomCreateKernelErrorIsAnnotated) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  auto graph = std::make_unique<Graph>();
  GraphConstructorOptions opts;
  ASSERT_TRUE(ConvertGraphDefToGraph(opts, g, graph.get()).ok());
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  params.create_kernel = [](const NodeDef&, std::unique_ptr<OpKernel>*) {
    return absl::ResourceExhaustedError("no room");
  };
  std::unique_ptr<Executor> ex;
  absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node a}}")) << s;
}

TEST_F(ImmutableExecutorStateTest, ExitOutsideALoopIsInvalidArgument) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  AddTyped(&g, "exit", "Exit", {"a"}, DT_FLOAT);
  std::unique_ptr<Executor> ex;
  absl::Status s = Build(g, cpu0(), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node exit}}")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "outside any loop frame")) << s;
}

TEST_F(ImmutableExecutorStateTest,
       InputsFromDifferentFramesAreInvalidArgument) {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  NodeDef* e = AddTyped(&g, "enter", "Enter", {"a"}, DT_FLOAT);
  AddNodeAttr("frame_name", "loop", e);
  // `mix` reads a value inside frame "loop" and one from the root frame.
  AddTyped(&g, "mix", "Add", {"enter", "a"}, DT_FLOAT);
  std::unique_ptr<Executor> ex;
  absl::Status s = Build(g, cpu0(), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node mix}}")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "different frames")) << s;
}

TEST_F(ImmutableExecutorStateTest, UnconnectedInputIsInvalidArgument) {
  auto graph = std::make_unique<Graph>();
  NodeDef def;
  def.set_name("lonely");
  def.set_op("Identity");
  def.add_input("missing");  // Listed, but no edge is ever added.
  AddNodeAttr("T", DT_FLOAT, &def);
  ASSERT_TRUE(graph->AddNode(def).ok());
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  std::unique_ptr<Executor> ex;
  absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "{{node lonely}} input 0")) << s;
}

TEST_F(ImmutableExecutorStateTest, CycleIsInvalidArgument) {
  auto graph = std::make_unique<Graph>();
  NodeDef def;
  def.set_op("Identity");
  AddNodeAttr("T", DT_FLOAT, &def);
  def.add_input("");
  def.set_name("x");
  def.set_input(0, "y");
  Node* x = graph->AddNode(def).value();
  def.set_name("y");
  def.set_input(0, "x");
  Node* y = graph->AddNode(def).value();
  graph->AddEdge(x, 0, y, 0);
  graph->AddEdge(y, 0, x, 0);
  LocalExecutorParams params;
  params.device = cpu0();
  params.env = &env_;
  std::unique_ptr<Executor> ex;
  absl::Status s = NewLocalExecutor(params, std::move(graph), &ex);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "cycle")) << s;
}

}  // namespace
}  // namespace test
}  // namespace stepflow
