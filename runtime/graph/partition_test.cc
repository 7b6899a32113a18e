#include "runtime/graph/partition.h"

#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/graph/algorithm.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_test_util.h"
#include "testing/graph_generators.h"

namespace stepflow {
namespace {

using graph_testing::LocalCpuDevice;
using graph_testing::MakeConst;
using graph_testing::MakeOp;
using test::MakeBoolConst;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;

const std::string kDev0 = LocalCpuDevice(0);
const std::string kDev1 = LocalCpuDevice(1);
const std::string kDev2 = LocalCpuDevice(2);

NodeDef On(NodeDef def, const std::string& device) {
  def.set_device(device);
  return def;
}

std::string StringAttr(const NodeDef& def, const std::string& name) {
  std::string v;
  EXPECT_TRUE(GetNodeAttr(def, name, &v).ok()) << name;
  return v;
}

class PartitionTest : public ::testing::Test {
 protected:
  PartitionTest() {
    opts_.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
    opts_.new_name = [this](const std::string& prefix) {
      return g_.NewName(prefix);
    };
    opts_.get_incarnation = [](const std::string& device) -> uint64_t {
      if (device == kDev0) return 100;
      if (device == kDev1) return 200;
      return 300;
    };
  }

  // Imports `nodes` (NodeDef.device becomes the assigned device).
  void Build(const std::vector<NodeDef>& nodes) {
    GraphDef gdef;
    gdef.mutable_versions()->set_producer(27);
    for (const NodeDef& n : nodes) *gdef.add_node() = n;
    GraphConstructorOptions opts;
    opts.expect_device_spec = true;
    absl::Status s = ConvertGraphDefToGraph(opts, gdef, &g_);
    ASSERT_TRUE(s.ok()) << s;
    FixupSourceAndSinkEdges(&g_);
  }

  // "a" (Const on kDev0) feeds input 1 of "half" (Add on kDev1), whose
  // input 0 has no edge: Partition fails at "half", after "a".
  void BuildHalfConnectedAdd() {
    Build({On(MakeConst("a", 1), kDev0)});
    absl::StatusOr<Node*> n = g_.AddNode(MakeOp("half", "Add", {}));
    ASSERT_TRUE(n.ok()) << n.status();
    (*n)->set_assigned_device_name(kDev1);
    g_.AddEdge(g_.FindNodeByName("a"), 0, *n, 1);
  }

  absl::Status Run() { return Partition(opts_, &g_, &parts_); }

  const NodeDef* FindIn(const std::string& loc, const std::string& name) {
    for (const NodeDef& n : parts_[loc].node()) {
      if (n.name() == name) return &n;
    }
    return nullptr;
  }

  std::vector<const NodeDef*> OpsIn(const std::string& loc,
                                    const std::string& op) {
    std::vector<const NodeDef*> out;
    for (const NodeDef& n : parts_[loc].node()) {
      if (n.op() == op) out.push_back(&n);
    }
    return out;
  }

  std::vector<std::string> Inputs(const std::string& loc,
                                  const std::string& name) {
    const NodeDef* n = FindIn(loc, name);
    EXPECT_NE(n, nullptr) << name << " not in " << loc;
    if (n == nullptr) return {};
    return {n->input().begin(), n->input().end()};
  }

  int Edge(const std::string& src, const std::string& dst) {
    for (const stepflow::Edge* e : g_.FindNodeByName(dst)->in_edges()) {
      if (e->src()->name() == src) return e->id();
    }
    ADD_FAILURE() << "no edge " << src << " -> " << dst;
    return -1;
  }

  // Every partition imports as a graph of its own.
  void ExpectPartitionsImport() {
    for (const auto& [loc, gdef] : parts_) {
      Graph pg(OpRegistry::Global());
      GraphConstructorOptions opts;
      opts.allow_internal_ops = true;
      absl::Status s = ConvertGraphDefToGraph(opts, gdef, &pg);
      EXPECT_TRUE(s.ok()) << loc << ": " << s << "\n" << gdef.DebugString();
    }
  }

