#include "runtime/framework/node_def_util.h"

#include <string>

#include <gtest/gtest.h>
#include "absl/strings/str_cat.h"
#include "runtime/framework/op.h"

namespace stepflow {
namespace {

OpDef MakeOp(const OpDefBuilder& b) {
  OpDef def;
  absl::Status s = b.Finalize(&def);
  EXPECT_TRUE(s.ok()) << s;
  return def;
}

NodeDef MakeNode(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  for (auto& in : inputs) n.add_input(in);
  return n;
}

void ExpectInvalid(const absl::Status& s, const std::string& substr) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(substr), std::string::npos) << s;
}

TEST(NodeDefUtilTest, ValidateNodeName) {
  for (const char* ok : {"a", "A1", ".x", "0", "scope/a_b-c.d", "a/b/c"}) {
    EXPECT_TRUE(ValidateNodeName(ok).ok()) << ok;
  }
  for (const char* bad : {"", "_a", "-a", "/a", "a b", "a:0", "^a", "a$"}) {
    ExpectInvalid(ValidateNodeName(bad), "invalid");
  }
}

TEST(NodeDefUtilTest, SummarizeAndFormat) {
  NodeDef n = MakeNode("add", "Add", {"a", "b:1", "^c"});
  AddNodeAttr("T", DT_FLOAT, &n);
  AddNodeAttr("alpha", 2, &n);
  n.set_device("/cpu:0");
  EXPECT_EQ(FormatNodeName("add"), "{{node add}}");
  EXPECT_EQ(SummarizeNodeDef(n),
            "{{node add}} = Add[T=DT_FLOAT, alpha=2](a, b:1, ^c) @ /cpu:0");
}

TEST(NodeDefUtilTest, AttachDefAppendsTheNodeAndKeepsTheCode) {
  const absl::Status s =
      AttachDef(absl::ResourceExhaustedError("OOM"), "scope/add");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "OOM\n\t [[{{node scope/add}}]]");
}

TEST(NodeDefUtilTest, AttachDefLeavesOkAlone) {
  EXPECT_TRUE(AttachDef(absl::OkStatus(), "add").ok());
}

TEST(NodeDefUtilTest, AttachDefOfTheNamedNodeIsANoOp) {
  const absl::Status once = AttachDef(absl::InvalidArgumentError("bad"), "a");
  EXPECT_EQ(AttachDef(once, "a"), once);
  // Also when the message named the node where it was built.
  const absl::Status built =
      absl::InternalError(absl::StrCat(FormatNodeName("a"), " failed"));
  EXPECT_EQ(AttachDef(built, "a"), built);
}

