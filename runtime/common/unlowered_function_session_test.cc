// Functional ops that a session runs unlowered, through the call kernels
// and the devices' function runtimes (lower_functional_ops.h says when):
// _noinline calls (PartitionedCall and a function used as an op), If with
// bool, string and tensor conds, Case, While with a stateful body reading a
// variable, errors naming the call node, nesting limits, cancellation, and
// the same graphs lowered giving the same results.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "proto/config.pb.h"
#include "runtime/common/session.h"
#include "runtime/common/session_factory.h"
#include "runtime/env/real/real_env.h"

namespace stepflow {
namespace {

// Twice(x) = x + x (_noinline); Fourfold(x) = Twice(Twice(x)), its calls
// ops named after the function; Reshape4(x) reshapes x to [4] (fails for
// other sizes); Below(i, acc, v) = i < 5; AddVar(i, acc, v) = (i + 1,
// acc + read(v), v) reads variable v each iteration.
constexpr char kLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "Twice"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      attr {
        key: "_noinline"
        value { b: true }
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
        name: "Fourfold"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      attr {
        key: "_noinline"
        value { b: true }
      }
      node_def { name: "a" op: "Twice" input: "x" }
      node_def { name: "b" op: "Twice" input: "a:y:0" }
      ret { key: "y" value: "b:y:0" }
    }
    function {
      signature {
        name: "Reshape4"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      attr {
        key: "_noinline"
        value { b: true }
      }
      node_def {
        name: "shape"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape { dim { size: 1 } }
              int_val: 4
            }
          }
        }
      }
      node_def {
        name: "reshape"
        op: "Reshape"
        input: "x"
        input: "shape:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "reshape:output:0" }
    }
    function {
      signature {
        name: "Below"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "c" type: DT_BOOL }
      }
      node_def {
        name: "five"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value { tensor { dtype: DT_INT32 int_val: 5 } }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "five:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "c" value: "less:z:0" }
    }
    function {
      signature {
        name: "AddVar"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
        output_arg { name: "v_out" type: DT_RESOURCE }
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
      node_def {
        name: "read"
        op: "ReadVariableOp"
        input: "v"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "sum"
        op: "AddV2"
        input: "acc"
        input: "read:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "acc_next" value: "sum:z:0" }
      ret { key: "v_out" value: "v" }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
)pb";

constexpr char kFloatCall[] =
    " attr { key: 'Tin' value { list { type: DT_FLOAT } } }"
    " attr { key: 'Tout' value { list { type: DT_FLOAT } } }";

class UnloweredFunctionSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  absl::Status Create(const std::string& nodes,
                      std::unique_ptr<Session>* session,
                      const std::string& library = kLibrary) {
    GraphDef graph;
    if (!google::protobuf::TextFormat::ParseFromString(
            absl::StrCat(library, nodes), &graph)) {
      return absl::InvalidArgumentError("bad test graph");
    }
    SessionOptions opts;
    opts.env = env_->env();
    absl::Status s = NewSession(opts, session);
    if (!s.ok()) return s;
    return (*session)->Create(graph);
  }

  std::unique_ptr<Session> NewSessionWith(const std::string& nodes) {
    std::unique_ptr<Session> session;
    absl::Status s = Create(nodes, &session);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  absl::Status Run(Session* session, const Tensor& x, const std::string& fetch,
                   Tensor* out, RunMetadata* md = nullptr,
                   int64_t timeout_ms = 0) {
    RunOptions ro;
    if (md != nullptr) ro.set_trace_level(RunOptions::FULL_TRACE);
    if (timeout_ms > 0) ro.set_timeout_in_ms(timeout_ms);
    RunMetadata unused;
    std::vector<Tensor> outs;
    absl::Status s = session->Run(ro, {{"x", x}}, {fetch}, {}, &outs,
                                  md != nullptr ? md : &unused);
    if (s.ok()) *out = outs[0];
    return s;
  }

  std::unique_ptr<RealEnv> env_;
};

TEST_F(UnloweredFunctionSessionTest, NoInlineCallRunsAsAKernel) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'call' op: 'PartitionedCall' input: 'x' ", kFloatCall,
      " attr { key: 'f' value { func { name: 'Twice' } } } }"));
  RunMetadata md;
  Tensor out;
  ASSERT_TRUE(
      Run(session.get(), Tensor::Scalar<float>(3), "call:0", &out, &md).ok());
  EXPECT_EQ(out.scalar<float>(), 6.0f);
  bool saw_call = false, saw_body = false;
  for (const auto& ds : md.step_stats().dev_stats()) {
    for (const auto& ns : ds.node_stats()) {
      saw_call |= ns.node_name() == "call";
      saw_body |= ns.node_name() == "call/add";
    }
  }
  EXPECT_TRUE(saw_call && saw_body) << md.step_stats().DebugString();
}