  Graph g_{OpRegistry::Global()};
  PartitionOptions opts_;
  std::map<std::string, GraphDef> parts_;
};

TEST_F(PartitionTest, SingleDeviceCopiesNodesAndInputs) {
  Build({On(MakeConst("a", 1), kDev0), On(MakeConst("b", 2), kDev0),
         On(MakeOp("c", "Add", {"a", "b:0", "^b"}), kDev0),
         On(MakeOp("n", "NoOp", {"^c"}), kDev0)});
  ASSERT_TRUE(Run().ok());
  ASSERT_THAT(parts_, SizeIs(1));
  const GraphDef& p = parts_[kDev0];
  ASSERT_EQ(p.node_size(), 4);
  EXPECT_THAT(Inputs(kDev0, "c"), ElementsAre("a", "b", "^b"));
  EXPECT_THAT(Inputs(kDev0, "n"), ElementsAre("^c"));
  // SOURCE/SINK edges are not reproduced.
  EXPECT_THAT(Inputs(kDev0, "a"), ElementsAre());
  for (const NodeDef& n : p.node()) EXPECT_EQ(n.device(), kDev0);
  EXPECT_EQ(p.versions().producer(), 27);
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, CrossDeviceDataEdgeBecomesSendRecvPair) {
  Build({On(MakeConst("a", 1), kDev0),
         On(MakeOp("b", "Identity", {"a"}), kDev1)});
  ASSERT_TRUE(Run().ok());
  ASSERT_THAT(parts_, SizeIs(2));
  auto sends = OpsIn(kDev0, "_Send");
  auto recvs = OpsIn(kDev1, "_Recv");
  ASSERT_THAT(sends, SizeIs(1));
  ASSERT_THAT(recvs, SizeIs(1));
  EXPECT_THAT(OpsIn(kDev1, "_Send"), SizeIs(0));
  EXPECT_THAT(OpsIn(kDev0, "_Recv"), SizeIs(0));
  const NodeDef& send = *sends[0];
  const NodeDef& recv = *recvs[0];

  const std::string tensor_name = absl::StrCat("edge_", Edge("a", "b"), "_a");
  for (const NodeDef* n : {&send, &recv}) {
    SCOPED_TRACE(n->name());
    EXPECT_EQ(StringAttr(*n, "tensor_name"), tensor_name);
    EXPECT_EQ(StringAttr(*n, "send_device"), kDev0);
    EXPECT_EQ(StringAttr(*n, "recv_device"), kDev1);
    int64_t incarnation = 0;
    ASSERT_TRUE(GetNodeAttr(*n, "send_device_incarnation", &incarnation).ok());
    EXPECT_EQ(incarnation, 100);
    bool client_terminated = true;
    ASSERT_TRUE(GetNodeAttr(*n, "client_terminated", &client_terminated).ok());
    EXPECT_FALSE(client_terminated);
    EXPECT_THAT(n->name(), StartsWith("a/_"));
  }
  EXPECT_EQ(send.device(), kDev0);
  EXPECT_EQ(recv.device(), kDev1);
  EXPECT_THAT(
      std::vector<std::string>(send.input().begin(), send.input().end()),
      ElementsAre("a"));
  EXPECT_THAT(recv.input(), SizeIs(0));
  DataType t = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(send, "T", &t).ok());
  EXPECT_EQ(t, DT_FLOAT);
  ASSERT_TRUE(GetNodeAttr(recv, "tensor_type", &t).ok());
  EXPECT_EQ(t, DT_FLOAT);
  EXPECT_THAT(Inputs(kDev1, "b"), ElementsAre(recv.name()));
  EXPECT_EQ(FindIn(kDev1, "b")->device(), kDev1);
  EXPECT_EQ(FindIn(kDev0, "b"), nullptr);
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, RecvTensorTypeIsTheConsumerInputType) {
  Build({On(MakeConst("x", 1), kDev0), On(MakeBoolConst("p"), kDev0),
         On(MakeOp("s", "Switch", {"x", "p"}), kDev1)});
  ASSERT_TRUE(Run().ok());
  std::map<std::string, DataType> by_tensor;
  for (const NodeDef* r : OpsIn(kDev1, "_Recv")) {
    DataType t = DT_INVALID;
    ASSERT_TRUE(GetNodeAttr(*r, "tensor_type", &t).ok());
    by_tensor[StringAttr(*r, "tensor_name")] = t;
  }
  EXPECT_EQ(by_tensor[absl::StrCat("edge_", Edge("x", "s"), "_x")], DT_FLOAT);
  EXPECT_EQ(by_tensor[absl::StrCat("edge_", Edge("p", "s"), "_p")], DT_BOOL);
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, ConsumersInOneDestinationShareOneRecv) {
  Build({On(MakeConst("a", 1), kDev0),
         On(MakeOp("b", "Identity", {"a"}), kDev1),
         On(MakeOp("c", "Add", {"a", "a"}), kDev1),
         On(MakeOp("d", "Identity", {"a"}), kDev2)});
  ASSERT_TRUE(Run().ok());
  ASSERT_THAT(parts_, SizeIs(3));
  // One pair per destination.
  auto sends = OpsIn(kDev0, "_Send");
  ASSERT_THAT(sends, SizeIs(2));
  auto recvs1 = OpsIn(kDev1, "_Recv");
  auto recvs2 = OpsIn(kDev2, "_Recv");
  ASSERT_THAT(recvs1, SizeIs(1));
  ASSERT_THAT(recvs2, SizeIs(1));
  const std::string r1 = recvs1[0]->name();
  EXPECT_THAT(Inputs(kDev1, "b"), ElementsAre(r1));
  EXPECT_THAT(Inputs(kDev1, "c"), ElementsAre(r1, r1));
  EXPECT_THAT(Inputs(kDev2, "d"), ElementsAre(recvs2[0]->name()));
  // The tensor name comes from the first consumer edge (in id order).
  EXPECT_EQ(StringAttr(*recvs1[0], "tensor_name"),
            absl::StrCat("edge_", Edge("a", "b"), "_a"));
  EXPECT_EQ(StringAttr(*recvs2[0], "tensor_name"),
            absl::StrCat("edge_", Edge("a", "d"), "_a"));
  EXPECT_EQ(StringAttr(*recvs2[0], "recv_device"), kDev2);
  // Each Send pairs with exactly one Recv.
  std::map<std::string, int> names;
  for (const NodeDef* s : sends) names[StringAttr(*s, "tensor_name")]++;
  EXPECT_EQ(names[StringAttr(*recvs1[0], "tensor_name")], 1);
  EXPECT_EQ(names[StringAttr(*recvs2[0], "tensor_name")], 1);
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, DifferentOutputsOfOneNodeGetTheirOwnPairs) {
  Build({On(MakeConst("x", 1), kDev0), On(MakeBoolConst("p"), kDev0),
         On(MakeOp("s", "Switch", {"x", "p"}), kDev0),
         On(MakeOp("f", "Identity", {"s:0"}), kDev1),
         On(MakeOp("t", "Identity", {"s:1"}), kDev1)});
  ASSERT_TRUE(Run().ok());
  auto sends = OpsIn(kDev0, "_Send");
  ASSERT_THAT(sends, SizeIs(2));
  EXPECT_THAT(std::vector<std::string>(sends[0]->input().begin(),
                                       sends[0]->input().end()),
              ElementsAre("s"));
  EXPECT_THAT(std::vector<std::string>(sends[1]->input().begin(),
                                       sends[1]->input().end()),
              ElementsAre("s:1"));
  ASSERT_THAT(OpsIn(kDev1, "_Recv"), SizeIs(2));
  EXPECT_NE(Inputs(kDev1, "f"), Inputs(kDev1, "t"));
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, CrossDeviceControlEdgeUsesDummyConstAndIdentity) {
  Build({On(MakeConst("a", 1), kDev0), On(MakeOp("n", "NoOp", {"^a"}), kDev1),
         On(MakeOp("m", "NoOp", {"^a"}), kDev1)});
  ASSERT_TRUE(Run().ok());
  // Source side: a -> (control) dummy Const -> _Send.
  auto consts = OpsIn(kDev0, "Const");
  ASSERT_THAT(consts, SizeIs(2));  // a and the dummy
  const NodeDef* dummy = consts[0]->name() == "a" ? consts[1] : consts[0];
  EXPECT_THAT(
      std::vector<std::string>(dummy->input().begin(), dummy->input().end()),
      ElementsAre("^a"));
  EXPECT_EQ(dummy->device(), kDev0);
  EXPECT_THAT(dummy->name(), StartsWith("a/_"));
  auto sends = OpsIn(kDev0, "_Send");
  ASSERT_THAT(sends, SizeIs(1));
  EXPECT_THAT(std::vector<std::string>(sends[0]->input().begin(),
                                       sends[0]->input().end()),
              ElementsAre(dummy->name()));
  const std::string tensor_name = absl::StrCat("edge_", Edge("a", "n"), "_a");
  EXPECT_EQ(StringAttr(*sends[0], "tensor_name"), tensor_name);

  // Destination side: _Recv -> Identity -> ^consumer, shared by n and m.
  auto recvs = OpsIn(kDev1, "_Recv");
  auto ids = OpsIn(kDev1, "Identity");
  ASSERT_THAT(recvs, SizeIs(1));
  ASSERT_THAT(ids, SizeIs(1));
  EXPECT_EQ(StringAttr(*recvs[0], "tensor_name"), tensor_name);
  EXPECT_EQ(StringAttr(*recvs[0], "send_device"), kDev0);
  EXPECT_EQ(StringAttr(*recvs[0], "recv_device"), kDev1);
  EXPECT_THAT(
      std::vector<std::string>(ids[0]->input().begin(), ids[0]->input().end()),
      ElementsAre(recvs[0]->name()));
  EXPECT_EQ(ids[0]->device(), kDev1);
  const std::string ctrl = "^" + ids[0]->name();
  EXPECT_THAT(Inputs(kDev1, "n"), ElementsAre(ctrl));
  EXPECT_THAT(Inputs(kDev1, "m"), ElementsAre(ctrl));
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, DataAndControlEdgesFromOneNodeUseSeparatePairs) {
  Build({On(MakeConst("a", 1), kDev0),
         On(MakeOp("b", "Identity", {"a", "^a"}), kDev1)});
  ASSERT_TRUE(Run().ok());
  ASSERT_THAT(OpsIn(kDev0, "_Send"), SizeIs(2));
  ASSERT_THAT(OpsIn(kDev1, "_Recv"), SizeIs(2));
  const std::vector<std::string> in = Inputs(kDev1, "b");
  ASSERT_THAT(in, SizeIs(2));
  EXPECT_FALSE(absl::StartsWith(in[0], "^"));  // data first
  EXPECT_TRUE(absl::StartsWith(in[1], "^"));
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, DuplicateControlEdgesBecomeOneControlInput) {
  Build({On(MakeConst("a", 1), kDev0), On(MakeOp("n", "NoOp", {}), kDev1)});
  g_.AddControlEdge(g_.FindNodeByName("a"), g_.FindNodeByName("n"),
                    /*allow_duplicates=*/true);
  g_.AddControlEdge(g_.FindNodeByName("a"), g_.FindNodeByName("n"),
                    /*allow_duplicates=*/true);
  ASSERT_TRUE(Run().ok());
  EXPECT_THAT(Inputs(kDev1, "n"), SizeIs(1));
  EXPECT_THAT(OpsIn(kDev0, "_Send"), SizeIs(1));
  ExpectPartitionsImport();
}

TEST_F(PartitionTest, IncarnationComesFromTheSendDevice) {
  Build({On(MakeConst("a", 1), kDev1),
         On(MakeOp("b", "Identity", {"a"}), kDev0),
         On(MakeOp("c", "Identity", {"b"}), kDev2)});
  ASSERT_TRUE(Run().ok());
  std::map<std::string, int64_t> incarnation_by_sender;
  for (const auto& [loc, gdef] : parts_) {
    for (const NodeDef& n : gdef.node()) {
      if (n.op() != "_Send" && n.op() != "_Recv") continue;
      int64_t inc = 0;
      ASSERT_TRUE(GetNodeAttr(n, "send_device_incarnation", &inc).ok());
      const std::string sender = StringAttr(n, "send_device");
      EXPECT_EQ(inc, opts_.get_incarnation(sender)) << n.name();
      incarnation_by_sender[sender] = inc;
    }
  }
  EXPECT_EQ(incarnation_by_sender[kDev1], 200);
  EXPECT_EQ(incarnation_by_sender[kDev0], 100);
}

TEST_F(PartitionTest, LocationsMayGroupSeveralDevices) {
  // Partition by task: both devices share one location, so no transfers.
  Build({On(MakeConst("a", 1), kDev0),
         On(MakeOp("b", "Identity", {"a"}), kDev1)});
  opts_.node_to_loc = [](const Node*) {
    return std::string("/job:localhost/replica:0/task:0");
  };
  ASSERT_TRUE(Run().ok());
  ASSERT_THAT(parts_, SizeIs(1));
  const GraphDef& p = parts_.begin()->second;
  EXPECT_EQ(p.node_size(), 2);
  EXPECT_EQ(FindIn(parts_.begin()->first, "b")->device(), kDev1);
}

TEST_F(PartitionTest, MissingInputIsInvalidArgument) {
  NodeDef def = MakeOp("lonely", "Identity", {});
  absl::StatusOr<Node*> n = g_.AddNode(def);
  ASSERT_TRUE(n.ok()) << n.status();
  (*n)->set_assigned_device_name(kDev0);
  absl::Status s = Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node lonely}}"));
  EXPECT_THAT(s.message(), HasSubstr("missing"));
}

