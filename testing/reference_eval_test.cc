#include "testing/reference_eval.h"

#include <gtest/gtest.h>

#include "google/protobuf/text_format.h"

#include "testing/graph_generators.h"

namespace stepflow::graph_testing {
namespace {

GraphDef Small() {
  GraphDef g;
  *g.add_node() = MakeConst("c", 2.5f);
  *g.add_node() = MakePlaceholder("p");
  *g.add_node() = MakeOp("a", "AddV2", {"c", "p:0"});
  *g.add_node() = MakeOp("m", "Mul", {"a", "a"});
  *g.add_node() = MakeOp("i", "Identity", {"c", "^p"});
  NodeDef fail = MakeOp("f", "SimFail", {"c"});
  (*fail.mutable_attr())["code"].set_i(10);  // Aborted
  *g.add_node() = fail;
  *g.add_node() = MakeOp("after", "NoOp", {"^f"});
  return g;
}

TEST(ReferenceEvalTest, ComputesInFloat) {
  ReferenceOutcome out;
  ASSERT_TRUE(
      ReferenceEvaluate(Small(), {{"p", 0.5f}}, {"m:0", "a", "c"}, {}, &out)
          .ok());
  EXPECT_TRUE(out.error_codes.empty());
  EXPECT_EQ(out.values, (std::vector<float>{9.0f, 3.0f, 2.5f}));
}

TEST(ReferenceEvalTest, UnfedPlaceholderFails) {
  ReferenceOutcome out;
  ASSERT_TRUE(ReferenceEvaluate(Small(), {}, {"m"}, {}, &out).ok());
  EXPECT_EQ(out.error_codes,
            std::set<absl::StatusCode>{absl::StatusCode::kInvalidArgument});
  // A control input from an unfed placeholder runs it too.
  ASSERT_TRUE(ReferenceEvaluate(Small(), {}, {"i"}, {}, &out).ok());
  EXPECT_EQ(out.error_codes.size(), 1u);
  // Fed: served by the feed.
  ASSERT_TRUE(
      ReferenceEvaluate(Small(), {{"p:0", 1.0f}}, {"i"}, {}, &out).ok());
  EXPECT_TRUE(out.error_codes.empty());
  EXPECT_EQ(out.values, std::vector<float>{2.5f});
}

TEST(ReferenceEvalTest, InjectedFailureThroughControlEdges) {
  ReferenceOutcome out;
  ASSERT_TRUE(ReferenceEvaluate(Small(), {}, {}, {"after"}, &out).ok());
  EXPECT_EQ(out.error_codes,
            std::set<absl::StatusCode>{absl::StatusCode::kAborted});
  // Feeding the failing node's output cuts it out of a data path.
  ASSERT_TRUE(ReferenceEvaluate(Small(), {{"f", 7.0f}}, {"c"}, {}, &out).ok());
  EXPECT_TRUE(out.error_codes.empty());
}

TEST(ReferenceEvalTest, UnknownOpsAndNamesAreErrors) {
  GraphDef g = Small();
  *g.add_node() = MakeOp("s", "Sub", {"c", "c"});
  ReferenceOutcome out;
  EXPECT_EQ(ReferenceEvaluate(g, {}, {"s"}, {}, &out).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ReferenceEvaluate(g, {}, {"nope"}, {}, &out).code(),
            absl::StatusCode::kInvalidArgument);
}

// sq(x) = x * x; twice(x) = sq(x) + sq(x) through PartitionedCall;
// cond(v, c) = c < 3; body(v, c) = (sq(v), c + 1).
constexpr char kCalls[] = R"pb(
  library {
    function {
      signature {
        name: "sq"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "out" type: DT_FLOAT }
      }
      node_def { name: "m" op: "Mul" input: "x" input: "x" }
      ret { key: "out" value: "m:z:0" }
    }
    function {
      signature {
        name: "twice"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "out" type: DT_FLOAT }
      }
      node_def { name: "a" op: "sq" input: "x" }
      node_def {
        name: "b"
        op: "PartitionedCall"
        input: "x"
        attr {
          key: "f"
          value { func { name: "sq" } }
        }
      }
      node_def { name: "s" op: "AddV2" input: "a:out:0" input: "b:output:0" }
      ret { key: "out" value: "s:z:0" }
    }
    function {
      signature {
        name: "cond"
        input_arg { name: "v" type: DT_FLOAT }
        input_arg { name: "c" type: DT_FLOAT }
        output_arg { name: "keep_going" type: DT_BOOL }
      }
      node_def {
        name: "limit"
        op: "Const"
        attr {
          key: "value"
          value { tensor { dtype: DT_FLOAT float_val: 3 } }
        }
      }
      node_def { name: "less" op: "Less" input: "c" input: "limit:output:0" }
      ret { key: "keep_going" value: "less:z:0" }
    }
    function {
      signature {
        name: "body"
        input_arg { name: "v" type: DT_FLOAT }
        input_arg { name: "c" type: DT_FLOAT }
        output_arg { name: "v_next" type: DT_FLOAT }
        output_arg { name: "c_next" type: DT_FLOAT }
      }
      node_def { name: "step" op: "sq" input: "v" }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "value"
          value { tensor { dtype: DT_FLOAT float_val: 1 } }
        }
      }
      node_def { name: "inc" op: "AddV2" input: "c" input: "one:output:0" }
      ret { key: "v_next" value: "step:out:0" }
      ret { key: "c_next" value: "inc:z:0" }
    }
  }
  node { name: "p" op: "Placeholder" }
  node {
    name: "zero"
    op: "Const"
    attr {
      key: "value"
      value { tensor { dtype: DT_FLOAT float_val: 0 } }
    }
  }
  node {
    name: "idx"
    op: "Const"
    attr {
      key: "value"
      value { tensor { dtype: DT_INT32 int_val: 7 } }
    }
  }
  node { name: "t" op: "twice" input: "p" }
  node {
    name: "if"
    op: "If"
    input: "p"
    input: "p"
    attr {
      key: "then_branch"
      value { func { name: "sq" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "twice" } }
    }
  }
  node {
    name: "case"
    op: "Case"
    input: "idx"
    input: "p"
    attr {
      key: "branches"
      value {
        list {
          func { name: "sq" }
          func { name: "twice" }
        }
      }
    }
  }
  node {
    name: "loop"
    op: "While"
    input: "p"
    input: "zero"
    attr {
      key: "cond"
      value { func { name: "cond" } }
    }
    attr {
      key: "body"
      value { func { name: "body" } }
    }
  }
)pb";

TEST(ReferenceEvalTest, InterpretsFunctionCalls) {
  GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kCalls, &g));
  ReferenceOutcome out;
  // If: cond 3 is true (sq); Case index 7 is out of range (last: twice);
  // While: three squarings, the counter ends at 3.
  ASSERT_TRUE(ReferenceEvaluate(g, {{"p", 3.0f}},
                                {"t", "if", "case:0", "loop", "loop:1"}, {},
                                &out)
                  .ok());
  EXPECT_EQ(out.values,
            (std::vector<float>{18.0f, 9.0f, 18.0f, 6561.0f, 3.0f}));
  // A zero cond takes the else branch; an unfed argument fails the step.
  ASSERT_TRUE(ReferenceEvaluate(g, {{"p", 0.0f}}, {"if"}, {}, &out).ok());
  EXPECT_EQ(out.values, (std::vector<float>{0.0f}));
  ASSERT_TRUE(ReferenceEvaluate(g, {}, {"loop"}, {}, &out).ok());
  EXPECT_EQ(out.error_codes,
            (std::set<absl::StatusCode>{absl::StatusCode::kInvalidArgument}));
}

}  // namespace
}  // namespace stepflow::graph_testing
