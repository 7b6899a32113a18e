#include "runtime/graph/subgraph.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/device_attributes.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_test_util.h"
#include "testing/graph_generators.h"

namespace stepflow {
namespace {

using graph_testing::MakeConst;
using graph_testing::MakeOp;
using graph_testing::MakePlaceholder;
using test::MakeBoolConst;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr char kClient[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr uint64_t kIncarnation = 0x1234abcdULL;

class SubgraphTest : public ::testing::Test {
 protected:
  SubgraphTest() {
    device_.set_name(kClient);
    device_.set_device_type("CPU");
    device_.set_incarnation(kIncarnation);
  }

  // a = Const, b = Placeholder, c = Add(a, b), d = Mul(c, a), e = Identity(d),
  // f = NoOp(^e); unrelated: u = Const, v = Identity(u).
  void BuildDefault() {
    Build({MakeConst("a", 1), MakePlaceholder("b"),
           MakeOp("c", "Add", {"a", "b"}), MakeOp("d", "Mul", {"c", "a"}),
           MakeOp("e", "Identity", {"d"}), MakeOp("f", "NoOp", {"^e"}),
           MakeConst("u", 2), MakeOp("v", "Identity", {"u"})});
  }

  void Build(const std::vector<NodeDef>& nodes) {
    GraphDef gdef;
    for (const NodeDef& n : nodes) *gdef.add_node() = n;
    ASSERT_TRUE(ConvertGraphDefToGraph({}, gdef, &g_).ok());
  }

  absl::Status Rewrite(const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets,
                       bool use_function_convention = true) {
    return subgraph::RewriteGraphForExecution(
        &g_, feeds, fetches, targets, device_, use_function_convention, &meta_);
  }

  std::vector<std::string> OpNames() const {
    std::vector<std::string> names;
    for (const Node* n : g_.op_nodes()) names.push_back(n->name());
    std::sort(names.begin(), names.end());
    return names;
  }

  Node* Find(const std::string& name) const { return g_.FindNodeByName(name); }

  // "src:slot" for data in-edges (by slot), then "^src" for control
  // in-edges, sorted.
  std::vector<std::string> Inputs(const std::string& name) const {
    const Node* n = Find(name);
    std::vector<std::string> data(n->num_inputs());
    std::vector<std::string> control;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) {
        control.push_back("^" + e->src()->name());
      } else {
        data[e->dst_input()] =
            absl::StrCat(e->src()->name(), ":", e->src_output());
      }
    }
    std::sort(control.begin(), control.end());
    data.insert(data.end(), control.begin(), control.end());
    return data;
  }