TEST_F(PartitionTest, PartiallyMissingInputsIsInvalidArgument) {
  BuildHalfConnectedAdd();
  absl::Status s = Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node half}}"));
}

TEST_F(PartitionTest, UnplacedNodeIsInvalidArgument) {
  Build({On(MakeConst("a", 1), kDev0)});
  g_.FindNodeByName("a")->set_assigned_device_name("");
  absl::Status s = Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node a}}"));
}

TEST_F(PartitionTest, UnsetOptionsAreInvalidArgument) {
  Build({On(MakeConst("a", 1), kDev0)});
  opts_.get_incarnation = nullptr;
  EXPECT_EQ(Run().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PartitionTest, OutputIsDeterministic) {
  auto build_and_partition = [](std::map<std::string, GraphDef>* out) {
    Graph g(OpRegistry::Global());
    GraphDef gdef;
    *gdef.add_node() = On(MakeConst("a", 1), kDev0);
    *gdef.add_node() = On(MakeConst("b", 1), kDev1);
    *gdef.add_node() = On(MakeOp("c", "Add", {"a", "b"}), kDev2);
    *gdef.add_node() = On(MakeOp("d", "Mul", {"c", "a", "^b"}), kDev1);
    *gdef.add_node() = On(MakeOp("e", "NoOp", {"^d", "^a"}), kDev2);
    GraphConstructorOptions opts;
    opts.expect_device_spec = true;
    ASSERT_TRUE(ConvertGraphDefToGraph(opts, gdef, &g).ok());
    PartitionOptions popts;
    popts.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
    popts.new_name = [&g](const std::string& p) { return g.NewName(p); };
    popts.get_incarnation = [](const std::string&) -> uint64_t { return 7; };
    ASSERT_TRUE(Partition(popts, &g, out).ok());
  };
  std::map<std::string, GraphDef> first, second;
  build_and_partition(&first);
  build_and_partition(&second);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(first.size(), second.size());
  for (const auto& [loc, gdef] : first) {
    // (Attr maps have no defined order, so compare as messages.)
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(gdef, second[loc]))
        << loc;
  }
}