TEST_F(UnloweredFunctionSessionTest, FunctionUsedAsAnOpAndNestedCalls) {
  auto session = NewSessionWith("node { name: 'f' op: 'Fourfold' input: 'x' }");
  RunMetadata md;
  Tensor out;
  ASSERT_TRUE(
      Run(session.get(), Tensor::Scalar<float>(1.25f), "f:0", &out, &md).ok());
  EXPECT_EQ(out.scalar<float>(), 5.0f);
  bool saw_nested = false;
  for (const auto& ds : md.step_stats().dev_stats()) {
    for (const auto& ns : ds.node_stats()) {
      saw_nested |= ns.node_name() == "f/b/add";
    }
  }
  EXPECT_TRUE(saw_nested) << md.step_stats().DebugString();
}

TEST_F(UnloweredFunctionSessionTest, BodyErrorNamesTheCallNode) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'bad_call' op: 'PartitionedCall' input: 'x' ", kFloatCall,
      " attr { key: 'f' value { func { name: 'Reshape4' } } } }"));
  Tensor out;
  absl::Status s =
      Run(session.get(), Tensor::Scalar<float>(1), "bad_call:0", &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("{{node reshape}}"), std::string::npos) << s;
  EXPECT_NE(s.message().find("[[bad_call]]"), std::string::npos) << s;
}

std::string IfNode(const std::string& cond_type, bool lower) {
  return absl::StrCat(
      "node { name: 'c' op: 'Placeholder' attr { key: 'dtype' value { type: ",
      cond_type,
      " } } }"
      "node { name: 'if' op: 'If' input: 'c' input: 'x' ",
      kFloatCall, " attr { key: 'Tcond' value { type: ", cond_type,
      " } } attr { key: 'then_branch' value { func { name: 'Twice' } } }"
      " attr { key: 'else_branch' value { func { name: 'Fourfold' } } }"
      " attr { key: '_lower_using_switch_merge' value { b: ",
      lower ? "true" : "false", " } } }");
}

TEST_F(UnloweredFunctionSessionTest, IfCondsReadAsTensorFlowReadsThem) {
  struct Case {
    std::string type;
    Tensor cond;
    float expected;
  };
  const std::vector<Case> cases = {
      {"DT_BOOL", Tensor::Scalar<bool>(true), 2},
      {"DT_BOOL", Tensor::Scalar<bool>(false), 4},
      {"DT_INT32", Tensor::Scalar<int32_t>(-3), 2},
      {"DT_FLOAT", Tensor::Scalar<float>(0), 4},
      {"DT_STRING", Tensor::Scalar<std::string>("yes"), 2},
      {"DT_STRING", Tensor::Scalar<std::string>(""), 4},
      {"DT_INT32", Tensor(DT_INT32, TensorShape({0})), 4},
      {"DT_BOOL", Tensor(DT_BOOL, TensorShape({2})), 2},
  };
  for (bool lower : {false, true}) {
    for (const Case& c : cases) {
      // Lowered, a cond must be a bool scalar (Switch's predicate), as in
      // TensorFlow.
      if (lower && (c.type == "DT_STRING" || c.cond.dims() > 0)) continue;
      auto session = NewSessionWith(IfNode(c.type, lower));
      std::vector<Tensor> out;
      absl::Status s = session->Run(
          {{"x", Tensor::Scalar<float>(1)}, {"c", c.cond}}, {"if:0"}, {}, &out);
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(out[0].scalar<float>(), c.expected)
          << c.type << " " << c.cond.DebugString() << " lowered " << lower;
    }
  }
}

