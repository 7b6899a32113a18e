// The two propagators, driven by hand (no kernels run): each test plays
// the executor, finishing ready nodes with outputs it makes up and
// checking which nodes the propagator makes ready, with which inputs, in
// which frame and iteration, and in which order.
#include "runtime/common/propagator_state.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/graph.pb.h"
#include "runtime/common/executor_testutil.h"
#include "runtime/common/frame_path.h"
#include "runtime/common/immutable_executor_state.h"
#include "runtime/common/simple_propagator_state.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace test {
namespace {

// What the hand-driven "kernel" of node `id` puts in output `slot`.
float MadeUpValue(int id, int slot) { return id * 10.0f + slot; }

// Runs one step of `state`'s graph with propagator P, finishing ready nodes
// in FIFO order with live made-up outputs. Checks that every node's data
// inputs hold what its sources produced, and returns the nodes' names in
// the order they became ready.
template <class P>
std::vector<std::string> ReadyOrder(const ImmutableExecutorState& state) {
  P propagator(state);
  typename P::TaggedNodeSeq ready;
  propagator.ActivateRoots(&ready);
  std::deque<typename P::TaggedNode> queue(ready.begin(), ready.end());
  std::vector<std::string> order;
  while (!queue.empty()) {
    const typename P::TaggedNode tn = queue.front();
    queue.pop_front();
    const NodeItem& item = tn.get_item();
    order.push_back(item.name());
    EXPECT_FALSE(tn.get_is_dead()) << item.name();
    EXPECT_EQ(propagator.GetFrameAndIter(tn), FrameAndIter()) << item.name();
    const Entry* inputs = propagator.GetInputTensors(tn);
    for (const Edge* e : item.node->in_edges()) {
      if (e->IsControlEdge()) continue;
      const Entry& in = inputs[e->dst_input()];
      EXPECT_EQ(in.state, Entry::State::kHasValue) << item.name();
      if (in.state != Entry::State::kHasValue) continue;
      EXPECT_EQ(in.val.scalar<float>(),
                MadeUpValue(e->src()->id(), e->src_output()))
          << item.name() << " input " << e->dst_input();
    }
    EntryVector outputs(item.num_outputs);
    for (int i = 0; i < item.num_outputs; ++i) {
      outputs[i].state = Entry::State::kHasValue;
      outputs[i].val = Tensor::Scalar<float>(MadeUpValue(item.node->id(), i));
    }
    ready.clear();
    propagator.PropagateOutputs(tn, /*is_dead=*/false, &outputs, &ready);
    queue.insert(queue.end(), ready.begin(), ready.end());
  }
  return order;
}

// Three layers of three Adds over two Consts, a NoOp joining two of them
// by control edges, and a node that waits for it.
GraphDef LayeredGraph() {
  GraphDef g;
  AddConst(&g, "a", Tensor::Scalar<float>(1));
  AddConst(&g, "b", Tensor::Scalar<float>(2));
  std::vector<std::string> prev = {"a", "b", "a"};
  for (int layer = 0; layer < 3; ++layer) {
    std::vector<std::string> next;
    for (int k = 0; k < 3; ++k) {
      next.push_back(absl::StrCat("n", layer, "_", k));
      AddTyped(&g, next.back(), "Add", {prev[k], prev[(k + 1) % 3]}, DT_FLOAT);
    }
    prev = next;
  }
  AddNode(&g, "join", "NoOp", {"^n0_1", "^n1_2"});
  AddTyped(&g, "last", "Identity", {"n2_0", "^join"}, DT_FLOAT);
  return g;
}

class PropagatorStateTest : public ExecutorTest {
 protected:
  std::unique_ptr<ImmutableExecutorState> Layout(const GraphDef& def) {
    std::unique_ptr<ImmutableExecutorState> state;
    absl::Status s = BuildImmutableState(def, cpu0(), &env_, &state);
    EXPECT_TRUE(s.ok()) << s;
    return state;
  }
};

TEST_F(PropagatorStateTest, SimplePropagatorRunsEveryNodeOnceAfterItsInputs) {
  auto state = Layout(LayeredGraph());
  ASSERT_NE(state, nullptr);
  ASSERT_FALSE(state->requires_control_flow_support());
  const std::vector<std::string> order =
      ReadyOrder<SimplePropagatorState>(*state);
  // Every node once: the ops, SOURCE and SINK.
  EXPECT_EQ(static_cast<int>(order.size()), state->graph().num_nodes());
  EXPECT_EQ(order.front(), "_SOURCE");
  EXPECT_EQ(order.back(), "_SINK");
}

// The executor picks the propagator once, from the graph; for a graph
// without control flow the choice must not change what becomes ready when
// (the simulator's traces depend on that order).
TEST_F(PropagatorStateTest, BothPropagatorsMakeNodesReadyInTheSameOrder) {
  auto state = Layout(LayeredGraph());
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(absl::StrJoin(ReadyOrder<SimplePropagatorState>(*state), " "),
            absl::StrJoin(ReadyOrder<PropagatorState>(*state), " "));
}

// Finishes ready nodes by name with PropagatorState, as the executor
// would, and reports what is ready.
class LoopDriver {
 public:
  explicit LoopDriver(const ImmutableExecutorState& state)
      : propagator_(state) {
    propagator_.ActivateRoots(&ready_);
  }

  // The ready nodes, in the order they became ready: "name" or
  // "name(dead)", space-separated.
  std::string Ready() const {
    std::vector<std::string> names;
    for (const LoopTaggedNode& tn : ready_) {
      names.push_back(tn.is_dead ? tn.item->name() + "(dead)"
                                 : tn.item->name());
    }
    return absl::StrJoin(names, " ");
  }

