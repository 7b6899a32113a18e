// ShapeRefiner over the real op registrations, and the importer refusing
// inconsistent shapes. Expected shapes and messages are TensorFlow 2.21's
// for the same GraphDefs (the wide comparison is testing/tf_shapes).
#include "runtime/graph/shape_refiner.h"

#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "runtime/framework/op.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace {

GraphDef Parse(const std::string& text) {
  GraphDef gdef;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &gdef));
  return gdef;
}

constexpr char kFloatPlaceholder[] = R"(
  node { name: "%s" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { %s } } } })";

std::string Placeholder(const std::string& name, const std::string& dims) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), kFloatPlaceholder, name.c_str(),
                dims.c_str());
  return buf;
}

std::string IntConst(const std::string& name, const std::string& values,
                     int n) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
         "attr { key: 'value' value { tensor { dtype: DT_INT32 "
         "tensor_shape { dim { size: " +
         std::to_string(n) + " } } " + values + " } } } }";
}

// Imports `gdef` without checks and returns each named output's shape.
class RefinerTest : public ::testing::Test {
 protected:
  absl::Status Import(const GraphDef& gdef) {
    GraphConstructorOptions opts;
    opts.infer_shapes = false;
    absl::Status s = ConvertGraphDefToGraph(opts, gdef, &graph_);
    if (!s.ok()) return s;
    return refiner_.AddNodes(graph_.op_nodes());
  }
  std::string ShapeOf(const std::string& name, int index = 0) {
    const Node* n = graph_.FindNodeByName(name);
    EXPECT_NE(n, nullptr) << name;
    return refiner_.DebugString(refiner_.OutputShape(n, index));
  }

  Graph graph_;
  ShapeRefiner refiner_;
};