TEST_F(UnloweredFunctionSessionTest, WhileWithAStatefulBodyReadingAVariable) {
  for (bool lower : {false, true}) {
    auto session = NewSessionWith(absl::StrCat(
        "node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { "
        "type: DT_FLOAT } } attr { key: 'shape' value { shape { } } } }"
        "node { name: 'init' op: 'AssignVariableOp' input: 'v' input: 'x' "
        "attr { key: 'dtype' value { type: DT_FLOAT } } }"
        "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: "
        "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
        "int_val: 0 } } } }"
        "node { name: 'acc' op: 'Const' attr { key: 'dtype' value { type: "
        "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT "
        "float_val: 0.5 } } } }"
        "node { name: 'loop' op: 'While' input: 'zero' input: 'acc' "
        "input: 'v' attr { key: 'T' value { list { type: DT_INT32 type: "
        "DT_FLOAT type: DT_RESOURCE } } }"
        " attr { key: 'cond' value { func { name: 'Below' } } }"
        " attr { key: 'body' value { func { name: 'AddVar' } } }"
        " attr { key: '_lower_using_switch_merge' value { b: ",
        lower ? "true" : "false", " } } }"));
    std::vector<Tensor> out;
    ASSERT_TRUE(
        session->Run({{"x", Tensor::Scalar<float>(2)}}, {}, {"init"}, &out)
            .ok());
    absl::Status s = session->Run({}, {"loop:0", "loop:1"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<int32_t>(), 5);
    EXPECT_EQ(out[1].scalar<float>(), 10.5f) << "lowered " << lower;
  }
}

TEST_F(UnloweredFunctionSessionTest, CaseRunsUnlowered) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'i' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_INT32 } } }"
      "node { name: 'case' op: 'Case' input: 'i' input: 'x' ",
      kFloatCall,
      " attr { key: 'branches' value { list { func { name: 'Twice' } "
      "func { name: 'Fourfold' } } } } }"));
  const int indices[] = {0, 1, 9, -4};
  const float expected[] = {6, 12, 12, 12};
  for (int k = 0; k < 4; ++k) {
    std::vector<Tensor> out;
    absl::Status s = session->Run({{"x", Tensor::Scalar<float>(3)},
                                   {"i", Tensor::Scalar<int32_t>(indices[k])}},
                                  {"case:0"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<float>(), expected[k]);
  }
}