  std::vector<std::string> OutputNames(const std::string& name) const {
    std::vector<std::string> out;
    for (const Edge* e : Find(name)->out_edges()) {
      out.push_back(e->IsControlEdge() ? "^" + e->dst()->name()
                                       : e->dst()->name());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Graph g_{OpRegistry::Global()};
  DeviceAttributes device_;
  subgraph::RewriteGraphMetadata meta_;
};

// ---------------------------------------------------------------------------
// Errors, in the order they are checked.

TEST_F(SubgraphTest, FeedingAReferenceANeededNodeAssignsIsInvalidArgument) {
  NodeDef v;
  v.set_name("v");
  v.set_op("VariableV2");
  AddNodeAttr("dtype", DT_FLOAT, &v);
  TensorShapeProto scalar;
  AttrValue shape;
  *shape.mutable_shape() = scalar;
  AddNodeAttr("shape", shape, &v);
  Build({MakeConst("a", 1), v, MakeOp("init", "Assign", {"v", "a"}),
         MakeOp("r", "Identity", {"v"})});
  const int before = g_.num_op_nodes();
  absl::Status s = Rewrite({"v"}, {}, {"init"});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("{{node init}}"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("by reference"));
  EXPECT_EQ(g_.num_op_nodes(), before);  // Unchanged on error.
  // Reading the fed value is fine, and so is an initializer left unused.
  s = Rewrite({"v"}, {"r"}, {});
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(SubgraphTest, NothingToFetchOrRunIsInvalidArgument) {
  BuildDefault();
  absl::Status s = Rewrite({"b"}, {}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("Must specify at least one target to fetch or "
                        "execute."));
}

TEST_F(SubgraphTest, NothingToRunIsCheckedBeforeDuplicateFeeds) {
  BuildDefault();
  absl::Status s = Rewrite({"b", "b"}, {}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Must specify"));
}

TEST_F(SubgraphTest, EndpointFedTwiceIsInvalidArgument) {
  BuildDefault();
  // "b" and "b:0" are the same endpoint.
  absl::Status s = Rewrite({"b", "b:0"}, {"e"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("b:0"));
  EXPECT_THAT(s.message(), HasSubstr("fed more than once"));
}

TEST_F(SubgraphTest, FedTwiceIsCheckedBeforeFedAndFetched) {
  BuildDefault();
  absl::Status s = Rewrite({"b", "b"}, {"b"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("fed more than once"));
}

TEST_F(SubgraphTest, FedAndFetchedIsInvalidArgument) {
  BuildDefault();
  absl::Status s = Rewrite({"c"}, {"e", "c:0"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("c:0"));
  EXPECT_THAT(s.message(), HasSubstr("both fed and fetched"));
}

TEST_F(SubgraphTest, FedAndFetchedIsCheckedBeforeMissingNodes) {
  BuildDefault();
  absl::Status s = Rewrite({"nope"}, {"nope:0"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("both fed and fetched"));
}

TEST_F(SubgraphTest, MissingFeedNodeIsNotFound) {
  BuildDefault();
  const int before = g_.num_nodes();
  absl::Status s = Rewrite({"x"}, {"e"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(),
              HasSubstr("FeedInputs: unable to find feed output x:0"));
  // Nothing was rewritten.
  EXPECT_EQ(g_.num_nodes(), before);
}

TEST_F(SubgraphTest, MissingFeedIsCheckedBeforeMissingFetchAndTarget) {
  BuildDefault();
  absl::Status s = Rewrite({"x"}, {"y"}, {"z"});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("x:0"));
}

TEST_F(SubgraphTest, FeedIndexOutOfRangeIsInvalidArgument) {
  BuildDefault();
  absl::Status s = Rewrite({"b:3"}, {"e"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("b:3"));
}

TEST_F(SubgraphTest, MissingFetchNodeIsNotFound) {
  BuildDefault();
  const int before = g_.num_nodes();
  absl::Status s = Rewrite({"b"}, {"e", "zz:1"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("zz:1"));
  EXPECT_EQ(g_.num_nodes(), before);
}

TEST_F(SubgraphTest, MissingFetchIsCheckedBeforeMissingTarget) {
  BuildDefault();
  absl::Status s = Rewrite({}, {"zz"}, {"tt"});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("zz:0"));
}

TEST_F(SubgraphTest, FetchFromNodeWithoutOutputsIsInvalidArgument) {
  BuildDefault();
  absl::Status s = Rewrite({}, {"f"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("f:0"));
  EXPECT_THAT(s.message(), HasSubstr("no output"));
}

TEST_F(SubgraphTest, FetchIndexOutOfRangeIsInvalidArgument) {
  BuildDefault();
  absl::Status s = Rewrite({}, {"c:1"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("c:1"));
}

TEST_F(SubgraphTest, FetchingAControlEndpointIsInvalidArgument) {
  BuildDefault();
  absl::Status s = Rewrite({}, {"^c"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("^c"));
}

TEST_F(SubgraphTest, BadFetchIsCheckedBeforeMissingTarget) {
  BuildDefault();
  absl::Status s = Rewrite({}, {"c:5"}, {"nope"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("c:5"));
}

TEST_F(SubgraphTest, MissingTargetIsNotFound) {
  BuildDefault();
  const int before = g_.num_nodes();
  absl::Status s = Rewrite({"b"}, {"e"}, {"f", "nope"});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("nope"));
  EXPECT_EQ(g_.num_nodes(), before);
}

TEST_F(SubgraphTest, SourceAndSinkAreNotAddressable) {
  BuildDefault();
  EXPECT_EQ(Rewrite({}, {}, {"_SOURCE"}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Rewrite({}, {"_SINK"}, {}).code(), absl::StatusCode::kNotFound);
}

// ---------------------------------------------------------------------------
// Pruning.

TEST_F(SubgraphTest, FetchKeepsExactlyItsAncestors) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({}, {"e"}, {}).ok());
  EXPECT_THAT(OpNames(), ElementsAre("_retval_e_0_0", "a", "b", "c", "d", "e"));
  // Fetch node: _Retval(e:0) on the client device, control edge to SINK.
  const Node* r = Find("_retval_e_0_0");
  EXPECT_EQ(r->type_string(), "_Retval");
  EXPECT_THAT(Inputs("_retval_e_0_0"), ElementsAre("e:0"));
  EXPECT_THAT(OutputNames("_retval_e_0_0"), ElementsAre("^_SINK"));
  EXPECT_EQ(r->assigned_device_name(), kClient);
  EXPECT_EQ(r->requested_device(), kClient);
  int64_t index = -1;
  DataType t = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(r->def(), "index", &index).ok());
  ASSERT_TRUE(GetNodeAttr(r->def(), "T", &t).ok());
  EXPECT_EQ(index, 0);
  EXPECT_EQ(t, DT_FLOAT);
  EXPECT_THAT(meta_.feed_types, ElementsAre());
  EXPECT_THAT(meta_.fetch_types, ElementsAre(DT_FLOAT));
}

TEST_F(SubgraphTest, TargetKeepsControlAncestors) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({}, {}, {"f"}).ok());
  EXPECT_THAT(OpNames(), ElementsAre("a", "b", "c", "d", "e", "f"));
  // f has no out-edges left: it gets one to SINK.
  EXPECT_THAT(OutputNames("f"), ElementsAre("^_SINK"));
  EXPECT_THAT(meta_.fetch_types, ElementsAre());
}

TEST_F(SubgraphTest, FixupConnectsRootsToSourceAndLeavesToSink) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({}, {"c"}, {"v"}).ok());
  EXPECT_THAT(OpNames(), ElementsAre("_retval_c_0_0", "a", "b", "c", "u", "v"));
  EXPECT_THAT(Inputs("a"), ElementsAre("^_SOURCE"));
  EXPECT_THAT(Inputs("u"), ElementsAre("^_SOURCE"));
  EXPECT_THAT(OutputNames("v"), ElementsAre("^_SINK"));
  for (const Node* n : g_.op_nodes()) {
    EXPECT_FALSE(n->in_edges().empty()) << n->name();
    EXPECT_FALSE(n->out_edges().empty()) << n->name();
  }
}

TEST_F(SubgraphTest, FeedRewiresConsumersToArgNode) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"b"}, {"e"}, {}).ok());
  // The Placeholder itself is no longer needed.
  EXPECT_THAT(OpNames(),
              ElementsAre("_arg_b_0_0", "_retval_e_0_0", "a", "c", "d", "e"));
  EXPECT_THAT(Inputs("c"), ElementsAre("a:0", "_arg_b_0_0:0"));
  const Node* arg = Find("_arg_b_0_0");
  EXPECT_EQ(arg->type_string(), "_Arg");
  EXPECT_THAT(Inputs("_arg_b_0_0"), ElementsAre("^_SOURCE"));
  EXPECT_EQ(arg->assigned_device_name(), kClient);
  EXPECT_EQ(arg->requested_device(), kClient);
  int64_t index = -1;
  DataType t = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(arg->def(), "index", &index).ok());
  ASSERT_TRUE(GetNodeAttr(arg->def(), "T", &t).ok());
  EXPECT_EQ(index, 0);
  EXPECT_EQ(t, DT_FLOAT);
  EXPECT_THAT(meta_.feed_types, ElementsAre(DT_FLOAT));
  EXPECT_THAT(meta_.fetch_types, ElementsAre(DT_FLOAT));
}

TEST_F(SubgraphTest, ArgAndRetvalIndicesFollowRequestOrder) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"a", "b:0"}, {"v", "e:0", "e"}, {}).ok());
  EXPECT_THAT(OpNames(), ElementsAre("_arg_a_0_0", "_arg_b_0_1",
                                     "_retval_e_0_1", "_retval_e_0_2",
                                     "_retval_v_0_0", "c", "d", "e", "u", "v"));
  int64_t index = -1;
  ASSERT_TRUE(GetNodeAttr(Find("_arg_b_0_1")->def(), "index", &index).ok());
  EXPECT_EQ(index, 1);
  ASSERT_TRUE(GetNodeAttr(Find("_retval_e_0_2")->def(), "index", &index).ok());
  EXPECT_EQ(index, 2);
  EXPECT_THAT(meta_.feed_types, ElementsAre(DT_FLOAT, DT_FLOAT));
  EXPECT_THAT(meta_.fetch_types, ElementsAre(DT_FLOAT, DT_FLOAT, DT_FLOAT));
}