TEST_F(RefinerTest, BroadcastsAndMatMul) {
  ASSERT_TRUE(
      Import(Parse(Placeholder("a", "dim { size: -1 } dim { size: 3 }") +
                   Placeholder("b", "dim { size: 3 } dim { size: 5 }") +
                   Placeholder("c", "dim { size: 5 }") + R"(
    node { name: "m" op: "MatMul" input: "a" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "add" op: "AddV2" input: "m" input: "c"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "s" op: "Shape" input: "add"
           attr { key: "T" value { type: DT_FLOAT } } })"))
          .ok());
  EXPECT_EQ(ShapeOf("m"), "[?,5]");
  EXPECT_EQ(ShapeOf("add"), "[?,5]");
  EXPECT_EQ(ShapeOf("s"), "[2]");
}

TEST_F(RefinerTest, FoldedBinaryOfAnEmptyAndAOneElementTensorIsEmpty) {
  // Axes = [] + [1] broadcast: empty (an Einsum gradient builds such sums);
  // reducing over no axes keeps the shape.
  ASSERT_TRUE(
      Import(Parse(Placeholder("x", "dim { size: 2 } dim { size: 3 }") +
                   IntConst("e", "", 0) + IntConst("one", "int_val: 1", 1) +
                   R"(
    node { name: "axes" op: "AddV2" input: "e" input: "one"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "sum" op: "Sum" input: "x" input: "axes"
           attr { key: "T" value { type: DT_FLOAT } } })"))
          .ok());
  EXPECT_EQ(ShapeOf("axes"), "[0]");
  EXPECT_EQ(ShapeOf("sum"), "[2,3]");
}

TEST_F(RefinerTest, ReshapeReadsConstantsAndInfersTheMinusOne) {
  ASSERT_TRUE(Import(Parse(Placeholder("x", "dim { size: 4 } dim { size: 6 }") +
                           IntConst("target", "int_val: 3 int_val: -1", 2) + R"(
    node { name: "r" op: "Reshape" input: "x" input: "target"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tshape" value { type: DT_INT32 } } }
    node { name: "shape_x" op: "Shape" input: "x"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "r2" op: "Reshape" input: "r" input: "shape_x"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tshape" value { type: DT_INT32 } } })"))
                  .ok());
  EXPECT_EQ(ShapeOf("r"), "[3,8]");
  // The target is the Shape of a fully known input.
  EXPECT_EQ(ShapeOf("r2"), "[4,6]");
}

// An int32 constant of shape `dims` ("" scalar, "dim { size: 2 } ...").
std::string IntTensor(const std::string& name, const std::string& dims,
                      const std::string& values) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
         "attr { key: 'value' value { tensor { dtype: DT_INT32 "
         "tensor_shape { " +
         dims + " } " + values + " } } } }";
}

TEST_F(RefinerTest, PermutationFoldedThroughFloorModAndListDiff) {
  // Prod's gradient builds its permutation this way: the reduced axes
  // (mod the rank) first, then the others (ListDiff of a range).
  ASSERT_TRUE(
      Import(Parse(Placeholder(
                       "x", "dim { size: 2 } dim { size: 3 } dim { size: 4 }") +
                   IntConst("axes", "int_val: -2", 1) +
                   IntConst("rank", "int_val: 3", 1) +
                   IntConst("all", "int_val: 0 int_val: 1 int_val: 2", 3) +
                   IntTensor("zero", "", "int_val: 0") + R"(
    node { name: "mod" op: "FloorMod" input: "axes" input: "rank"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "rest" op: "ListDiff" input: "all" input: "mod"
           attr { key: "T" value { type: DT_INT32 } }
           attr { key: "out_idx" value { type: DT_INT32 } } }
    node { name: "perm" op: "ConcatV2" input: "mod" input: "rest"
           input: "zero"
           attr { key: "N" value { i: 2 } }
           attr { key: "T" value { type: DT_INT32 } }
           attr { key: "Tidx" value { type: DT_INT32 } } }
    node { name: "t" op: "Transpose" input: "x" input: "perm"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tperm" value { type: DT_INT32 } } })"))
          .ok());
  EXPECT_EQ(ShapeOf("rest", 0), "[?]");
  EXPECT_EQ(ShapeOf("t"), "[3,2,4]");
}

TEST_F(RefinerTest, PaddingsFoldedByAConcatAlongColumns) {
  // Slice's gradient concatenates [rank, 1] columns into its paddings.
  ASSERT_TRUE(
      Import(Parse(Placeholder("x", "dim { size: 3 } dim { size: 4 }") +
                   IntTensor("before", "dim { size: 2 } dim { size: 1 }",
                             "int_val: 1 int_val: 0") +
                   IntTensor("after", "dim { size: 2 } dim { size: 1 }",
                             "int_val: 0 int_val: 2") +
                   IntTensor("one", "", "int_val: 1") + R"(
    node { name: "paddings" op: "ConcatV2" input: "before" input: "after"
           input: "one"
           attr { key: "N" value { i: 2 } }
           attr { key: "T" value { type: DT_INT32 } }
           attr { key: "Tidx" value { type: DT_INT32 } } }
    node { name: "pad" op: "Pad" input: "x" input: "paddings"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tpaddings" value { type: DT_INT32 } } })"))
          .ok());
  EXPECT_EQ(ShapeOf("paddings"), "[2,2]");
  EXPECT_EQ(ShapeOf("pad"), "[4,6]");
}

TEST_F(RefinerTest, Conv3DTakesTheRowsDilationForColumnsAsTensorFlowDoes) {
  // dilations [1, 1, 2, 3, 1]: TensorFlow 2.21 dilates the rows by 3 and
  // the columns by 2 (9 - 4 + 1 = 6 rows, 9 - 3 + 1 = 7 columns).
  ASSERT_TRUE(
      Import(
          Parse(Placeholder("x",
                            "dim { size: 1 } dim { size: 9 } dim { size: 9 } "
                            "dim { size: 9 } dim { size: 1 }") +
                Placeholder("f",
                            "dim { size: 2 } dim { size: 2 } dim { size: 2 } "
                            "dim { size: 1 } dim { size: 1 }") +
                R"(
    node { name: "conv" op: "Conv3D" input: "x" input: "f"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "padding" value { s: "VALID" } }
           attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 i: 1 } } }
           attr { key: "dilations"
                  value { list { i: 1 i: 1 i: 2 i: 3 i: 1 } } } })"))
          .ok());
  EXPECT_EQ(ShapeOf("conv"), "[1,8,6,7,1]");
}

// Two placeholders and an Einsum of them with `equation`.
std::string EinsumGraph(const std::string& a, const std::string& b,
                        const std::string& equation) {
  return Placeholder("a", a) + Placeholder("b", b) +
         "node { name: 'e' op: 'Einsum' input: 'a' input: 'b' "
         "attr { key: 'N' value { i: 2 } } "
         "attr { key: 'T' value { type: DT_FLOAT } } "
         "attr { key: 'equation' value { s: '" +
         equation + "' } } }";
}

TEST_F(RefinerTest, EinsumBroadcastsTheEllipsisDimensions) {
  ASSERT_TRUE(Import(Parse(EinsumGraph(
                         "dim { size: 2 } dim { size: 1 } dim { size: 3 } "
                         "dim { size: 4 }",
                         "dim { size: 5 } dim { size: 4 } dim { size: 6 }",
                         "...ij,...jk->...ik")))
                  .ok());
  EXPECT_EQ(ShapeOf("e"), "[2,5,3,6]");
}

TEST_F(RefinerTest, EinsumRefusesBroadcastDimensionsTheOutputDrops) {
  absl::Status s = Import(
      Parse(EinsumGraph("dim { size: 2 } dim { size: 3 } dim { size: 4 }",
                        "dim { size: 4 } dim { size: 6 }", "...ij,jk->ik")));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // TensorFlow 2.21's message, up to the node it names.
  EXPECT_EQ(std::string(s.message()).substr(0, 176),
            "Shape must be at most rank 0 but is rank 1\n\t for einsum "
            "equation '...ij,jk->ik' without ellipsis (...) in the output "
            "subscripts where input(s) have non-empty broadcasting shape");
}

TEST_F(RefinerTest, LoopMergeSeesTheBackEdgeAsUnknown) {
  ASSERT_TRUE(Import(Parse(Placeholder("x", "dim { size: 2 }") + R"(
    node { name: "enter" op: "Enter" input: "x"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "frame_name" value { s: "loop" } } }
    node { name: "merge" op: "Merge" input: "enter" input: "next"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "N" value { i: 2 } } }
    node { name: "next" op: "NextIteration" input: "merge"
           attr { key: "T" value { type: DT_FLOAT } } })"))
                  .ok());
  // Enter is unknown unless is_constant, as in TensorFlow.
  EXPECT_EQ(ShapeOf("enter"), "?");
  EXPECT_EQ(ShapeOf("merge"), "?");
  EXPECT_EQ(ShapeOf("merge", 1), "[]");
  EXPECT_EQ(ShapeOf("next"), "?");
}

// An op registered without a shape function (TensorFlow's UnknownShape
// stands in for such ops).
REGISTER_OP("RefinerTestNoShapeFn")
    .Input("x: float")
    .Output("y: float")
    .Output("z: float");

TEST_F(RefinerTest, OpsWithoutAShapeFunctionGiveUnknownShapes) {
  ASSERT_TRUE(Import(Parse(Placeholder("x", "dim { size: 2 }") + R"(
    node { name: "u" op: "RefinerTestNoShapeFn" input: "x" })"))
                  .ok());
  EXPECT_EQ(ShapeOf("u", 0), "?");
  EXPECT_EQ(ShapeOf("u", 1), "?");
}

TEST_F(RefinerTest, SetShapeMergesAndRefusesConflicts) {
  ASSERT_TRUE(
      Import(Parse(Placeholder("x", "dim { size: -1 } dim { size: 3 }"))).ok());
  const Node* x = graph_.FindNodeByName("x");
  shape_inference::ShapeHandle s;
  TensorShapeProto proto;
  proto.add_dim()->set_size(7);
  proto.add_dim()->set_size(-1);
  ASSERT_TRUE(refiner_.MakeShapeFromProto(proto, &s).ok());
  ASSERT_TRUE(refiner_.SetShape(x, 0, s).ok());
  EXPECT_EQ(ShapeOf("x"), "[7,3]");
  proto.mutable_dim(1)->set_size(4);
  ASSERT_TRUE(refiner_.MakeShapeFromProto(proto, &s).ok());
  absl::Status st = refiner_.SetShape(x, 0, s);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "Dimension 1 in both shapes must be equal, but are 3 and 4. "
            "Shapes are [7,3] and [7,4].");
}

// TensorFlow's importer refuses this GraphDef with exactly this message.
TEST(ImportShapesTest, InconsistentShapesFailTheImportNamingTheNode) {
  GraphDef gdef = Parse(Placeholder("a", "dim { size: 2 }") +
                        Placeholder("b", "dim { size: 3 }") + R"(
    node { name: "add" op: "Add" input: "a" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } })");
  Graph g;
  absl::Status s = ConvertGraphDefToGraph(GraphConstructorOptions(), gdef, &g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Dimensions must be equal, but are 2 and 3 for '{{node add}} = "
            "Add[T=DT_FLOAT](a, b)' with input shapes: [2], [3].");
  EXPECT_EQ(g.num_op_nodes(), 0);  // Unchanged.

  // Into a graph that already has nodes: the graph and refiner keep only
  // what they had.
  Graph h;
  ShapeRefiner refiner;
  GraphDef first = Parse(Placeholder("a", "dim { size: 2 }"));
  ASSERT_TRUE(
      ImportGraphDef(GraphConstructorOptions(), first, &h, &refiner).ok());
  GraphDef second = Parse(Placeholder("b", "dim { size: 3 }") + R"(
    node { name: "add" op: "Add" input: "a" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } })");
  s = ImportGraphDef(GraphConstructorOptions(), second, &h, &refiner);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(h.num_op_nodes(), 1);
  EXPECT_EQ(refiner.DebugString(refiner.OutputShape(h.FindNodeByName("a"), 0)),
            "[2]");
}

