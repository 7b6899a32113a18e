// InferenceContext and the common shape functions on hand-made shapes.
// Messages are the ones TensorFlow's shape functions give for the same
// inputs.
#include "runtime/framework/shape_inference.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"

namespace stepflow {
namespace shape_inference {
namespace {

// The message of `s` (owned: the status may be a temporary).
std::string Msg(const absl::Status& s) { return std::string(s.message()); }

class ContextTest : public ::testing::Test {
 protected:
  // A context for a node of `op_spec`'s two-input, one-output op whose
  // inputs have `shapes` ("?" unknown rank, "[2,?]" ...).
  InferenceContext* Context(
      const std::vector<std::string>& shapes,
      const std::vector<std::pair<std::string, bool>>& bool_attrs = {}) {
    OpDefBuilder b("Two");
    b.Input("a: float").Input("b: float").Output("z: float");
    b.Attr("transpose_a: bool = false").Attr("transpose_b: bool = false");
    op_def_.Clear();
    EXPECT_TRUE(b.Finalize(&op_def_).ok());
    node_def_.Clear();
    node_def_.set_name("n");
    node_def_.set_op("Two");
    for (const auto& [name, v] : bool_attrs) {
      (*node_def_.mutable_attr())[name].set_b(v);
    }
    std::vector<ShapeHandle> inputs;
    for (const std::string& s : shapes) inputs.push_back(Parse(s));
    context_ = std::make_unique<InferenceContext>(&node_def_, &op_def_, inputs,
                                                  1, &manager_, nullptr);
    return context_.get();
  }
  ShapeHandle Parse(const std::string& s) {
    if (s == "?") return manager_.UnknownShape();
    std::vector<DimensionHandle> dims;
    std::string inner = s.substr(1, s.size() - 2);
    size_t pos = 0;
    while (!inner.empty() && pos <= inner.size()) {
      size_t comma = inner.find(',', pos);
      if (comma == std::string::npos) comma = inner.size();
      const std::string d = inner.substr(pos, comma - pos);
      dims.push_back(manager_.MakeDim(d == "?" ? -1 : std::stoll(d)));
      pos = comma + 1;
    }
    return manager_.MakeShape(dims);
  }

  ShapeManager manager_;
  OpDef op_def_;
  NodeDef node_def_;
  std::unique_ptr<InferenceContext> context_;
};

TEST_F(ContextTest, MergeKeepsWhatEitherKnows) {
  InferenceContext* c = Context({"[2,?,?]", "[?,3,?]"});
  ShapeHandle out;
  ASSERT_TRUE(c->Merge(c->input(0), c->input(1), &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,3,?]");
  ASSERT_TRUE(c->Merge(c->input(0), c->UnknownShape(), &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  EXPECT_EQ(Msg(c->Merge(c->input(0), Parse("[2]"), &out)),
            "Shapes must be equal rank, but are 3 and 1");
  EXPECT_EQ(Msg(c->Merge(c->input(0), Parse("[4,?,?]"), &out)),
            "Dimension 0 in both shapes must be equal, but are 2 and 4. "
            "Shapes are [2,?,?] and [4,?,?].");
}

TEST_F(ContextTest, RankChecks) {
  InferenceContext* c = Context({"[2,3]", "?"});
  ShapeHandle out;
  EXPECT_EQ(Msg(c->WithRank(c->input(0), 1, &out)),
            "Shape must be rank 1 but is rank 2");
  EXPECT_EQ(Msg(c->WithRankAtLeast(c->input(0), 3, &out)),
            "Shape must be at least rank 3 but is rank 2");
  EXPECT_EQ(Msg(c->WithRankAtMost(c->input(0), 1, &out)),
            "Shape must be at most rank 1 but is rank 2");
  ASSERT_TRUE(c->WithRank(c->input(1), 3, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[?,?,?]");
}

TEST_F(ContextTest, SubshapeAndConcatenate) {
  InferenceContext* c = Context({"[1,2,3,4]", "?"});
  ShapeHandle out;
  ASSERT_TRUE(c->Subshape(c->input(0), 1, -1, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,3]");
  ASSERT_TRUE(c->Subshape(c->input(0), -1, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[4]");
  ASSERT_TRUE(c->Subshape(c->input(0), 0, 4, 2, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[1,3]");
  ASSERT_TRUE(c->Concatenate(c->input(0), c->input(1), &out).ok());
  EXPECT_EQ(c->DebugString(out), "?");
}

TEST_F(ContextTest, Broadcasting) {
  struct Case {
    std::string x, y, want;
  };
  for (const Case& k : std::vector<Case>{{"[2,1,3]", "[4,1]", "[2,4,3]"},
                                         {"[?,3]", "[3]", "[?,3]"},
                                         {"[?]", "[5]", "[5]"},
                                         {"[1]", "[?]", "[?]"},
                                         {"[2]", "?", "?"}}) {
    InferenceContext* c = Context({k.x, k.y});
    ASSERT_TRUE(BroadcastBinaryOpShapeFn(c).ok()) << k.x << " " << k.y;
    EXPECT_EQ(c->DebugString(c->output(0)), k.want) << k.x << " " << k.y;
  }
  InferenceContext* c = Context({"[2]", "[3]"});
  EXPECT_EQ(Msg(BroadcastBinaryOpShapeFn(c)),
            "Dimensions must be equal, but are 2 and 3");
  EXPECT_EQ(Msg(c->AttachContext(BroadcastBinaryOpShapeFn(c))),
            "Dimensions must be equal, but are 2 and 3 for '{{node n}} = "
            "Two[]()' with input shapes: [2], [3].");
}

TEST_F(ContextTest, MatMul) {
  InferenceContext* c = Context({"[2,3]", "[5,3]"}, {{"transpose_b", true}});
  ASSERT_TRUE(MatMulShape(c).ok());
  EXPECT_EQ(c->DebugString(c->output(0)), "[2,5]");
  c = Context({"[2,3]", "[4,5]"});
  EXPECT_EQ(Msg(MatMulShape(c)), "Dimensions must be equal, but are 3 and 4");
  c = Context({"[2]", "[4,5]"});
  EXPECT_EQ(Msg(MatMulShape(c)), "Shape must be rank 2 but is rank 1");
}

TEST_F(ContextTest, DimensionArithmetic) {
  InferenceContext* c = Context({"[6,?]", "?"});
  DimensionHandle d;
  ASSERT_TRUE(c->Divide(c->Dim(c->input(0), 0), 3, true, &d).ok());
  EXPECT_EQ(c->Value(d), 2);
  EXPECT_EQ(Msg(c->Divide(c->Dim(c->input(0), 0), 4, true, &d)),
            "Dimension size must be evenly divisible by 4 but is 6");
  ASSERT_TRUE(c->Multiply(c->Dim(c->input(0), 1), 0, &d).ok());
  EXPECT_EQ(c->Value(d), 0);
  ASSERT_TRUE(c->Add(c->Dim(c->input(0), 1), 2, &d).ok());
  EXPECT_FALSE(c->ValueKnown(d));
  EXPECT_EQ(Msg(c->Subtract(c->Dim(c->input(0), 0), 7, &d)),
            "Negative dimension size caused by subtracting 7 from 6");
}

}  // namespace
}  // namespace shape_inference
}  // namespace stepflow