TEST_F(PartitionTest, MixedGraphRoundTripsAndKeepsEveryNodeOnce) {
  Build({On(MakeConst("a", 1), kDev0), On(MakeConst("b", 2), kDev1),
         On(MakeOp("c", "Add", {"a", "b"}), kDev2),
         On(MakeOp("d", "Mul", {"c", "a", "^b"}), kDev1),
         On(MakeOp("e", "AddV2", {"d", "c"}), kDev0),
         On(MakeOp("f", "NoOp", {"^e", "^c", "^a"}), kDev2)});
  ASSERT_TRUE(Run().ok());
  ExpectPartitionsImport();
  std::map<std::string, int> seen;
  int sends = 0, recvs = 0;
  for (const auto& [loc, gdef] : parts_) {
    for (const NodeDef& n : gdef.node()) {
      EXPECT_FALSE(n.device().empty()) << n.name();
      seen[n.name()]++;
      if (n.op() == "_Send") ++sends;
      if (n.op() == "_Recv") ++recvs;
    }
  }
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    EXPECT_EQ(seen[name], 1) << name;
  }
  for (const auto& [name, count] : seen) EXPECT_EQ(count, 1) << name;
  EXPECT_EQ(sends, recvs);
  // Cross edges: a->c, b->c, c->d, a->d, d->e, c->e, ^e->f, ^a->f (^b->d
  // and ^c->f are local; ^a->f shares nothing with a->c: control vs data).
  EXPECT_EQ(sends, 8);
}