TEST(NodeDefUtilTest, AttachDefKeepsTheFirstFormattedNode) {
  // The root cause names {{node a}}; b, which passed it on, is plain context.
  const absl::Status root = AttachDef(absl::AbortedError("lost"), "a");
  const absl::Status passed = AttachDef(root, "b");
  EXPECT_EQ(passed.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(passed.message(), "lost\n\t [[{{node a}}]]\n\t [[b]]");
}

TEST(NodeDefUtilTest, AttachDefTakesANodeDef) {
  NodeDef n = MakeNode("x", "Op", {});
  EXPECT_EQ(AttachDef(absl::CancelledError("c"), n).message(),
            "c\n\t [[{{node x}}]]");
  // A name that is a prefix of the named node is another node.
  EXPECT_EQ(
      AttachDef(AttachDef(absl::CancelledError("c"), "xy"), "x").message(),
      "c\n\t [[{{node xy}}]]\n\t [[x]]");
}

TEST(NodeDefUtilTest, AddNodeAttrReplacesAnExistingValue) {
  NodeDef n = MakeNode("n", "Op", {});
  AddNodeAttr("a", std::vector<int64_t>{1, 2}, &n);
  AddNodeAttr("a", DT_INT32, &n);  // Another kind: the list is gone.
  ASSERT_EQ(n.attr().at("a").value_case(), AttrValue::kType);
  EXPECT_EQ(n.attr().at("a").type(), DT_INT32);
  // A value read from the attr being replaced, or from another one.
  AddNodeAttr("s", "first", &n);
  AddNodeAttr("s", n.attr().at("s").s() + "!", &n);
  EXPECT_EQ(n.attr().at("s").s(), "first!");
  AddNodeAttr("copy", n.attr().at("s").s(), &n);
  AddNodeAttr("s", n.attr().at("s").s(), &n);
  EXPECT_EQ(n.attr().at("s").s(), "first!");
  EXPECT_EQ(n.attr().at("copy").s(), "first!");
  EXPECT_EQ(n.attr_size(), 3);
}

TEST(NodeDefUtilTest, GettersAndSetters) {
  NodeDef n = MakeNode("n", "Op", {});
  AddNodeAttr("s", "hello", &n);
  AddNodeAttr("i", int64_t{1} << 40, &n);
  AddNodeAttr("small", 7, &n);
  AddNodeAttr("f", 1.5f, &n);
  AddNodeAttr("b", true, &n);
  AddNodeAttr("t", DT_INT64, &n);
  AddNodeAttr("shape", TensorShape({2, 3}), &n);
  AddNodeAttr("ls", std::vector<std::string>{"x", "y"}, &n);
  AddNodeAttr("li", std::vector<int64_t>{4, 5}, &n);
  AddNodeAttr("lt", std::vector<DataType>{DT_FLOAT, DT_BOOL}, &n);
  AddNodeAttr("empty", std::vector<int64_t>{}, &n);
  TensorProto tp;
  tp.set_dtype(DT_INT32);
  AddNodeAttr("tensor", tp, &n);

  std::string s;
  ASSERT_TRUE(GetNodeAttr(n, "s", &s).ok());
  EXPECT_EQ(s, "hello");
  int64_t i64;
  ASSERT_TRUE(GetNodeAttr(n, "i", &i64).ok());
  EXPECT_EQ(i64, int64_t{1} << 40);
  int32_t i32;
  ExpectInvalid(GetNodeAttr(n, "i", &i32), "int32 range");
  ASSERT_TRUE(GetNodeAttr(n, "small", &i32).ok());
  EXPECT_EQ(i32, 7);
  float f;
  ASSERT_TRUE(GetNodeAttr(n, "f", &f).ok());
  EXPECT_EQ(f, 1.5f);
  bool b;
  ASSERT_TRUE(GetNodeAttr(n, "b", &b).ok());
  EXPECT_TRUE(b);
  DataType t;
  ASSERT_TRUE(GetNodeAttr(n, "t", &t).ok());
  EXPECT_EQ(t, DT_INT64);
  TensorShape shape;
  ASSERT_TRUE(GetNodeAttr(n, "shape", &shape).ok());
  EXPECT_EQ(shape, TensorShape({2, 3}));
  PartialTensorShape pshape;
  ASSERT_TRUE(GetNodeAttr(n, "shape", &pshape).ok());
  EXPECT_EQ(pshape.DebugString(), "[2,3]");
  std::vector<std::string> ls;
  ASSERT_TRUE(GetNodeAttr(n, "ls", &ls).ok());
  EXPECT_EQ(ls, (std::vector<std::string>{"x", "y"}));
  std::vector<int32_t> li;
  ASSERT_TRUE(GetNodeAttr(n, "li", &li).ok());
  EXPECT_EQ(li, (std::vector<int32_t>{4, 5}));
  std::vector<DataType> lt;
  ASSERT_TRUE(GetNodeAttr(n, "lt", &lt).ok());
  EXPECT_EQ(lt, (std::vector<DataType>{DT_FLOAT, DT_BOOL}));
  std::vector<float> lf;
  ASSERT_TRUE(GetNodeAttr(n, "empty", &lf).ok());  // Empty fits any list.
  EXPECT_TRUE(lf.empty());
  TensorProto tp_out;
  ASSERT_TRUE(GetNodeAttr(n, "tensor", &tp_out).ok());
  EXPECT_EQ(tp_out.dtype(), DT_INT32);

  absl::Status missing = GetNodeAttr(n, "nope", &s);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("{{node n}}"), std::string::npos);
  ExpectInvalid(GetNodeAttr(n, "s", &i64), "{{node n}}");
  ExpectInvalid(GetNodeAttr(n, "li", &ls), "list(string)");
  EXPECT_TRUE(HasNodeAttr(n, "s"));
  EXPECT_FALSE(HasNodeAttr(n, "nope"));
  EXPECT_EQ(FindNodeAttr(n, "nope"), nullptr);

  AttrValue unknown_shape;
  unknown_shape.mutable_shape()->set_unknown_rank(true);
  AddNodeAttr("u", unknown_shape, &n);
  ASSERT_TRUE(GetNodeAttr(n, "u", &pshape).ok());
  EXPECT_TRUE(pshape.unknown_rank());
  ExpectInvalid(GetNodeAttr(n, "u", &shape), "'u'");
}

