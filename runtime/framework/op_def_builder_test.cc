#include <string>

#include <gtest/gtest.h>
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

OpDef Build(const OpDefBuilder& b) {
  OpDef def;
  absl::Status s = b.Finalize(&def);
  EXPECT_TRUE(s.ok()) << s;
  return def;
}

const OpDef::AttrDef* Attr(const OpDef& def, const std::string& name) {
  for (const auto& a : def.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

TEST(OpDefBuilderTest, MatMulStyle) {
  OpDef def =
      Build(OpDefBuilder("MatMul")
                .Input("a: T")
                .Input("b: T")
                .Output("product: T")
                .Attr("transpose_a: bool = false")
                .Attr("T: {half, bfloat16, float, double, int32, int64}")
                .SetIsCommutative()
                .Doc("Multiplies."));
  EXPECT_EQ(def.name(), "MatMul");
  ASSERT_EQ(def.input_arg_size(), 2);
  EXPECT_EQ(def.input_arg(0).type_attr(), "T");
  EXPECT_EQ(def.output_arg(0).name(), "product");
  EXPECT_TRUE(def.is_commutative());
  EXPECT_EQ(def.summary(), "Multiplies.");
  const OpDef::AttrDef* t = Attr(def, "T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type(), "type");
  ASSERT_EQ(t->allowed_values().list().type_size(), 6);
  EXPECT_EQ(t->allowed_values().list().type(0), DT_HALF);
  EXPECT_EQ(t->allowed_values().list().type(5), DT_INT64);
  const OpDef::AttrDef* ta = Attr(def, "transpose_a");
  EXPECT_EQ(ta->type(), "bool");
  EXPECT_TRUE(ta->has_default_value());
  EXPECT_FALSE(ta->default_value().b());
}

TEST(OpDefBuilderTest, ArgForms) {
  OpDef def = Build(OpDefBuilder("Forms")
                        .Input("ref: Ref(T)")
                        .Input("values: N * T")
                        .Input("fixed: int32")
                        .Input("many: Tlist")
                        .Input("ints: M * int64")
                        .Output("out: Ref(float)")
                        .Attr("T: type")
                        .Attr("N: int >= 2")
                        .Attr("M: int")
                        .Attr("Tlist: list(type) >= 0"));
  EXPECT_TRUE(def.input_arg(0).is_ref());
  EXPECT_EQ(def.input_arg(0).type_attr(), "T");
  EXPECT_EQ(def.input_arg(1).number_attr(), "N");
  EXPECT_EQ(def.input_arg(1).type_attr(), "T");
  EXPECT_EQ(def.input_arg(2).type(), DT_INT32);
  EXPECT_EQ(def.input_arg(3).type_list_attr(), "Tlist");
  EXPECT_EQ(def.input_arg(4).number_attr(), "M");
  EXPECT_EQ(def.input_arg(4).type(), DT_INT64);
  EXPECT_TRUE(def.output_arg(0).is_ref());
  EXPECT_EQ(def.output_arg(0).type(), DT_FLOAT);
  EXPECT_EQ(Attr(def, "N")->minimum(), 2);
  // A list-length attr without a minimum gets minimum 1.
  EXPECT_TRUE(Attr(def, "M")->has_minimum());
  EXPECT_EQ(Attr(def, "M")->minimum(), 1);
  EXPECT_TRUE(Attr(def, "Tlist")->has_minimum());
  EXPECT_EQ(Attr(def, "Tlist")->type(), "list(type)");
}

TEST(OpDefBuilderTest, NamedTypeSets) {
  OpDef def = Build(OpDefBuilder("Sets")
                        .Attr("A: numbertype")
                        .Attr("B: realnumbertype")
                        .Attr("C: list({int32, string})"));
  const auto& a = Attr(def, "A")->allowed_values().list().type();
  const auto& b = Attr(def, "B")->allowed_values().list().type();
  auto has = [](const auto& list, DataType t) {
    return std::find(list.begin(), list.end(), t) != list.end();
  };
  EXPECT_TRUE(has(a, DT_FLOAT));
  EXPECT_TRUE(has(a, DT_COMPLEX64));
  EXPECT_TRUE(has(a, DT_HALF));
  EXPECT_FALSE(has(a, DT_STRING));
  EXPECT_FALSE(has(a, DT_BOOL));
  EXPECT_TRUE(has(b, DT_INT64));
  EXPECT_FALSE(has(b, DT_COMPLEX64));
  EXPECT_EQ(Attr(def, "A")->type(), "type");
  EXPECT_EQ(Attr(def, "C")->type(), "list(type)");
  EXPECT_EQ(Attr(def, "C")->allowed_values().list().type_size(), 2);
}

TEST(OpDefBuilderTest, Defaults) {
  OpDef def =
      Build(OpDefBuilder("Defaults")
                .Attr("i: int = -3")
                .Attr("f: float = -1.5")
                .Attr("b: bool = true")
                .Attr("s: string = 'SAME'")
                .Attr("p: {'SAME', 'VALID'} = 'VALID'")
                .Attr("t: type = DT_INT32")
                .Attr("t2: type = float")
                .Attr("li: list(int) = [1, 2]")
                .Attr("le: list(int) = []")
                .Attr("ls: list(string) = ['a', \"b\"]")
                .Attr("lt: list(type) = [float, int64]")
                .Attr("unknown: shape = {unknown_rank: true}")
                .Attr("known: shape = [2, 3]")
                .Attr("partial: shape = [-1]")
                .Attr("scalar: shape = []")
                .Attr("lshape: list(shape) = [[1], [-1, 2]]")
                .Attr("tensor: tensor = { dtype: DT_FLOAT float_val: 2 }"));
  EXPECT_EQ(Attr(def, "i")->default_value().i(), -3);
  EXPECT_FLOAT_EQ(Attr(def, "f")->default_value().f(), -1.5f);
  EXPECT_TRUE(Attr(def, "b")->default_value().b());
  EXPECT_EQ(Attr(def, "s")->default_value().s(), "SAME");
  EXPECT_EQ(Attr(def, "p")->type(), "string");
  EXPECT_EQ(Attr(def, "p")->allowed_values().list().s_size(), 2);
  EXPECT_EQ(Attr(def, "p")->default_value().s(), "VALID");
  EXPECT_EQ(Attr(def, "t")->default_value().type(), DT_INT32);
  EXPECT_EQ(Attr(def, "t2")->default_value().type(), DT_FLOAT);
  EXPECT_EQ(Attr(def, "li")->default_value().list().i_size(), 2);
  EXPECT_TRUE(Attr(def, "le")->default_value().has_list());
  EXPECT_EQ(Attr(def, "le")->default_value().list().i_size(), 0);
  EXPECT_EQ(Attr(def, "ls")->default_value().list().s(1), "b");
  EXPECT_EQ(Attr(def, "lt")->default_value().list().type(1), DT_INT64);
  EXPECT_TRUE(Attr(def, "unknown")->default_value().shape().unknown_rank());
  EXPECT_EQ(Attr(def, "known")->default_value().shape().dim(1).size(), 3);
  EXPECT_EQ(Attr(def, "partial")->default_value().shape().dim(0).size(), -1);
  EXPECT_TRUE(Attr(def, "scalar")->default_value().has_shape());
  EXPECT_EQ(Attr(def, "scalar")->default_value().shape().dim_size(), 0);
  EXPECT_EQ(Attr(def, "lshape")->default_value().list().shape(1).dim_size(), 2);
  EXPECT_EQ(Attr(def, "tensor")->default_value().tensor().float_val(0), 2.0f);
}

TEST(OpDefBuilderTest, Flags) {
  OpDef def = Build(OpDefBuilder("Flags")
                        .SetIsStateful()
                        .SetIsAggregate()
                        .SetAllowsUninitializedInput());
  EXPECT_TRUE(def.is_stateful());
  EXPECT_TRUE(def.is_aggregate());
  EXPECT_TRUE(def.allows_uninitialized_input());
}

void ExpectSpecError(const OpDefBuilder& b, const std::string& substr) {
  OpDef def;
  absl::Status s = b.Finalize(&def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << substr;
  EXPECT_NE(s.message().find("'Bad'"), std::string::npos) << s;
  EXPECT_NE(s.message().find(substr), std::string::npos) << s;
}

TEST(OpDefBuilderTest, SpecErrors) {
  ExpectSpecError(OpDefBuilder("Bad").Input("x: T"), "unknown attr 'T'");
  ExpectSpecError(OpDefBuilder("Bad").Input("x T").Attr("T: type"), "x T");
  ExpectSpecError(OpDefBuilder("Bad").Input("x: Ref(T").Attr("T: type"),
                  "Ref(");
  ExpectSpecError(
      OpDefBuilder("Bad").Input("x: N * T").Attr("N: type").Attr("T: type"),
      "must be an int");
  ExpectSpecError(OpDefBuilder("Bad").Input("x: s").Attr("s: string"),
                  "cannot be used as an arg type");
  ExpectSpecError(OpDefBuilder("Bad").Output("y: float extra"), "extra");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: blob"), "unknown attr type");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: {float, nosuch}"), "nosuch");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: {}"), "empty set");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: list(int"), "list(");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: int = abc"), "bad int default");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: bool = 1"), "true or false");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: string = SAME"), "quoted");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: float >= 1"), "minimum");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: int >= 3 = 2"), "below minimum");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: {float} = int32"),
                  "not in the allowed set");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: shape = [2, x]"), "shape");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: list(int) = [1, 2"),
                  "list default");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: int").Attr("x: int"),
                  "duplicate");
  ExpectSpecError(OpDefBuilder("Bad").Input("a: float").Input("a: float"),
                  "duplicate");
  ExpectSpecError(OpDefBuilder("Bad").Attr("x: type = nosuch"), "nosuch");
  ExpectSpecError(OpDefBuilder("Bad").Attr(": int"), "attr name");
}