TEST(ImportShapesTest, ContextAddedByTheShapeFunctionComesFirst) {
  GraphDef gdef = Parse(Placeholder("a", "dim { size: 7 } dim { size: 3 }") +
                        Placeholder("b", "dim { size: 7 } dim { size: 4 }") +
                        R"(
    node { name: "p" op: "Pack" input: "a" input: "b"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "N" value { i: 2 } } })");
  Graph g;
  absl::Status s = ConvertGraphDefToGraph(GraphConstructorOptions(), gdef, &g);
  EXPECT_EQ(s.message(),
            "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes "
            "are [7,3] and [7,4].\n\tFrom merging shape 0 with other shapes. "
            "for '{{node p}} = Pack[N=2, T=DT_FLOAT, axis=0](a, b)' with "
            "input shapes: [7,3], [7,4].");
}

TEST(ImportShapesTest, ShapeInferenceCanBeTurnedOff) {
  GraphDef gdef = Parse(Placeholder("a", "dim { size: 2 }") +
                        Placeholder("b", "dim { size: 3 }") + R"(
    node { name: "add" op: "Add" input: "a" input: "b"
           attr { key: "T" value { type: DT_FLOAT } } })");
  Graph g;
  GraphConstructorOptions opts;
  opts.infer_shapes = false;
  EXPECT_TRUE(ConvertGraphDefToGraph(opts, gdef, &g).ok());
}

}  // namespace
}  // namespace stepflow
