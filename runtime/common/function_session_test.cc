// Graphs that call library functions, run through DirectSession: calls
// (PartitionedCall, StatefulPartitionedCall with a resource variable),
// If, Case (with the last branch as default) and While, lowered before
// placement. Step stats show function bodies under the call's name.
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

// SquareFn(x) = x * x; Negate(x) = -x; AddOne(x) = x + 1;
// Bump(v: resource, d) adds d to variable v (control output "assign").
// Less10(i, acc) = i < 10; Accumulate(i, acc) = (i + 1, acc + i).
constexpr char kLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "SquareFn"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "mul"
        op: "Mul"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "mul:z:0" }
    }
    function {
      signature {
        name: "Negate"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "neg"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "neg:y:0" }
    }
    function {
      signature {
        name: "AddOne"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "value"
          value { tensor { dtype: DT_FLOAT float_val: 1 } }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "Bump"
        input_arg { name: "v" type: DT_RESOURCE }
        input_arg { name: "d" type: DT_FLOAT }
        control_output: "assign"
      }
      node_def {
        name: "assign_add"
        op: "AssignAddVariableOp"
        input: "v"
        input: "d"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      control_ret { key: "assign" value: "assign_add" }
    }
    function {
      signature {
        name: "Less10"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_INT32 }
        output_arg { name: "c" type: DT_BOOL }
      }
      node_def {
        name: "ten"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value { tensor { dtype: DT_INT32 int_val: 10 } }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "ten:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "c" value: "less:z:0" }
    }
    function {
      signature {
        name: "Accumulate"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_INT32 }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_INT32 }
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
        name: "sum"
        op: "AddV2"
        input: "acc"
        input: "i"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "acc_next" value: "sum:z:0" }
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

constexpr char kFloatCall[] = R"pb(
  attr {
    key: "Tin"
    value { list { type: DT_FLOAT } }
  }
  attr {
    key: "Tout"
    value { list { type: DT_FLOAT } }
  }
)pb";

class FunctionSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  std::unique_ptr<Session> NewSessionWith(const std::string& nodes) {
    GraphDef graph;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        absl::StrCat(kLibrary, nodes), &graph));
    SessionOptions opts;
    opts.env = env_->env();
    std::unique_ptr<Session> session;
    EXPECT_TRUE(NewSession(opts, &session).ok());
    absl::Status s = session->Create(graph);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  float RunFloat(Session* session, float x, const std::string& fetch,
                 RunMetadata* md = nullptr) {
    RunOptions ro;
    if (md != nullptr) ro.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata unused;
    std::vector<Tensor> out;
    absl::Status s = session->Run(ro, {{"x", Tensor::Scalar<float>(x)}},
                                  {fetch}, {}, &out, md ? md : &unused);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? out[0].scalar<float>() : -1e30f;
  }

  std::unique_ptr<RealEnv> env_;
};

TEST_F(FunctionSessionTest, CallShowsBodyUnderItsNameInStepStats) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'call' op: 'PartitionedCall' input: 'x' ", kFloatCall,
      " attr { key: 'f' value { func { name: 'SquareFn' } } } }"));
  RunMetadata md;
  EXPECT_EQ(RunFloat(session.get(), 3, "call:0", &md), 9.0f);
  bool saw_body = false;
  for (const auto& ds : md.step_stats().dev_stats()) {
    for (const auto& ns : ds.node_stats()) {
      saw_body |= ns.node_name() == "call/mul";
    }
  }
  EXPECT_TRUE(saw_body) << md.step_stats().DebugString();
}

TEST_F(FunctionSessionTest, DirectCallAndNestedCall) {
  auto session = NewSessionWith(
      "node { name: 'sq' op: 'SquareFn' input: 'x' }"
      "node { name: 'one_more' op: 'AddOne' input: 'sq' }");
  EXPECT_EQ(RunFloat(session.get(), 4, "one_more:0"), 17.0f);
}

TEST_F(FunctionSessionTest, IfRunsOnlyTheTakenBranch) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "float_val: 0 } } } }"
      "node { name: 'p' op: 'Greater' input: 'x' input: 'zero' attr { key: "
      "'T' value { type: DT_FLOAT } } }"
      "node { name: 'cond' op: 'If' input: 'p' input: 'x' ",
      kFloatCall,
      " attr { key: 'Tcond' value { type: DT_BOOL } }"
      " attr { key: 'then_branch' value { func { name: 'SquareFn' } } }"
      " attr { key: 'else_branch' value { func { name: 'AddOne' } } } }"));
  EXPECT_EQ(RunFloat(session.get(), 3, "cond:0"), 9.0f);
  EXPECT_EQ(RunFloat(session.get(), -3, "cond:0"), -2.0f);
}