TEST(OpRegistryTest, RegisterLookUpList) {
  OpRegistry registry;
  OpDef def;
  ASSERT_TRUE(OpDefBuilder("Zeta").Finalize(&def).ok());
  ASSERT_TRUE(registry.Register(def).ok());
  ASSERT_TRUE(OpDefBuilder("Alpha").Finalize(&def).ok());
  ASSERT_TRUE(registry.Register(def).ok());
  EXPECT_EQ(registry.Register(def).code(), absl::StatusCode::kAlreadyExists);
  const OpDef* found = nullptr;
  ASSERT_TRUE(registry.LookUp("Alpha", &found).ok());
  EXPECT_EQ(found->name(), "Alpha");
  EXPECT_EQ(registry.LookUpOrNull("Alpha"), found);  // Stable pointer.
  EXPECT_EQ(registry.ListOps(), (std::vector<std::string>{"Alpha", "Zeta"}));

  absl::Status s = registry.LookUp("Missing", &found);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("Op type not registered 'Missing'"),
            std::string::npos)
      << s;
  s = registry.LookUp("alpha", &found);
  EXPECT_NE(s.message().find("did you mean 'Alpha'"), std::string::npos) << s;
  EXPECT_EQ(registry.LookUpOrNull("Nope"), nullptr);
}

REGISTER_OP("OpDefBuilderTestRegisteredOp")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type = DT_FLOAT");

TEST(OpRegistryTest, RegisterOpMacroFillsGlobal) {
  const OpDef* def = nullptr;
  ASSERT_TRUE(
      OpRegistry::Global()->LookUp("OpDefBuilderTestRegisteredOp", &def).ok());
  EXPECT_EQ(def->attr(0).default_value().type(), DT_FLOAT);
}

}  // namespace
}  // namespace stepflow