TEST_F(PartitionTest, TakingNodeDefsGivesTheSamePartitions) {
  const std::vector<NodeDef> nodes = {
      On(MakeConst("a", 1), kDev0), On(MakeConst("b", 2), kDev1),
      On(MakeOp("c", "Add", {"a", "b"}), kDev2),
      On(MakeOp("d", "Mul", {"c", "a", "^b"}), kDev1),
      On(MakeOp("e", "NoOp", {"^d", "^a", "^c"}), kDev2)};
  Build(nodes);
  ASSERT_TRUE(Run().ok());
  const std::map<std::string, GraphDef> copied = parts_;

  Graph g(OpRegistry::Global());
  GraphDef gdef;
  gdef.mutable_versions()->set_producer(27);  // As Build.
  for (const NodeDef& n : nodes) *gdef.add_node() = n;
  GraphConstructorOptions gopts;
  gopts.expect_device_spec = true;
  ASSERT_TRUE(ConvertGraphDefToGraph(gopts, gdef, &g).ok());
  PartitionOptions opts = opts_;
  opts.new_name = [&g](const std::string& p) { return g.NewName(p); };
  opts.take_node_defs = true;
  std::map<std::string, GraphDef> taken;
  ASSERT_TRUE(Partition(opts, &g, &taken).ok());

  ASSERT_EQ(taken.size(), copied.size());
  for (const auto& [loc, part] : copied) {
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(part, taken[loc]))
        << loc << "\ncopied:\n"
        << part.DebugString() << "taken:\n"
        << taken[loc].DebugString();
  }
  // The taken graph's nodes gave up their NodeDefs; the copied one's kept
  // theirs.
  const Node* c = g.FindNodeByName("c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name(), "");
  EXPECT_TRUE(c->def().attr().empty());
  EXPECT_EQ(g_.FindNodeByName("c")->def().attr().count("T"), 1u);
}