  const LoopTaggedNode* Find(const std::string& name) const {
    for (const LoopTaggedNode& tn : ready_) {
      if (tn.item->name() == name) return &tn;
    }
    return nullptr;
  }
  FrameAndIter FrameAndIterOf(const std::string& name) const {
    const LoopTaggedNode* tn = Find(name);
    EXPECT_NE(tn, nullptr) << name;
    return tn == nullptr ? FrameAndIter() : propagator_.GetFrameAndIter(*tn);
  }
  const Entry* InputsOf(const std::string& name) const {
    const LoopTaggedNode* tn = Find(name);
    EXPECT_NE(tn, nullptr) << name;
    return tn == nullptr ? nullptr : propagator_.GetInputTensors(*tn);
  }

  // Finishes ready node `name`: output i is live (value `value`) where
  // `live[i]`, missing otherwise; a dead node's outputs are all dead.
  void Finish(const std::string& name, std::vector<bool> live = {},
              float value = 1) {
    auto it = ready_.begin();
    while (it != ready_.end() && it->item->name() != name) ++it;
    ASSERT_NE(it, ready_.end()) << name << " is not ready: " << Ready();
    const LoopTaggedNode tn = *it;
    ready_.erase(it);
    EntryVector outputs(tn.item->num_outputs);
    for (int i = 0; i < tn.item->num_outputs; ++i) {
      if (tn.is_dead || (!live.empty() && !live[i])) continue;
      outputs[i].state = Entry::State::kHasValue;
      outputs[i].val = Tensor::Scalar<float>(value);
    }
    LoopTaggedNodeSeq ready;
    propagator_.PropagateOutputs(tn, tn.is_dead, &outputs, &ready);
    ready_.insert(ready_.end(), ready.begin(), ready.end());
  }

 private:
  PropagatorState propagator_;
  LoopTaggedNodeSeq ready_;
};

TEST_F(PropagatorStateTest, DeadValuesFlowFromSwitchToMerge) {
  GraphDef g;
  AddConst(&g, "x", Tensor::Scalar<float>(3));
  AddConst(&g, "p", Tensor::Scalar<bool>(false));
  AddTyped(&g, "s", "Switch", {"x", "p"}, DT_FLOAT);
  AddTyped(&g, "f", "Identity", {"s:0"}, DT_FLOAT);
  AddTyped(&g, "t", "Identity", {"s:1"}, DT_FLOAT);
  AddNode(&g, "after_t", "NoOp", {"^t"});
  AddNode(&g, "trigger", "ControlTrigger", {"^t"});
  NodeDef* m = AddTyped(&g, "m", "Merge", {"f", "t"}, DT_FLOAT);
  AddNodeAttr("N", 2, m);
  auto state = Layout(g);
  ASSERT_NE(state, nullptr);
  LoopDriver d(*state);
  EXPECT_EQ(d.Ready(), "_SOURCE");
  d.Finish("_SOURCE");
  EXPECT_EQ(d.Ready(), "x p");
  d.Finish("x");
  d.Finish("p");
  EXPECT_EQ(d.Ready(), "s");
  d.Finish("s", {true, false}, 3);  // The false branch is taken.
  EXPECT_EQ(d.Ready(), "f t(dead)");
  d.Finish("t");
  // A dead control edge kills a plain node; ControlTrigger makes it live.
  EXPECT_EQ(d.Ready(), "f after_t(dead) trigger");
  d.Finish("f", {}, 4);
  EXPECT_EQ(d.Ready(), "after_t(dead) trigger m");
  const Entry* m_in = d.InputsOf("m");
  ASSERT_NE(m_in, nullptr);
  EXPECT_EQ(m_in[0].val.scalar<float>(), 4.0f);  // From f.
  EXPECT_FALSE(m_in[1].has_value());             // t was dead.
}

TEST_F(PropagatorStateTest, EnterAndExitMoveValuesBetweenFrames) {
  GraphDef g;
  AddConst(&g, "c", Tensor::Scalar<float>(5));
  AddEnter(&g, "enter", "c", DT_FLOAT, "loop", /*is_constant=*/false, 1);
  AddTyped(&g, "body", "Identity", {"enter"}, DT_FLOAT);
  AddTyped(&g, "exit", "Exit", {"body"}, DT_FLOAT);
  AddTyped(&g, "out", "Identity", {"exit"}, DT_FLOAT);
  auto state = Layout(g);
  ASSERT_NE(state, nullptr);
  const uint64_t loop_id = FrameIdFromPath(ChildFramePath("", 0, "loop"));
  LoopDriver d(*state);
  d.Finish("_SOURCE");
  d.Finish("c", {}, 5);
  EXPECT_EQ(d.Ready(), "enter");
  EXPECT_EQ(d.FrameAndIterOf("enter"), FrameAndIter());
  d.Finish("enter", {}, 5);
  EXPECT_EQ(d.Ready(), "body");
  EXPECT_EQ(d.FrameAndIterOf("body"), (FrameAndIter{loop_id, 0}));
  EXPECT_EQ(d.InputsOf("body")[0].val.scalar<float>(), 5.0f);
  d.Finish("body", {}, 6);
  EXPECT_EQ(d.FrameAndIterOf("exit"), (FrameAndIter{loop_id, 0}));
  d.Finish("exit", {}, 6);
  // Back in the root frame; the loop frame is done and freed.
  EXPECT_EQ(d.Ready(), "out");
  EXPECT_EQ(d.FrameAndIterOf("out"), FrameAndIter());
  EXPECT_EQ(d.InputsOf("out")[0].val.scalar<float>(), 6.0f);
  d.Finish("out");
  EXPECT_EQ(d.Ready(), "_SINK");
  d.Finish("_SINK");
  EXPECT_EQ(d.Ready(), "");
}

}  // namespace
}  // namespace test
}  // namespace stepflow