TEST_F(FunctionSessionTest, CaseOutOfRangeRunsTheLastBranch) {
  auto session = NewSessionWith(absl::StrCat(
      "node { name: 'i' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_INT32 } } }"
      "node { name: 'case' op: 'StatelessCase' input: 'i' input: 'x' ",
      kFloatCall,
      " attr { key: 'branches' value { list { func { name: 'SquareFn' } "
      "func { name: 'Negate' } func { name: 'AddOne' } } } } }"));
  const float expected[] = {5, 16, -4, 5, 5};
  const int indices[] = {-1, 0, 1, 2, 7};
  for (int k = 0; k < 5; ++k) {
    std::vector<Tensor> out;
    absl::Status s = session->Run({{"x", Tensor::Scalar<float>(4)},
                                   {"i", Tensor::Scalar<int32_t>(indices[k])}},
                                  {"case:0"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].scalar<float>(), expected[k]) << "index " << indices[k];
  }
}

TEST_F(FunctionSessionTest, WhileLoopsWithSeveralVariables) {
  auto session = NewSessionWith(
      "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "int_val: 0 } } } }"
      "node { name: 'loop' op: 'While' input: 'zero' input: 'zero' "
      " attr { key: 'T' value { list { type: DT_INT32 type: DT_INT32 } } }"
      " attr { key: 'cond' value { func { name: 'Less10' } } }"
      " attr { key: 'body' value { func { name: 'Accumulate' } } }"
      " attr { key: 'parallel_iterations' value { i: 1 } } }");
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"loop:0", "loop:1"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>(), 10);
  EXPECT_EQ(out[1].scalar<int32_t>(), 45);
}

TEST_F(FunctionSessionTest, StatefulCallUpdatesTheSessionsVariable) {
  auto session = NewSessionWith(
      "node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape { } } } }"
      "node { name: 'init' op: 'AssignVariableOp' input: 'v' input: 'x' "
      "attr { key: 'dtype' value { type: DT_FLOAT } } }"
      "node { name: 'bump' op: 'StatefulPartitionedCall' input: 'v' "
      "input: 'x' attr { key: 'Tin' value { list { type: DT_RESOURCE type: "
      "DT_FLOAT } } } attr { key: 'Tout' value { list { } } }"
      " attr { key: 'f' value { func { name: 'Bump' } } } }"
      "node { name: 'read' op: 'ReadVariableOp' input: 'v' input: '^bump' "
      "attr { key: 'dtype' value { type: DT_FLOAT } } }");
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(2)}}, {}, {"init"}, &out).ok());
  ASSERT_TRUE(
      session->Run({{"x", Tensor::Scalar<float>(3)}}, {}, {"bump"}, &out).ok());
  absl::Status s =
      session->Run({{"x", Tensor::Scalar<float>(1)}}, {"read:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // 2, +3, then +1 before the read (it waits for the call's control_ret).
  EXPECT_EQ(out[0].scalar<float>(), 6.0f);
}

TEST_F(FunctionSessionTest, ExtendAddsACall) {
  auto session = NewSessionWith("");
  GraphDef more;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrCat("node { name: 'neg' op: 'PartitionedCall' input: 'x' ",
                   kFloatCall,
                   " attr { key: 'f' value { func { name: 'Negate' } } } }"),
      &more));
  absl::Status s = session->Extend(more);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(RunFloat(session.get(), 2.5f, "neg:0"), -2.5f);
}

TEST_F(FunctionSessionTest, RecursionIsRefused) {
  GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        library {
          function {
            signature {
              name: "Loop"
              input_arg { name: "x" type: DT_FLOAT }
              output_arg { name: "y" type: DT_FLOAT }
            }
            node_def { name: "again" op: "Loop" input: "x" }
            ret { key: "y" value: "again:y:0" }
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
        node { name: "call" op: "Loop" input: "x" }
      )pb",
      &graph));
  SessionOptions opts;
  opts.env = env_->env();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(opts, &session).ok());
  absl::Status s = session->Create(graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("Loop -> Loop"), std::string::npos) << s;
  EXPECT_NE(s.message().find("{{node call}}"), std::string::npos) << s;
}

}  // namespace
}  // namespace stepflow
