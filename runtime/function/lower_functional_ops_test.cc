#include "runtime/function/lower_functional_ops.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace {

// Library: Double(x) = x + x, IsSmall(i, acc) = i < 3, Step(i, acc) =
// (i + 1, acc * 2) with a Const in the body, and Outer(x) calling Double.
constexpr char kLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "Double"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "Outer"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def { name: "inner" op: "Double" input: "x" device: "/device:CPU:1" }
      ret { key: "y" value: "inner:y:0" }
    }
    function {
      signature {
        name: "IsSmall"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "c" type: DT_BOOL }
      }
      node_def {
        name: "three"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value { tensor { dtype: DT_INT32 int_val: 3 } }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "three:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "c" value: "less:z:0" }
    }
    function {
      signature {
        name: "Step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value { tensor { dtype: DT_INT32 int_val: 1 } }
        }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def { name: "twice" op: "Double" input: "acc" }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "acc_next" value: "twice:y:0" }
    }
    function {
      signature {
        name: "Loop"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "zero"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value { tensor { dtype: DT_INT32 int_val: 0 } }
        }
      }
      node_def {
        name: "w"
        op: "While"
        input: "zero:output:0"
        input: "x"
        attr {
          key: "T"
          value { list { type: DT_INT32 type: DT_FLOAT } }
        }
        attr {
          key: "cond"
          value { func { name: "IsSmall" } }
        }
        attr {
          key: "body"
          value { func { name: "Step" } }
        }
        attr {
          key: "_lower_using_switch_merge"
          value { b: true }
        }
      }
      ret { key: "y" value: "w:output:1" }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    device: "/device:CPU:0"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node { name: "ctl" op: "NoOp" }
)pb";

GraphDef Parse(const std::string& nodes) {
  GraphDef g;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(kLibrary + nodes, &g));
  return g;
}

// A PartitionedCall node `name` calling `f` on "x" (Tin = [tin],
// Tout = [float]), as text for Parse.
std::string CallOnX(absl::string_view name, absl::string_view f,
                    absl::string_view tin = "DT_FLOAT") {
  return absl::StrCat("node { name: '", name,
                      "' op: 'PartitionedCall' input: 'x' "
                      "attr { key: 'Tin' value { list { type: ",
                      tin,
                      " } } } "
                      "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
                      "attr { key: 'f' value { func { name: '",
                      f, "' } } } }");
}

std::map<std::string, NodeDef> ByName(const GraphDef& g) {
  std::map<std::string, NodeDef> m;
  for (const NodeDef& n : g.node()) m[n.name()] = n;
  return m;
}

// Lowers and imports; the result must be a valid graph.
GraphDef LowerAndImport(const GraphDef& in) {
  GraphDef out;
  absl::Status s = LowerFunctionalOps(in, OpRegistry::Global(), &out);
  EXPECT_TRUE(s.ok()) << s;
  Graph g;
  s = ConvertGraphDefToGraph(GraphConstructorOptions(), out, &g);
  EXPECT_TRUE(s.ok()) << s << "\n" << out.DebugString();
  return out;
}

TEST(LowerFunctionalOpsTest, GraphWithoutCallsIsUnchanged) {
  GraphDef in = Parse("");
  EXPECT_FALSE(HasFunctionalOps(in, OpRegistry::Global()));
  GraphDef out;
  ASSERT_TRUE(LowerFunctionalOps(in, OpRegistry::Global(), &out).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(out, in));
}