TEST_F(SubgraphTest, FeedingAConstOverridesIt) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"a"}, {"d"}, {}).ok());
  // Both consumers of a (c and d) read the feed; the Const is pruned.
  EXPECT_THAT(OpNames(),
              ElementsAre("_arg_a_0_0", "_retval_d_0_0", "b", "c", "d"));
  EXPECT_THAT(Inputs("c"), ElementsAre("_arg_a_0_0:0", "b:0"));
  EXPECT_THAT(Inputs("d"), ElementsAre("c:0", "_arg_a_0_0:0"));
}

TEST_F(SubgraphTest, FeedingCutsAncestry) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"c"}, {"e"}, {}).ok());
  // b only fed c; a is still read by d.
  EXPECT_THAT(OpNames(),
              ElementsAre("_arg_c_0_0", "_retval_e_0_0", "a", "d", "e"));
  EXPECT_THAT(Inputs("d"), ElementsAre("_arg_c_0_0:0", "a:0"));
}

TEST_F(SubgraphTest, UnusedFeedDisappearsButKeepsItsType) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"u"}, {"e"}, {}).ok());
  EXPECT_EQ(Find("_arg_u_0_0"), nullptr);
  EXPECT_EQ(Find("u"), nullptr);
  EXPECT_THAT(meta_.feed_types, ElementsAre(DT_FLOAT));
}

