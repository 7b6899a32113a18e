#include "testing/reference_eval.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace stepflow::graph_testing