OpDef AddNOp() {
  return MakeOp(OpDefBuilder("AddN")
                    .Input("inputs: N * T")
                    .Output("sum: T")
                    .Attr("N: int >= 1")
                    .Attr("T: numbertype"));
}

TEST(NodeDefUtilTest, ValidateNodeDefOk) {
  OpDef op = AddNOp();
  NodeDef n = MakeNode("sum", "AddN", {"a", "b:2", "^c"});
  AddNodeAttr("N", 2, &n);
  AddNodeAttr("T", DT_FLOAT, &n);
  AddNodeAttr("_internal", 3, &n);  // Leading '_' attrs are allowed.
  EXPECT_TRUE(ValidateNodeDef(n, op).ok()) << ValidateNodeDef(n, op);
  DataTypeVector in, out;
  ASSERT_TRUE(InOutTypesForNode(n, op, &in, &out).ok());
  EXPECT_EQ(in, (DataTypeVector{DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ(out, (DataTypeVector{DT_FLOAT}));
  EXPECT_EQ(NumDataInputs(n), 2);
}

TEST(NodeDefUtilTest, ValidateNodeDefErrorsNameTheNode) {
  OpDef op = AddNOp();
  NodeDef base = MakeNode("sum", "AddN", {"a", "b"});
  AddNodeAttr("N", 2, &base);
  AddNodeAttr("T", DT_FLOAT, &base);

  NodeDef n = base;
  n.add_input("c");
  ExpectInvalid(ValidateNodeDef(n, op), "expected 2 inputs");
  EXPECT_NE(ValidateNodeDef(n, op).message().find("{{node sum}}"),
            std::string::npos);

  n = base;
  n.clear_input();
  n.add_input("^x");
  n.add_input("a");
  n.add_input("b");
  ExpectInvalid(ValidateNodeDef(n, op), "after control input");

  n = base;
  n.mutable_attr()->erase("T");
  ExpectInvalid(ValidateNodeDef(n, op), "missing attr 'T'");

  n = base;
  AddNodeAttr("T", DT_STRING, &n);
  ExpectInvalid(ValidateNodeDef(n, op), "not in the list of allowed values");

  n = base;
  AddNodeAttr("T", "float", &n);
  ExpectInvalid(ValidateNodeDef(n, op), "'T' of {{node sum}}");

  n = base;
  AddNodeAttr("N", 0, &n);
  n.clear_input();
  ExpectInvalid(ValidateNodeDef(n, op), "less than minimum");

  n = base;
  AddNodeAttr("extra", 1, &n);
  ExpectInvalid(ValidateNodeDef(n, op), "attr 'extra'");

  n = base;
  n.set_op("Other");
  ExpectInvalid(ValidateNodeDef(n, op), "does not match");

  n = base;
  AddNodeAttr("T", DT_FLOAT_REF, &n);
  ExpectInvalid(ValidateNodeDef(n, op), "invalid type");

  n = base;
  AddNodeAttr("N", int64_t{1} << 40, &n);
  ExpectInvalid(ValidateNodeDef(n, op), "invalid list length");
}

TEST(NodeDefUtilTest, TypeListAndRefsAndRanges) {
  OpDef op = MakeOp(OpDefBuilder("Mixed")
                        .Input("ref: Ref(T)")
                        .Input("list: Tlist")
                        .Input("idx: int32")
                        .Output("outs: N * T")
                        .Output("last: Tlist")
                        .Attr("T: type")
                        .Attr("N: int = 2")
                        .Attr("Tlist: list(type) >= 1"));
  NodeDef n = MakeNode("m", "Mixed", {"v", "x", "y", "z", "i"});
  AddNodeAttr("T", DT_INT32, &n);
  AddNodeAttr("Tlist", std::vector<DataType>{DT_FLOAT, DT_BOOL, DT_STRING}, &n);
  EXPECT_TRUE(ValidateNodeDef(n, op).ok()) << ValidateNodeDef(n, op);
  DataTypeVector in, out;
  ASSERT_TRUE(InOutTypesForNode(n, op, &in, &out).ok());
  EXPECT_EQ(in, (DataTypeVector{DT_INT32_REF, DT_FLOAT, DT_BOOL, DT_STRING,
                                DT_INT32}));
  EXPECT_EQ(out,
            (DataTypeVector{DT_INT32, DT_INT32, DT_FLOAT, DT_BOOL, DT_STRING}));
  NameRangeMap ins, outs;
  ASSERT_TRUE(NameRangesForNode(n, op, &ins, &outs).ok());
  EXPECT_EQ(ins["ref"], std::make_pair(0, 1));
  EXPECT_EQ(ins["list"], std::make_pair(1, 4));
  EXPECT_EQ(ins["idx"], std::make_pair(4, 5));
  EXPECT_EQ(outs["outs"], std::make_pair(0, 2));
  EXPECT_EQ(outs["last"], std::make_pair(2, 5));

  // The list's length decides the input count.
  AddNodeAttr("Tlist", std::vector<DataType>{DT_FLOAT}, &n);
  ExpectInvalid(ValidateNodeDef(n, op), "expected 3 inputs");
  AddNodeAttr("Tlist", std::vector<DataType>{}, &n);
  ExpectInvalid(ValidateNodeDef(n, op), "shorter than minimum");

  // Missing attr for type computation: NotFound naming the node.
  NodeDef bare = MakeNode("bare", "Mixed", {});
  absl::Status s = InOutTypesForNode(bare, op, &in, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("bare"), std::string::npos) << s;
}

TEST(NodeDefUtilTest, AddDefaults) {
  OpDef op = MakeOp(OpDefBuilder("D")
                        .Attr("a: int = 3")
                        .Attr("b: string = 'x'")
                        .Attr("c: type"));
  NodeDef n = MakeNode("d", "D", {});
  AddNodeAttr("a", 9, &n);
  AddDefaultsToNodeDef(op, &n);
  int64_t a;
  std::string b;
  ASSERT_TRUE(GetNodeAttr(n, "a", &a).ok());
  EXPECT_EQ(a, 9);  // Existing values are kept.
  ASSERT_TRUE(GetNodeAttr(n, "b", &b).ok());
  EXPECT_EQ(b, "x");
  EXPECT_FALSE(HasNodeAttr(n, "c"));
}

TEST(NodeDefUtilTest, StringAllowedValues) {
  OpDef op = MakeOp(OpDefBuilder("Pad").Attr("padding: {'SAME', 'VALID'}"));
  NodeDef n = MakeNode("p", "Pad", {});
  AddNodeAttr("padding", "FULL", &n);
  ExpectInvalid(ValidateNodeDef(n, op), "\"FULL\"");
  AddNodeAttr("padding", "SAME", &n);
  EXPECT_TRUE(ValidateNodeDef(n, op).ok());
}

}  // namespace
}  // namespace stepflow