TEST_F(PartitionTest, TakingNodeDefsLeavesTheGraphWholeOnError) {
  BuildHalfConnectedAdd();
  opts_.take_node_defs = true;
  EXPECT_EQ(Run().code(), absl::StatusCode::kInvalidArgument);
  const Node* a = g_.FindNodeByName("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name(), "a");
  EXPECT_EQ(a->type_string(), "Const");
  EXPECT_EQ(a->def().attr().count("value"), 1u);
}

// a -> Enter(frame "loop") -> Merge -> Switch -> Identity(body) ->
// NextIteration -> Merge; Switch:0 -> Exit -> out.
std::vector<NodeDef> LoopGraph(const std::string& body_device,
                               const std::string& out_device) {
  NodeDef enter = MakeOp("enter", "Enter", {"a"});
  AddNodeAttr("frame_name", "loop", &enter);
  NodeDef penter = MakeOp("penter", "Enter", {"p"});
  AddNodeAttr("frame_name", "loop", &penter);
  AddNodeAttr("T", DT_BOOL, &penter);
  NodeDef merge = MakeOp("merge", "Merge", {"enter", "next"});
  AddNodeAttr("N", static_cast<int64_t>(2), &merge);
  NodeDef cond = MakeOp("cond", "LoopCond", {"penter"});
  cond.mutable_attr()->erase("T");
  return {On(MakeConst("a", 1), kDev0),
          On(MakeBoolConst("p"), kDev0),
          On(enter, kDev0),
          On(penter, kDev0),
          On(merge, kDev0),
          On(cond, kDev0),
          On(MakeOp("switch", "Switch", {"merge", "cond"}), kDev0),
          On(MakeOp("body", "Identity", {"switch:1"}), body_device),
          On(MakeOp("next", "NextIteration", {"body"}), kDev0),
          On(MakeOp("exit", "Exit", {"switch"}), kDev0),
          On(MakeOp("out", "Identity", {"exit"}), out_device)};
}

TEST_F(PartitionTest, EdgesLeavingALoopThroughExitArePartitioned) {
  Build(LoopGraph(kDev0, kDev1));
  absl::Status s = Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(OpsIn(kDev0, "_Send"), SizeIs(1));
  EXPECT_THAT(OpsIn(kDev1, "_Recv"), SizeIs(1));
  ExpectPartitionsImport();
}

// The control loop built on `loc` for frame "loop": Enter, Merge, Switch,
// NextIteration and Exit nodes named "_cloop...".
struct ControlLoopNodes {
  const NodeDef* enter = nullptr;
  const NodeDef* merge = nullptr;
  const NodeDef* sw = nullptr;
  const NodeDef* next = nullptr;
  const NodeDef* exit = nullptr;
  const NodeDef* dummy = nullptr;
  int count = 0;
};

ControlLoopNodes FindControlLoop(const GraphDef& gdef) {
  ControlLoopNodes c;
  for (const NodeDef& n : gdef.node()) {
    if (!absl::StartsWith(n.name(), "_cloop")) continue;
    ++c.count;
    if (n.op() == "Enter") c.enter = &n;
    if (n.op() == "Merge") c.merge = &n;
    if (n.op() == "Switch") c.sw = &n;
    if (n.op() == "NextIteration") c.next = &n;
    if (n.op() == "Exit") c.exit = &n;
    if (n.op() == "Const") c.dummy = &n;
  }
  return c;
}

// The Recv in `loc` whose tensor_name names `src`.
const NodeDef* RecvOf(const GraphDef& gdef, const std::string& src) {
  for (const NodeDef& n : gdef.node()) {
    if (n.op() != "_Recv") continue;
    std::string tensor_name;
    if (!GetNodeAttr(n, "tensor_name", &tensor_name).ok()) continue;
    if (absl::EndsWith(tensor_name, "_" + src)) return &n;
  }
  return nullptr;
}

TEST_F(PartitionTest, CrossDeviceEdgesInsideALoopGetControlLoops) {
  Build(LoopGraph(kDev1, kDev0));
  absl::Status s = Run();
  ASSERT_TRUE(s.ok()) << s;
  ExpectPartitionsImport();

  // dev1 (body only): a control loop on the received predicate.
  const ControlLoopNodes c1 = FindControlLoop(parts_[kDev1]);
  ASSERT_EQ(c1.count, 6);
  ASSERT_NE(c1.enter, nullptr);
  ASSERT_NE(c1.merge, nullptr);
  ASSERT_NE(c1.sw, nullptr);
  ASSERT_NE(c1.next, nullptr);
  ASSERT_NE(c1.exit, nullptr);
  ASSERT_NE(c1.dummy, nullptr);
  EXPECT_EQ(StringAttr(*c1.enter, "frame_name"), "loop");
  EXPECT_THAT(c1.enter->input(), ElementsAre(c1.dummy->name()));
  EXPECT_THAT(c1.merge->input(),
              ElementsAre(c1.enter->name(), c1.next->name()));
  EXPECT_THAT(c1.next->input(), ElementsAre(c1.sw->name() + ":1"));
  EXPECT_THAT(c1.exit->input(), ElementsAre(c1.sw->name()));
  for (const NodeDef* n : {c1.enter, c1.merge, c1.sw, c1.next, c1.exit}) {
    EXPECT_EQ(n->device(), kDev1) << n->name();
  }
  // Its predicate is LoopCond's value, received once per iteration.
  const NodeDef* pred_recv = RecvOf(parts_[kDev1], "cond");
  ASSERT_NE(pred_recv, nullptr);
  EXPECT_THAT(c1.sw->input(), ElementsAre(c1.merge->name(), pred_recv->name()));
  EXPECT_THAT(pred_recv->input(), ElementsAre("^" + c1.merge->name()));
  // The body's input arrives once per iteration too.
  const NodeDef* body_recv = RecvOf(parts_[kDev1], "switch");
  ASSERT_NE(body_recv, nullptr);
  EXPECT_THAT(body_recv->input(), ElementsAre("^" + c1.merge->name()));
  EXPECT_THAT(Inputs(kDev1, "body"), ElementsAre(body_recv->name()));

  // dev0 owns LoopCond: its control loop switches on it directly and gates
  // the Recv of the body's result.
  const ControlLoopNodes c0 = FindControlLoop(parts_[kDev0]);
  ASSERT_EQ(c0.count, 6);
  ASSERT_NE(c0.sw, nullptr);
  EXPECT_THAT(c0.sw->input(), ElementsAre(c0.merge->name(), "cond"));
  const NodeDef* next_recv = RecvOf(parts_[kDev0], "body");
  ASSERT_NE(next_recv, nullptr);
  EXPECT_THAT(next_recv->input(), ElementsAre("^" + c0.merge->name()));
  EXPECT_THAT(Inputs(kDev0, "next"), ElementsAre(next_recv->name()));
  // Sends: switch:1 and cond to dev1; body to dev0.
  EXPECT_THAT(OpsIn(kDev0, "_Send"), SizeIs(2));
  EXPECT_THAT(OpsIn(kDev1, "_Send"), SizeIs(1));
}

TEST_F(PartitionTest, ControlLoopsAreDeterministic) {
  // Two independent imports of the same graph partition identically.
  auto partition_fresh = [this](std::map<std::string, GraphDef>* out) {
    GraphDef gdef;
    gdef.mutable_versions()->set_producer(27);
    for (const NodeDef& n : LoopGraph(kDev1, kDev0)) *gdef.add_node() = n;
    Graph g(OpRegistry::Global());
    GraphConstructorOptions gopts;
    gopts.expect_device_spec = true;
    ASSERT_TRUE(ConvertGraphDefToGraph(gopts, gdef, &g).ok());
    FixupSourceAndSinkEdges(&g);
    PartitionOptions opts = opts_;
    opts.new_name = [&g](const std::string& prefix) {
      return g.NewName(prefix);
    };
    absl::Status s = Partition(opts, &g, out);
    ASSERT_TRUE(s.ok()) << s;
  };
  std::map<std::string, GraphDef> first, second;
  partition_fresh(&first);
  partition_fresh(&second);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(first.size(), second.size());
  for (const auto& [loc, gdef] : first) {
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(gdef, second[loc]))
        << loc;
  }
}