TEST_F(SubgraphTest, FeedingAnInputOfATargetCutsIt) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"d"}, {}, {"f"}).ok());
  EXPECT_THAT(OpNames(), ElementsAre("_arg_d_0_0", "e", "f"));
}

TEST_F(SubgraphTest, FedPlaceholderControlEdgesMoveToTheFeed) {
  Build({MakePlaceholder("p"), MakeConst("k", 1),
         MakeOp("g", "Identity", {"k", "^p"})});
  ASSERT_TRUE(Rewrite({"p"}, {"g"}, {}).ok());
  EXPECT_THAT(OpNames(), ElementsAre("_arg_p_0_0", "_retval_g_0_0", "g", "k"));
  EXPECT_THAT(Inputs("g"), ElementsAre("k:0", "^_arg_p_0_0"));
}

TEST_F(SubgraphTest, FedNonPlaceholderKeepsItsControlEdges) {
  Build({MakeConst("k", 1), MakeOp("g", "Identity", {"k"}),
         MakeOp("h", "Identity", {"g", "^k"})});
  ASSERT_TRUE(Rewrite({"k"}, {"h"}, {}).ok());
  // h still waits for k itself, so k stays.
  EXPECT_THAT(OpNames(),
              ElementsAre("_arg_k_0_0", "_retval_h_0_0", "g", "h", "k"));
  EXPECT_THAT(Inputs("g"), ElementsAre("_arg_k_0_0:0"));
  EXPECT_THAT(Inputs("h"), ElementsAre("g:0", "^k"));
}

TEST_F(SubgraphTest, FeedOnlyRewiresTheFedOutput) {
  NodeDef sw = MakeOp("s", "Switch", {"x", "p"});
  Build({MakeConst("x", 1), MakeBoolConst("p"), sw,
         MakeOp("f0", "Identity", {"s:0"}), MakeOp("f1", "Identity", {"s:1"})});
  ASSERT_TRUE(Rewrite({"s:1"}, {"f0", "f1"}, {}).ok());
  EXPECT_THAT(Inputs("f0"), ElementsAre("s:0"));
  EXPECT_THAT(Inputs("f1"), ElementsAre("_arg_s_1_0:0"));
  EXPECT_NE(Find("s"), nullptr);
}

TEST_F(SubgraphTest, FetchingANonZeroOutputNamesTheIndex) {
  Build({MakeConst("x", 1), MakeBoolConst("p"),
         MakeOp("s", "Switch", {"x", "p"})});
  ASSERT_TRUE(Rewrite({}, {"s:1"}, {}).ok());
  EXPECT_THAT(Inputs("_retval_s_1_0"), ElementsAre("s:1"));
  EXPECT_THAT(meta_.fetch_types, ElementsAre(DT_FLOAT));
}

