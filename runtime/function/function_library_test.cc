#include "runtime/function/function_library.h"

#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/function_def_validation.h"
#include "runtime/function/instantiate.h"

namespace stepflow {
namespace {

FunctionDefLibrary Library(const std::string& text) {
  FunctionDefLibrary lib;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &lib));
  return lib;
}

// f(x: T) -> y: T = x * x, with T a type parameter.
constexpr char kSquare[] = R"pb(
  function {
    signature {
      name: "SquareFn"
      input_arg { name: "x" type_attr: "T" }
      output_arg { name: "y" type_attr: "T" }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "mul"
      op: "Mul"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
    }
    ret { key: "y" value: "mul:z:0" }
  }
)pb";

TEST(FunctionLibraryTest, FindsFunctionsByName) {
  FunctionDefLibrary defs = Library(kSquare);
  FunctionLibrary lib(defs, OpRegistry::Global());
  ASSERT_NE(lib.Find("SquareFn"), nullptr);
  EXPECT_EQ(lib.Find("Cube"), nullptr);
  EXPECT_NE(lib.LookUpSignature("Mul"), nullptr);
  EXPECT_EQ(lib.LookUpSignature("SquareFn"),
            &lib.Find("SquareFn")->signature());
  EXPECT_TRUE(lib.CheckCallable("SquareFn").ok());
  EXPECT_EQ(lib.CheckCallable("Cube").code(), absl::StatusCode::kNotFound);
}