TEST_F(UnloweredFunctionSessionTest, AnEndlessLoopIsCancelledByTheTimeout) {
  // Below never turns false when the body does not advance i.
  std::string library = kLibrary;
  library.replace(library.find("ret { key: \"i_next\" value: \"inc:z:0\" }"),
                  strlen("ret { key: \"i_next\" value: \"inc:z:0\" }"),
                  "ret { key: \"i_next\" value: \"i\" }");
  std::unique_ptr<Session> session;
  absl::Status s = Create(
      "node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { "
      "type: DT_FLOAT } } attr { key: 'shape' value { shape { } } } }"
      "node { name: 'init' op: 'AssignVariableOp' input: 'v' input: 'x' "
      "attr { key: 'dtype' value { type: DT_FLOAT } } }"
      "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "int_val: 0 } } } }"
      "node { name: 'loop' op: 'While' input: 'zero' input: 'x' "
      "input: 'v' attr { key: 'T' value { list { type: DT_INT32 type: "
      "DT_FLOAT type: DT_RESOURCE } } }"
      " attr { key: 'cond' value { func { name: 'Below' } } }"
      " attr { key: 'body' value { func { name: 'AddVar' } } } }",
      &session, library);
  ASSERT_TRUE(s.ok()) << s;
  Tensor out;
  std::vector<Tensor> outs;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {}, {"init"}, &outs)
          .ok());
  s = Run(session.get(), Tensor::Scalar<float>(1), "loop:1", &out, nullptr,
          /*timeout_ms=*/100);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST_F(UnloweredFunctionSessionTest, KernelErrorsNameTheNode) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { "
      "type: DT_FLOAT } } attr { key: 'shape' value { shape { } } } }"
      "node { name: 'init' op: 'AssignVariableOp' input: 'v' input: 'x' "
      "attr { key: 'dtype' value { type: DT_FLOAT } } }"
      "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "int_val: 0 } } } }"
      // cond returns three tensors.
      "node { name: 'bad_loop' op: 'While' input: 'zero' input: 'x' "
      "input: 'v' attr { key: 'T' value { list { type: DT_INT32 type: "
      "DT_FLOAT type: DT_RESOURCE } } }"
      " attr { key: 'cond' value { func { name: 'AddVar' } } }"
      " attr { key: 'body' value { func { name: 'AddVar' } } } }"
      // A vector branch_index.
      "node { name: 'idx' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }"
      "node { name: 'bad_case' op: 'Case' input: 'idx' input: 'x' ",
      kFloatCall,
      " attr { key: 'branches' value { list { func { name: 'Twice' } } } } }"
      // Tout disagrees with the branches' results.
      "node { name: 't' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_BOOL } } attr { key: 'value' value { tensor { dtype: DT_BOOL "
      "bool_val: true } } } }"
      "node { name: 'bad_if' op: 'If' input: 't' input: 'x' "
      " attr { key: 'Tin' value { list { type: DT_FLOAT } } }"
      " attr { key: 'Tout' value { list { type: DT_INT32 } } }"
      " attr { key: 'Tcond' value { type: DT_BOOL } }"
      " attr { key: 'then_branch' value { func { name: 'Twice' } } }"
      " attr { key: 'else_branch' value { func { name: 'Twice' } } } }"));
  std::vector<Tensor> unused;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {}, {"init"}, &unused)
          .ok());
  for (const char* node : {"bad_loop", "bad_case", "bad_if"}) {
    Tensor out;
    absl::Status s = Run(session.get(), Tensor::Scalar<float>(1),
                         absl::StrCat(node, ":0"), &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(absl::StrCat("{{node ", node, "}}")),
              std::string::npos)
        << s;
  }
}

TEST_F(UnloweredFunctionSessionTest, TooDeepNestingIsRefused) {
  // F0 calls F1 ... calls F120, each _noinline.
  std::string library = "library {";
  const int kDepth = 120;
  for (int i = 0; i <= kDepth; ++i) {
    absl::StrAppend(
        &library, "function { signature { name: 'F", i,
        "' input_arg { name: 'x' type: DT_FLOAT } output_arg { name: 'y' "
        "type: DT_FLOAT } } attr { key: '_noinline' value { b: true } } ");
    if (i < kDepth) {
      absl::StrAppend(&library, "node_def { name: 'n' op: 'F", i + 1,
                      "' input: 'x' } ret { key: 'y' value: 'n:y:0' } }");
    } else {
      absl::StrAppend(&library, "ret { key: 'y' value: 'x' } }");
    }
  }
  absl::StrAppend(&library,
                  "} node { name: 'x' op: 'Placeholder' attr { key: 'dtype' "
                  "value { type: DT_FLOAT } } }");
  std::unique_ptr<Session> session;
  absl::Status s =
      Create("node { name: 'deep' op: 'F0' input: 'x' }", &session, library);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("nest deeper"), std::string::npos) << s;
}

}  // namespace
}  // namespace stepflow