TEST_F(SubgraphTest, MetadataUsesBaseTypesOfTheEndpoints) {
  Build({MakeConst("x", 1), MakeBoolConst("p"),
         MakeOp("s", "Switch", {"x", "p"}), MakeOp("y", "Identity", {"s:0"})});
  ASSERT_TRUE(Rewrite({"p"}, {"y"}, {}).ok());
  EXPECT_THAT(meta_.feed_types, ElementsAre(DT_BOOL));
  DataType t = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(Find("_arg_p_0_0")->def(), "T", &t).ok());
  EXPECT_EQ(t, DT_BOOL);
}

// ---------------------------------------------------------------------------
// Send/recv convention.

TEST_F(SubgraphTest, SendRecvConventionUsesClientTerminatedTransfers) {
  BuildDefault();
  ASSERT_TRUE(
      Rewrite({"b"}, {"e"}, {}, /*use_function_convention=*/false).ok());
  EXPECT_THAT(OpNames(),
              ElementsAre("_recv_b_0", "_send_e_0", "a", "c", "d", "e"));
  EXPECT_THAT(Inputs("c"), ElementsAre("a:0", "_recv_b_0:0"));
  EXPECT_THAT(Inputs("_recv_b_0"), ElementsAre("^_SOURCE"));
  EXPECT_THAT(OutputNames("_send_e_0"), ElementsAre("^_SINK"));

  for (const char* name : {"_recv_b_0", "_send_e_0"}) {
    SCOPED_TRACE(name);
    const Node* n = Find(name);
    EXPECT_EQ(n->assigned_device_name(), kClient);
    EXPECT_EQ(n->requested_device(), kClient);
    std::string send_device, recv_device, tensor_name;
    int64_t incarnation = 0;
    bool client_terminated = false;
    ASSERT_TRUE(GetNodeAttr(n->def(), "send_device", &send_device).ok());
    ASSERT_TRUE(GetNodeAttr(n->def(), "recv_device", &recv_device).ok());
    ASSERT_TRUE(GetNodeAttr(n->def(), "tensor_name", &tensor_name).ok());
    ASSERT_TRUE(
        GetNodeAttr(n->def(), "send_device_incarnation", &incarnation).ok());
    ASSERT_TRUE(
        GetNodeAttr(n->def(), "client_terminated", &client_terminated).ok());
    EXPECT_EQ(send_device, kClient);
    EXPECT_EQ(recv_device, kClient);
    EXPECT_EQ(static_cast<uint64_t>(incarnation), kIncarnation);
    EXPECT_TRUE(client_terminated);
    EXPECT_EQ(tensor_name, std::string(name) == "_recv_b_0" ? "b:0" : "e:0");
  }
  DataType t = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(Find("_recv_b_0")->def(), "tensor_type", &t).ok());
  EXPECT_EQ(t, DT_FLOAT);
  ASSERT_TRUE(GetNodeAttr(Find("_send_e_0")->def(), "T", &t).ok());
  EXPECT_EQ(t, DT_FLOAT);
}

TEST_F(SubgraphTest, SendRecvConventionSharesOneSendPerEndpoint) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({}, {"e", "e:0", "d"}, {}, false).ok());
  EXPECT_THAT(OpNames(),
              ElementsAre("_send_d_0", "_send_e_0", "a", "b", "c", "d", "e"));
  EXPECT_THAT(meta_.fetch_types, ElementsAre(DT_FLOAT, DT_FLOAT, DT_FLOAT));
}

TEST_F(SubgraphTest, FunctionConventionGivesEachFetchItsOwnRetval) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({}, {"e", "e:0"}, {}).ok());
  EXPECT_NE(Find("_retval_e_0_0"), nullptr);
  EXPECT_NE(Find("_retval_e_0_1"), nullptr);
  EXPECT_THAT(OutputNames("e"),
              UnorderedElementsAre("_retval_e_0_0", "_retval_e_0_1"));
}

TEST_F(SubgraphTest, RewrittenGraphRoundTripsThroughGraphDef) {
  BuildDefault();
  ASSERT_TRUE(Rewrite({"b"}, {"e"}, {"f"}, false).ok());
  GraphDef out;
  g_.ToGraphDef(&out);
  Graph again(OpRegistry::Global());
  GraphConstructorOptions opts;
  opts.allow_internal_ops = true;
  absl::Status s = ConvertGraphDefToGraph(opts, out, &again);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(again.num_op_nodes(), g_.num_op_nodes());
}

}  // namespace
}  // namespace stepflow