TEST(FunctionLibraryTest, InstantiationSubstitutesAttrs) {
  FunctionDefLibrary defs = Library(kSquare);
  FunctionLibrary lib(defs, OpRegistry::Global());
  CallAttrs attrs;
  attrs["T"].set_type(DT_DOUBLE);
  FunctionBody body;
  ASSERT_TRUE(InstantiateFunction(lib, "SquareFn", attrs, &body).ok());
  EXPECT_EQ(body.arg_types, DataTypeVector({DT_DOUBLE}));
  EXPECT_EQ(body.ret_types, DataTypeVector({DT_DOUBLE}));
  ASSERT_EQ(body.nodes.size(), 2u);
  EXPECT_EQ(body.nodes[0].op(), "_Arg");
  EXPECT_EQ(body.nodes[0].name(), "x");
  const NodeDef& mul = body.nodes[1];
  EXPECT_EQ(mul.attr().at("T").type(), DT_DOUBLE);
  ASSERT_EQ(mul.input_size(), 2);
  EXPECT_EQ(mul.input(0), "x");
  EXPECT_EQ(body.ret_tensors, std::vector<std::string>({"mul:0"}));

  FunctionBody missing;
  absl::Status s = InstantiateFunction(lib, "SquareFn", CallAttrs(), &missing);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(FunctionLibraryTest, ListArgumentsAndOutputRanges) {
  FunctionDefLibrary defs = Library(R"pb(
    function {
      signature {
        name: "SplitSum"
        input_arg { name: "xs" type: DT_FLOAT number_attr: "N" }
        output_arg { name: "first" type: DT_FLOAT }
        output_arg { name: "sum" type: DT_FLOAT }
        attr { name: "N" type: "int" }
      }
      node_def {
        name: "add"
        op: "AddN"
        input: "xs"
        attr {
          key: "N"
          value { placeholder: "N" }
        }
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "ids"
        op: "IdentityN"
        input: "xs:1"
        input: "add:sum:0"
        attr {
          key: "T"
          value { list { type: DT_FLOAT type: DT_FLOAT } }
        }
      }
      ret { key: "first" value: "xs:0" }
      ret { key: "sum" value: "ids:output:1" }
    }
  )pb");
  FunctionLibrary lib(defs, OpRegistry::Global());
  ASSERT_TRUE(lib.CheckCallable("SplitSum").ok());
  CallAttrs attrs;
  attrs["N"].set_i(3);
  FunctionBody body;
  absl::Status s = InstantiateFunction(lib, "SplitSum", attrs, &body);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(body.arg_nodes, std::vector<std::string>({"xs_0", "xs_1", "xs_2"}));
  EXPECT_EQ(body.ret_tensors, std::vector<std::string>({"xs_0", "ids:1"}));
  const NodeDef& add = body.nodes[3];
  EXPECT_EQ(add.input_size(), 3);
  const NodeDef& ids = body.nodes[4];
  EXPECT_EQ(ids.input(0), "xs_1");
  EXPECT_EQ(ids.input(1), "add:0");
}

TEST(FunctionLibraryTest, RefusesRecursionNamingTheChain) {
  FunctionDefLibrary defs = Library(R"pb(
    function {
      signature {
        name: "A"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def { name: "call" op: "B" input: "x" }
      ret { key: "y" value: "call:y:0" }
    }
    function {
      signature {
        name: "B"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "call"
        op: "PartitionedCall"
        input: "x"
        attr {
          key: "f"
          value { func { name: "A" } }
        }
      }
      ret { key: "y" value: "call:output:0" }
    }
    function {
      signature {
        name: "Self"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def { name: "call" op: "Self" input: "x" }
      ret { key: "y" value: "call:y:0" }
    }
  )pb");
  FunctionLibrary lib(defs, OpRegistry::Global());
  absl::Status s = lib.CheckCallable("A");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("A -> B -> A"), std::string::npos) << s;
  s = lib.CheckCallable("Self");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Self -> Self"), std::string::npos) << s;
}

TEST(FunctionLibraryTest, ValidationErrors) {
  struct Case {
    const char* text;
    absl::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {R"pb(function {
              signature {
                name: "F"
                output_arg { name: "y" type: DT_FLOAT }
              }
            })pb",
       absl::StatusCode::kInvalidArgument, "output argument 'y' has no ret"},
      {R"pb(function {
              signature {
                name: "F"
                input_arg { name: "x" type: DT_FLOAT }
              }
              node_def { name: "n" op: "NoSuchOp" input: "x" }
            })pb",
       absl::StatusCode::kNotFound, "{{node n}} uses op 'NoSuchOp'"},
      {R"pb(function {
              signature {
                name: "F"
                input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT }
              }
              ret { key: "y" value: "missing:output:0" }
            })pb",
       absl::StatusCode::kInvalidArgument, "names no argument or node"},
      {R"pb(function {
              signature {
                name: "F"
                input_arg { name: "x" type_attr: "T" }
              }
            })pb",
       absl::StatusCode::kInvalidArgument, "undeclared attr 'T'"},
      {R"pb(function {
              signature {
                name: "F"
                input_arg { name: "x" type: DT_FLOAT }
              }
              node_def {
                name: "n"
                op: "Identity"
                input: "x"
                attr {
                  key: "T"
                  value { placeholder: "U" }
                }
              }
            })pb",
       absl::StatusCode::kInvalidArgument, "placeholder '$U'"},
      {R"pb(function { signature { name: "Identity" } })pb",
       absl::StatusCode::kInvalidArgument, "a registered op"},
  };
  for (const Case& c : cases) {
    FunctionDefLibrary defs = Library(c.text);
    FunctionLibrary lib(defs, OpRegistry::Global());
    const std::string name = defs.function(0).signature().name();
    absl::Status s = lib.CheckCallable(name);
    EXPECT_EQ(s.code(), c.code) << c.text << "\n" << s;
    EXPECT_NE(s.message().find(c.message), std::string::npos)
        << c.message << " not in " << s;
  }
}

TEST(FunctionLibraryTest, ParsesReferences) {
  absl::StatusOr<FunctionRef> r = ParseFunctionRef("n:out:2");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->name, "n");
  EXPECT_EQ(r->output_arg, "out");
  EXPECT_EQ(r->index, 2);
  r = ParseFunctionRef("x:1");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->output_arg.empty());
  EXPECT_EQ(r->index, 1);
  r = ParseFunctionRef("^n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->control);
  EXPECT_FALSE(ParseFunctionRef("").ok());
  EXPECT_FALSE(ParseFunctionRef("a:b:c").ok());
  EXPECT_FALSE(ParseFunctionRef("^a:0").ok());
}

}  // namespace
}  // namespace stepflow