TEST_F(PartitionTest, NonConstantEnterMovesNextToItsMerge) {
  std::vector<NodeDef> nodes = LoopGraph(kDev0, kDev0);
  for (NodeDef& n : nodes) {
    if (n.name() == "merge" || n.name() == "switch" || n.name() == "body" ||
        n.name() == "next" || n.name() == "exit") {
      n.set_device(kDev1);
    }
  }
  Build(nodes);
  absl::Status s = Run();
  ASSERT_TRUE(s.ok()) << s;
  ExpectPartitionsImport();
  // The Enter follows its Merge; the edge a -> enter crosses in the root
  // frame instead (a plain Send/Recv).
  ASSERT_NE(FindIn(kDev1, "enter"), nullptr);
  EXPECT_EQ(FindIn(kDev1, "enter")->device(), kDev1);
  EXPECT_EQ(FindIn(kDev0, "enter"), nullptr);
  const NodeDef* a_recv = RecvOf(parts_[kDev1], "a");
  ASSERT_NE(a_recv, nullptr);
  EXPECT_THAT(a_recv->input(), SizeIs(0));
}

TEST_F(PartitionTest, NextIterationFeedingTwoLocationsIsUnimplemented) {
  std::vector<NodeDef> nodes = LoopGraph(kDev0, kDev0);
  nodes.push_back(On(MakeOp("peek", "Identity", {"next"}), kDev1));
  Build(nodes);
  absl::Status s = Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(s.message(), HasSubstr("{{node next}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node peek}}"));
}

TEST_F(PartitionTest, SplitLoopWithoutLoopCondIsInvalidArgument) {
  std::vector<NodeDef> nodes = LoopGraph(kDev1, kDev0);
  for (NodeDef& n : nodes) {
    if (n.name() == "cond") {
      n.set_op("Identity");
      AddNodeAttr("T", DT_BOOL, &n);
    }
  }
  Build(nodes);
  absl::Status s = Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("'loop'"));
  EXPECT_THAT(s.message(), HasSubstr("LoopCond"));
}

// Outer frame on dev0 (with its LoopCond); an inner loop whose body runs on
// dev1: dev1 gets a control loop for the inner frame nested in one for the
// outer frame.
std::vector<NodeDef> NestedLoopGraph() {
  auto enter = [](const std::string& name, const std::string& input,
                  const std::string& frame, DataType t, bool is_constant) {
    NodeDef n = MakeOp(name, "Enter", {input});
    AddNodeAttr("frame_name", frame, &n);
    AddNodeAttr("T", t, &n);
    AddNodeAttr("is_constant", is_constant, &n);
    return n;
  };
  auto merge = [](const std::string& name, const std::string& a,
                  const std::string& b) {
    NodeDef n = MakeOp(name, "Merge", {a, b});
    AddNodeAttr("N", static_cast<int64_t>(2), &n);
    return n;
  };
  auto cond = [](const std::string& name, const std::string& input) {
    NodeDef n = MakeOp(name, "LoopCond", {input});
    n.mutable_attr()->erase("T");
    return n;
  };
  return {On(MakeConst("a", 1), kDev0),
          On(MakeBoolConst("p"), kDev0),
          On(enter("o_enter", "a", "outer", DT_FLOAT, false), kDev0),
          On(enter("o_p", "p", "outer", DT_BOOL, true), kDev0),
          On(merge("o_merge", "o_enter", "o_next"), kDev0),
          On(cond("o_cond", "o_p"), kDev0),
          On(MakeOp("o_switch", "Switch", {"o_merge", "o_cond"}), kDev0),
          On(MakeOp("o_body", "Identity", {"o_switch:1"}), kDev0),
          On(enter("i_enter", "o_body", "inner", DT_FLOAT, false), kDev0),
          On(enter("i_p", "p_in_outer", "inner", DT_BOOL, true), kDev0),
          On(MakeOp("p_in_outer", "Identity", {"o_p"}), kDev0),
          On(merge("i_merge", "i_enter", "i_next"), kDev0),
          On(cond("i_cond", "i_p"), kDev0),
          On(MakeOp("i_switch", "Switch", {"i_merge", "i_cond"}), kDev0),
          On(MakeOp("i_body", "Identity", {"i_switch:1"}), kDev1),
          On(MakeOp("i_next", "NextIteration", {"i_body"}), kDev0),
          On(MakeOp("i_exit", "Exit", {"i_switch"}), kDev0),
          On(MakeOp("o_next", "NextIteration", {"i_exit"}), kDev0),
          On(MakeOp("o_exit", "Exit", {"o_switch"}), kDev0)};
}