TEST(LowerFunctionalOpsTest, InlinesNestedCallsUnderTheCallName) {
  GraphDef in = Parse(R"pb(
    node {
      name: "call"
      op: "StatefulPartitionedCall"
      input: "x"
      input: "^ctl"
      device: "/device:CPU:2"
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "f"
        value { func { name: "Outer" } }
      }
    }
    node {
      name: "use"
      op: "Identity"
      input: "call"
      input: "^call"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  ASSERT_TRUE(HasFunctionalOps(in, OpRegistry::Global()));
  auto nodes = ByName(LowerAndImport(in));
  // The argument flows through an Identity guarded by the call's control
  // inputs; the nested call's body is under both names.
  ASSERT_TRUE(nodes.count("call/x"));
  EXPECT_EQ(nodes["call/x"].op(), "Identity");
  EXPECT_EQ(nodes["call/x"].input(0), "x");
  EXPECT_EQ(nodes["call/x"].input(1), "^ctl");
  ASSERT_TRUE(nodes.count("call/inner/add"));
  EXPECT_EQ(nodes["call/inner/add"].input(0), "call/inner/x");
  // Empty devices inherit the call's; a body node keeps its own request,
  // which its own body then inherits.
  EXPECT_EQ(nodes["call/x"].device(), "/device:CPU:2");
  EXPECT_EQ(nodes["call/inner/add"].device(), "/device:CPU:1");
  // The call's name now holds its outputs.
  EXPECT_EQ(nodes["call"].op(), "IdentityN");
  EXPECT_EQ(nodes["call"].input(0), "call/inner:0");
  EXPECT_EQ(nodes["call/inner"].input(0), "call/inner/add:0");
  EXPECT_EQ(nodes["call/input_control_node"].input(0), "^ctl");
  EXPECT_EQ(nodes["use"].input(0), "call");
}

TEST(LowerFunctionalOpsTest, DirectCallByFunctionName) {
  auto nodes = ByName(
      LowerAndImport(Parse("node { name: 'd' op: 'Double' input: 'x' }")));
  EXPECT_EQ(nodes["d"].op(), "IdentityN");
  EXPECT_EQ(nodes["d/add"].op(), "AddV2");
  EXPECT_EQ(nodes["d/x"].op(), "Identity");
}

TEST(LowerFunctionalOpsTest, IfBecomesSwitchMerge) {
  auto nodes = ByName(LowerAndImport(Parse(R"pb(
    node {
      name: "cond"
      op: "StatelessIf"
      input: "p"
      input: "x"
      attr {
        key: "Tcond"
        value { type: DT_BOOL }
      }
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "then_branch"
        value { func { name: "Double" } }
      }
      attr {
        key: "else_branch"
        value { func { name: "Outer" } }
      }
    }
  )pb")));
  EXPECT_EQ(nodes["cond/switch_pred"].op(), "Switch");
  // Not marked _lower_using_switch_merge, but Outer's body asks for a
  // device of its own, so the If is lowered anyway; cond is read as the If
  // kernel reads it.
  EXPECT_EQ(nodes["cond/switch_pred"].input(0), "cond/cond_to_bool/pred");
  EXPECT_EQ(nodes["cond/cond_to_bool/pred"].op(), "SelectV2");
  EXPECT_EQ(nodes["cond/input_0"].op(), "Switch");
  EXPECT_EQ(nodes["cond/then/x"].input(0), "cond/input_0:1");
  EXPECT_EQ(nodes["cond/then/x"].input(1), "^cond/pivot_t");
  EXPECT_EQ(nodes["cond/else/x"].input(0), "cond/input_0:0");
  EXPECT_EQ(nodes["cond/output_0"].op(), "Merge");
  EXPECT_EQ(nodes["cond/output_0"].input(0), "cond/then:0");
  EXPECT_EQ(nodes["cond/output_0"].input(1), "cond/else:0");
  EXPECT_EQ(nodes["cond"].op(), "IdentityN");
  EXPECT_TRUE(nodes.count("cond/else/inner/add"));
}

TEST(LowerFunctionalOpsTest, CaseHasOnePredicatePerBranch) {
  auto nodes = ByName(LowerAndImport(Parse(R"pb(
    node {
      name: "i"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "case"
      op: "Case"
      input: "i"
      input: "x"
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "branches"
        value {
          list {
            func { name: "Double" }
            func { name: "Outer" }
            func { name: "Double" }
          }
        }
      }
    }
  )pb")));
  EXPECT_EQ(nodes["case/pred_0"].op(), "Equal");
  EXPECT_EQ(nodes["case/pred_1"].op(), "Equal");
  EXPECT_EQ(nodes["case/pred_2"].op(), "LogicalOr");
  EXPECT_EQ(nodes["case/output_0"].input_size(), 3);
  EXPECT_EQ(nodes["case/branch_2/x"].input(0), "case/input_0_2:1");
  EXPECT_TRUE(nodes.count("case/branch_1/inner/add"));
}

TEST(LowerFunctionalOpsTest, WhileBecomesAFrame) {
  auto nodes = ByName(LowerAndImport(Parse(CallOnX("loop", "Loop"))));
  const NodeDef& enter = nodes["loop/w/enter_1"];
  EXPECT_EQ(enter.op(), "Enter");
  EXPECT_EQ(enter.attr().at("frame_name").s(), "loop/w");
  EXPECT_EQ(enter.attr().at("parallel_iterations").i(), 10);
  EXPECT_EQ(nodes["loop/w/merge_1"].input(1), "loop/w/next_iteration_1");
  EXPECT_EQ(nodes["loop/w/loop_cond"].input(0), "loop/w/cond");
  EXPECT_EQ(nodes["loop/w/exit_1"].input(0), "loop/w/switch_1:0");
  // The body's Const runs in the frame: it waits for the body's inputs.
  EXPECT_EQ(nodes["loop/w/cond/three"].input(0),
            "^loop/w/cond/input_control_node");
  EXPECT_EQ(nodes["loop/w/body/one"].input(0),
            "^loop/w/body/input_control_node");
  EXPECT_EQ(nodes["loop/w/body/i"].input(0), "loop/w/switch_0:1");
  EXPECT_TRUE(nodes.count("loop/w/body/twice/add"));
  EXPECT_EQ(nodes["loop/w"].op(), "IdentityN");
  EXPECT_EQ(nodes["loop/w"].input(1), "loop/w/exit_1");
}

// The node `name` of `g`, or an empty NodeDef.
NodeDef NodeNamed(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return n;
  }
  return NodeDef();
}

constexpr char kIfOfDoubles[] = R"pb(
  node { name: "cond" op: "If" input: "p" input: "x"
         attr {
           key: "Tcond"
           value { type: DT_BOOL }
         }
         attr {
           key: "Tin"
           value { list { type: DT_FLOAT } }
         }
         attr {
           key: "Tout"
           value { list { type: DT_FLOAT } }
         }
         attr {
           key: "then_branch"
           value { func { name: "Double" } }
         }
         attr {
           key: "else_branch"
           value { func { name: "Double" } }
         }
)pb";

TEST(LowerFunctionalOpsTest, OnlyMarkedControlFlowIsLowered) {
  GraphDef kept = LowerAndImport(Parse(absl::StrCat(kIfOfDoubles, "}")));
  EXPECT_EQ(NodeNamed(kept, "cond").op(), "If");
  EXPECT_EQ(NodeNamed(kept, "cond/switch_pred").op(), "");

  GraphDef lowered = LowerAndImport(Parse(absl::StrCat(
      kIfOfDoubles,
      "attr { key: '_lower_using_switch_merge' value { b: true } } }")));
  EXPECT_EQ(NodeNamed(lowered, "cond").op(), "IdentityN");
  EXPECT_EQ(NodeNamed(lowered, "cond/switch_pred").op(), "Switch");
  // Marked: cond is a bool already, read as it is.
  EXPECT_EQ(NodeNamed(lowered, "cond/switch_pred").input(0), "p");

  GraphDef explicit_off = LowerAndImport(Parse(absl::StrCat(
      kIfOfDoubles,
      "attr { key: '_lower_using_switch_merge' value { b: false } } }")));
  EXPECT_EQ(NodeNamed(explicit_off, "cond").op(), "If");
}

TEST(LowerFunctionalOpsTest, NoInlineCallsStayCallKernels) {
  GraphDef in = Parse(absl::StrCat(CallOnX("c", "Double"), R"pb(
    node { name: "d" op: "Double" input: "x" device: "/device:CPU:0" }
    node { name: "o" op: "Outer" input: "x" device: "/device:CPU:0" }
  )pb"));
  for (FunctionDef& f : *in.mutable_library()->mutable_function()) {
    (*f.mutable_attr())["_noinline"].set_b(true);
  }
  GraphDef out = LowerAndImport(in);
  EXPECT_EQ(NodeNamed(out, "c").op(), "PartitionedCall");
  // A function used as an op becomes the equivalent call node.
  const NodeDef d = NodeNamed(out, "d");
  EXPECT_EQ(d.op(), "StatefulPartitionedCall");
  EXPECT_EQ(d.device(), "/device:CPU:0");
  EXPECT_EQ(d.input(0), "x");
  EXPECT_EQ(d.attr().at("f").func().name(), "Double");
  EXPECT_EQ(d.attr().at("Tout").list().type(0), DT_FLOAT);
  // Outer's body asks for /device:CPU:1: inlined so the placer honours it.
  EXPECT_EQ(NodeNamed(out, "o").op(), "IdentityN");
  // Its own call of Double stays a kernel, on the device it asks for.
  EXPECT_EQ(NodeNamed(out, "o/inner").op(), "StatefulPartitionedCall");
  EXPECT_EQ(NodeNamed(out, "o/inner").device(), "/device:CPU:1");
}

TEST(LowerFunctionalOpsTest, Errors) {
  GraphDef out;
  GraphDef in = Parse(CallOnX("c", "Missing"));
  absl::Status s = LowerFunctionalOps(in, OpRegistry::Global(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("{{node c}}"), std::string::npos) << s;

  in = Parse(CallOnX("c", "Double", "DT_INT32"));
  s = LowerFunctionalOps(in, OpRegistry::Global(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("attr 'Tin'"), std::string::npos) << s;

  in = Parse("node { name: 'd' op: 'Double' input: 'x' input: 'x' }");
  s = LowerFunctionalOps(in, OpRegistry::Global(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("takes 1 arguments"), std::string::npos) << s;
}

}  // namespace
}  // namespace stepflow