TEST_F(PartitionTest, NestedFramesGetNestedControlLoops) {
  std::vector<NodeDef> nodes = NestedLoopGraph();
  for (NodeDef& n : nodes) {
    if (n.name() == "p_in_outer") AddNodeAttr("T", DT_BOOL, &n);
  }
  Build(nodes);
  absl::Status s = Run();
  ASSERT_TRUE(s.ok()) << s;
  ExpectPartitionsImport();
  std::map<std::string, const NodeDef*> enters;  // frame -> control Enter
  std::map<std::string, const NodeDef*> merges;  // Merge name -> node
  for (const NodeDef& n : parts_[kDev1].node()) {
    if (!absl::StartsWith(n.name(), "_cloop")) continue;
    if (n.op() == "Enter") enters[StringAttr(n, "frame_name")] = &n;
    if (n.op() == "Merge") merges[n.name()] = &n;
  }
  ASSERT_EQ(enters.size(), 2u);
  ASSERT_EQ(merges.size(), 2u);
  // The inner control loop is entered from the outer one's Merge.
  const NodeDef* inner = enters["inner"];
  const NodeDef* outer = enters["outer"];
  ASSERT_NE(inner, nullptr);
  ASSERT_NE(outer, nullptr);
  ASSERT_EQ(inner->input_size(), 1);
  ASSERT_TRUE(merges.count(inner->input(0))) << inner->input(0);
  EXPECT_THAT(merges[inner->input(0)]->input(0), outer->name());
  // Both predicates are received inside their frames.
  const NodeDef* o_pred = RecvOf(parts_[kDev1], "o_cond");
  const NodeDef* i_pred = RecvOf(parts_[kDev1], "i_cond");
  ASSERT_NE(o_pred, nullptr);
  ASSERT_NE(i_pred, nullptr);
  EXPECT_THAT(o_pred->input(), ElementsAre("^" + inner->input(0)));
  // The body's Recv hangs off the inner control loop.
  const NodeDef* body_recv = RecvOf(parts_[kDev1], "i_switch");
  ASSERT_NE(body_recv, nullptr);
  ASSERT_EQ(body_recv->input_size(), 1);
  EXPECT_EQ(body_recv->input(0), i_pred->input(0));
  EXPECT_NE(body_recv->input(0), "^" + inner->input(0));
}

// A graph split by group first (dev1+dev2 together), then that group's
// piece split by device, as the distributed master and a worker do: the
// second split finds the predicate through the first split's control loop.
TEST_F(PartitionTest, SecondLevelSplitUsesTheControlLoopPredicate) {
  std::vector<NodeDef> nodes = LoopGraph(kDev1, kDev0);
  nodes.push_back(On(MakeOp("body2", "Identity", {"body"}), kDev2));
  for (NodeDef& n : nodes) {
    if (n.name() == "next") n.set_input(0, "body2");
  }
  Build(nodes);
  opts_.node_to_loc = [](const Node* n) {
    return n->assigned_device_name() == kDev0 ? std::string("A")
                                              : std::string("B");
  };
  // NextIteration follows its Merge to A, so body2 -> next crosses.
  absl::Status s = Run();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(parts_.size(), 2u);
  const GraphDef group = parts_["B"];

  Graph g2(OpRegistry::Global());
  GraphConstructorOptions gopts;
  gopts.allow_internal_ops = true;
  gopts.expect_device_spec = true;
  ASSERT_TRUE(ConvertGraphDefToGraph(gopts, group, &g2).ok());
  FixupSourceAndSinkEdges(&g2);
  PartitionOptions opts2 = opts_;
  opts2.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
  opts2.new_name = [&g2](const std::string& prefix) {
    return g2.NewName(prefix);
  };
  std::map<std::string, GraphDef> parts2;
  s = Partition(opts2, &g2, &parts2);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(parts2.size(), 2u);
  // dev2 has its own control loop, switching on the predicate that the
  // group's control loop received (now sent on from dev1).
  const ControlLoopNodes c2 = FindControlLoop(parts2[kDev2]);
  ASSERT_NE(c2.sw, nullptr);
  ASSERT_EQ(c2.sw->input_size(), 2);
  bool pred_is_received = false;
  for (const NodeDef& n : parts2[kDev2].node()) {
    if (n.name() == c2.sw->input(1)) pred_is_received = n.op() == "_Recv";
  }
  EXPECT_TRUE(pred_is_received) << c2.sw->DebugString();
}

}  // namespace
}  // namespace stepflow
