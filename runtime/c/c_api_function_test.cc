// TF_GraphToFunction(WithControlOutputs): the cases TensorFlow documents
// for its C API functions (zero/one/two ops, input and output naming,
// permutations, duplicated outputs, subsets of operations, list outputs,
// control dependencies and outputs, hashing, descriptions, statefulness)
// and its error cases, each function copied into a host graph and called
// through PartitionedCall.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "proto/op_def.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::NewStatus;
using c_api_test::StatusPtr;

class CApiFunctionTest : public ::testing::Test {
 protected:
  ~CApiFunctionTest() override {
    if (func_ != nullptr) TF_DeleteFunction(func_);
    TF_DeleteGraph(fn_graph_);
    TF_DeleteGraph(host_);
  }

  TF_Operation* Placeholder(TF_Graph* g, const char* name) {
    TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    TF_Operation* op = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    return op;
  }
  TF_Operation* Const(TF_Graph* g, const char* name, float v) {
    TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
    TF_Tensor* t = FloatScalar(v);
    TF_SetAttrTensor(d, "value", t, s());
    TF_DeleteTensor(t);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    TF_Operation* op = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    return op;
  }
  TF_Operation* Unary(TF_Graph* g, const char* type, const char* name,
                      TF_Output in) {
    TF_OperationDescription* d = TF_NewOperation(g, type, name);
    TF_AddInput(d, in);
    TF_Operation* op = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    return op;
  }
  TF_Operation* Neg(TF_Graph* g, const char* name, TF_Operation* in) {
    return Unary(g, "Neg", name, {in, 0});
  }
  // a + b, optionally with a control input.
  TF_Operation* Add(TF_Graph* g, const char* name, TF_Output a, TF_Output b,
                    TF_Operation* control = nullptr) {
    TF_OperationDescription* d = TF_NewOperation(g, "AddV2", name);
    TF_AddInput(d, a);
    TF_AddInput(d, b);
    if (control != nullptr) TF_AddControlInput(d, control);
    TF_Operation* op = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    return op;
  }
  TF_Operation* Add(TF_Graph* g, const char* name, TF_Operation* a,
                    TF_Operation* b, TF_Operation* control = nullptr) {
    return Add(g, name, {a, 0}, {b, 0}, control);
  }
  // Splits a 1-D float placeholder-fed tensor into three.
  TF_Operation* Split3(TF_Graph* g, const char* name, TF_Operation* in) {
    TF_Operation* axis = nullptr;
    {
      TF_OperationDescription* d =
          TF_NewOperation(g, "Const", (std::string(name) + "_axis").c_str());
      TF_Tensor* t = TF_AllocateTensor(TF_INT32, nullptr, 0, sizeof(int32_t));
      *static_cast<int32_t*>(TF_TensorData(t)) = 0;
      TF_SetAttrTensor(d, "value", t, s());
      TF_DeleteTensor(t);
      TF_SetAttrType(d, "dtype", TF_INT32);
      axis = TF_FinishOperation(d, s());
    }
    TF_OperationDescription* d = TF_NewOperation(g, "Split", name);
    TF_AddInput(d, {axis, 0});
    TF_AddInput(d, {in, 0});
    TF_SetAttrInt(d, "num_split", 3);
    TF_Operation* op = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    return op;
  }

  // Builds func_ from fn_graph_; returns the status code.
  TF_Code Define(int num_opers, const std::vector<TF_Operation*>& opers,
                 const std::vector<TF_Output>& inputs,
                 const std::vector<TF_Output>& outputs,
                 const std::vector<const char*>& output_names = {},
                 bool append_hash = false,
                 const std::vector<TF_Operation*>& control_outputs = {},
                 const std::vector<const char*>& control_names = {}) {
    func_ = TF_GraphToFunctionWithControlOutputs(
        fn_graph_, "MyFunc", append_hash, num_opers,
        num_opers == -1 ? nullptr : opers.data(),
        static_cast<int>(inputs.size()), inputs.data(),
        static_cast<int>(outputs.size()), outputs.data(),
        output_names.empty() ? nullptr : output_names.data(),
        static_cast<int>(control_outputs.size()), control_outputs.data(),
        control_names.empty() ? nullptr : control_names.data(), nullptr,
        nullptr, s());
    if (TF_GetCode(s()) == TF_OK) {
      EXPECT_NE(func_, nullptr);
      fdef_ = FunctionDefOf(func_);
    } else {
      EXPECT_EQ(func_, nullptr);
    }
    return TF_GetCode(s());
  }

  static FunctionDef FunctionDefOf(TF_Function* f) {
    TF_Buffer* buf = TF_NewBuffer();
    StatusPtr st = NewStatus();
    TF_FunctionToFunctionDef(f, buf, st.get());
    EXPECT_EQ(TF_GetCode(st.get()), TF_OK);
    FunctionDef fdef;
    EXPECT_TRUE(fdef.ParseFromArray(buf->data, static_cast<int>(buf->length)));
    TF_DeleteBuffer(buf);
    return fdef;
  }

  // Calls func_ in host_ on float scalar `args` twice, directly (an op
  // named after the function, as TensorFlow's own tests call it) and
  // through PartitionedCall, checks both give the same outputs and returns
  // them.
  std::vector<float> Call(const std::vector<float>& args) {
    TF_GraphCopyFunction(host_, func_, nullptr, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    const int n_out = fdef_.signature().output_arg_size();
    std::vector<TF_Output> feeds;
    std::vector<TF_Tensor*> values;
    std::string prefix = "call" + std::to_string(calls_++);
    for (size_t i = 0; i < args.size(); ++i) {
      feeds.push_back(
          {Placeholder(host_, (prefix + "_in" + std::to_string(i)).c_str()),
           0});
      values.push_back(FloatScalar(args[i]));
    }
    TF_OperationDescription* d = TF_NewOperation(host_, TF_FunctionName(func_),
                                                 (prefix + "_direct").c_str());
    for (const TF_Output& feed : feeds) TF_AddInput(d, feed);
    TF_Operation* direct = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    if (direct == nullptr) return {};
    EXPECT_EQ(TF_OperationNumOutputs(direct), n_out);

    d = TF_NewOperation(host_, "PartitionedCall", (prefix + "_pc").c_str());
    TF_AddInputList(d, feeds.data(), feeds.size());
    std::vector<TF_DataType> tin(args.size(), TF_FLOAT);
    std::vector<TF_DataType> tout(n_out, TF_FLOAT);
    TF_SetAttrTypeList(d, "Tin", tin.data(), tin.size());
    TF_SetAttrTypeList(d, "Tout", tout.data(), tout.size());
    TF_SetAttrFuncName(d, "f", TF_FunctionName(func_),
                       strlen(TF_FunctionName(func_)));
    TF_Operation* pc = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    if (pc == nullptr) return {};

    std::vector<TF_Output> fetches;
    for (int i = 0; i < n_out; ++i) fetches.push_back({pc, i});
    for (int i = 0; i < n_out; ++i) fetches.push_back({direct, i});
    std::vector<TF_Tensor*> results(fetches.size(), nullptr);
    TF_SessionOptions* opts = TF_NewSessionOptions();
    TF_Session* session = TF_NewSession(host_, opts, s());
    TF_DeleteSessionOptions(opts);
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    TF_SessionRun(session, nullptr, feeds.data(), values.data(),
                  static_cast<int>(feeds.size()), fetches.data(),
                  results.data(), static_cast<int>(fetches.size()), nullptr, 0,
                  nullptr, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    std::vector<float> out;
    for (int i = 0; i < n_out && TF_GetCode(s()) == TF_OK; ++i) {
      out.push_back(FloatValue(results[i]));
      EXPECT_EQ(FloatValue(results[n_out + i]), out.back())
          << "direct call output " << i;
    }
    for (TF_Tensor* t : results) {
      if (t != nullptr) TF_DeleteTensor(t);
    }
    for (TF_Tensor* t : values) TF_DeleteTensor(t);
    TF_CloseSession(session, s());
    TF_DeleteSession(session, s());
    return out;
  }

  std::vector<std::string> ArgNames(bool inputs) const {
    std::vector<std::string> names;
    const auto& args =
        inputs ? fdef_.signature().input_arg() : fdef_.signature().output_arg();
    for (const auto& a : args) names.push_back(a.name());
    return names;
  }
  std::map<std::string, std::string> Ret() const {
    return {fdef_.ret().begin(), fdef_.ret().end()};
  }
  const NodeDef* BodyNode(const std::string& name) const {
    for (const NodeDef& n : fdef_.node_def()) {
      if (n.name() == name) return &n;
    }
    return nullptr;
  }
  std::vector<std::string> Inputs(const std::string& node) const {
    const NodeDef* n = BodyNode(node);
    if (n == nullptr) return {"<no node " + node + ">"};
    return {n->input().begin(), n->input().end()};
  }
  std::string Message() const { return TF_Message(status_.get()); }

  TF_Status* s() { return status_.get(); }

  StatusPtr status_ = NewStatus();
  TF_Graph* fn_graph_ = TF_NewGraph();
  TF_Graph* host_ = TF_NewGraph();
  TF_Function* func_ = nullptr;
  FunctionDef fdef_;
  int calls_ = 0;
};

using Names = std::vector<std::string>;
using Refs = std::map<std::string, std::string>;

TEST_F(CApiFunctionTest, OneOpZeroInputsOneOutput) {
  TF_Operation* c = Const(fn_graph_, "scalar10", 10);
  TF_Operation* neg = Neg(fn_graph_, "neg", c);
  ASSERT_EQ(Define(-1, {}, {}, {{neg, 0}}), TF_OK) << Message();
  EXPECT_EQ(std::string(TF_FunctionName(func_)), "MyFunc");
  EXPECT_EQ(ArgNames(true), Names{});
  EXPECT_EQ(ArgNames(false), Names{"neg"});
  // The output took the name "neg" first: the body node gets a suffix.
  EXPECT_EQ(Ret(), (Refs{{"neg", "neg_0:y:0"}}));
  EXPECT_EQ(Inputs("neg_0"), Names{"scalar10:output:0"});
  EXPECT_EQ(Call({}), std::vector<float>{-10});
}

TEST_F(CApiFunctionTest, OneOpOneInputOneOutput) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}), TF_OK) << Message();
  EXPECT_EQ(ArgNames(true), Names{"feed"});
  EXPECT_EQ(fdef_.node_def_size(), 1);  // The input's node is not the body.
  EXPECT_EQ(Inputs("neg_0"), Names{"feed"});
  EXPECT_EQ(Call({3}), std::vector<float>{-3});
}

TEST_F(CApiFunctionTest, OutputNamesAreKept) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}, {"negated_num"}), TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(false), Names{"negated_num"});
  EXPECT_EQ(Ret(), (Refs{{"negated_num", "neg:y:0"}}));
  EXPECT_EQ(Call({3}), std::vector<float>{-3});
}

TEST_F(CApiFunctionTest, OutputNameSameAsInputRenamesTheInput) {
  TF_Operation* feed = Placeholder(fn_graph_, "negated_num");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}, {"negated_num"}), TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(true), Names{"negated_num_0"});
  EXPECT_EQ(ArgNames(false), Names{"negated_num"});
  EXPECT_EQ(Inputs("neg"), Names{"negated_num_0"});  // Name kept: not taken.
  EXPECT_EQ(Call({3}), std::vector<float>{-3});
}

TEST_F(CApiFunctionTest, ZeroOpsIdentity) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{feed, 0}}), TF_OK) << Message();
  // The output is named first and takes "feed"; the input gets a suffix.
  EXPECT_EQ(ArgNames(false), Names{"feed"});
  EXPECT_EQ(ArgNames(true), Names{"feed_0"});
  EXPECT_EQ(Ret(), (Refs{{"feed", "feed_0"}}));
  EXPECT_EQ(fdef_.node_def_size(), 0);
  EXPECT_EQ(Call({3}), std::vector<float>{3});
}

TEST_F(CApiFunctionTest, ZeroOpsPermutation) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {{f2, 0}, {f1, 0}}), TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(false), (Names{"feed2", "feed1"}));
  EXPECT_EQ(ArgNames(true), (Names{"feed1_0", "feed2_0"}));
  EXPECT_EQ(Call({3, 2}), (std::vector<float>{2, 3}));
}

TEST_F(CApiFunctionTest, ZeroOpsPermutationWithOutputNames) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {{f2, 0}, {f1, 0}},
                   {"first", "second"}),
            TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(true), (Names{"feed1", "feed2"}));
  EXPECT_EQ(Ret(), (Refs{{"first", "feed2"}, {"second", "feed1"}}));
  EXPECT_EQ(Call({3, 2}), (std::vector<float>{2, 3}));
}

TEST_F(CApiFunctionTest, TwoInputsZeroOutputs) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  Add(fn_graph_, "add", f1, f2);
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {}), TF_OK) << Message();
  EXPECT_EQ(fdef_.signature().output_arg_size(), 0);
  EXPECT_EQ(Inputs("add"), (Names{"feed1", "feed2"}));
}

TEST_F(CApiFunctionTest, TwoOpsThreeInputsOneOutput) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* f3 = Placeholder(fn_graph_, "feed3");
  TF_Operation* add1 = Add(fn_graph_, "add1", f1, f2);
  TF_Operation* add2 = Add(fn_graph_, "add2", add1, f3);
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}, {f3, 0}}, {{add2, 0}}), TF_OK)
      << Message();
  EXPECT_EQ(Inputs("add2_0"), (Names{"add1:z:0", "feed3"}));
  EXPECT_EQ(Call({2, 3, 4}), std::vector<float>{9});
}

TEST_F(CApiFunctionTest, DuplicateOutputsAndTheirNames) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* add = Add(fn_graph_, "add", f1, f2);
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {{add, 0}, {add, 0}}), TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(false), (Names{"add", "add_0"}));
  // The body node keeps its name only if no argument took it.
  EXPECT_EQ(Ret(), (Refs{{"add", "add_1:z:0"}, {"add_0", "add_1:z:0"}}));
  EXPECT_EQ(Call({2, 3}), (std::vector<float>{5, 5}));
}

TEST_F(CApiFunctionTest, TwoOpsThreeInputsTwoOutputs) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* f3 = Placeholder(fn_graph_, "feed3");
  TF_Operation* add1 = Add(fn_graph_, "add1", f1, f2);
  TF_Operation* add2 = Add(fn_graph_, "add2", add1, f3);
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}, {f3, 0}}, {{add1, 0}, {add2, 0}}),
            TF_OK)
      << Message();
  EXPECT_EQ(Call({1, 2, 4}), (std::vector<float>{3, 7}));
}

TEST_F(CApiFunctionTest, FromSubsetOfOps) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* f3 = Placeholder(fn_graph_, "feed3");
  TF_Operation* add1 = Add(fn_graph_, "add1", f1, f2);
  TF_Operation* add2 = Add(fn_graph_, "add2", add1, f3);
  // add1 is left out: its output becomes an input.
  ASSERT_EQ(Define(1, {add2}, {{add1, 0}, {f3, 0}}, {{add2, 0}}), TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(true), (Names{"add1", "feed3"}));
  EXPECT_EQ(fdef_.node_def_size(), 1);
  EXPECT_EQ(Call({5, 6}), std::vector<float>{11});
}

TEST_F(CApiFunctionTest, UsingOneAndTwoOutputsOfSplit) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* split = Split3(fn_graph_, "split", feed);
  TF_Operation* axis = TF_GraphOperationByName(fn_graph_, "split_axis");
  TF_Operation* add = Add(fn_graph_, "add", {split, 0}, {split, 2});
  ASSERT_EQ(Define(3, {axis, split, add}, {{feed, 0}}, {{add, 0}, {split, 1}}),
            TF_OK)
      << Message();
  EXPECT_EQ(Inputs("add_0"), (Names{"split_0:output:0", "split_0:output:2"}));
  EXPECT_EQ(Ret(), (Refs{{"add", "add_0:z:0"}, {"split", "split_0:output:1"}}));
  // Run on a vector: Call feeds scalars, so check by hand.
  TF_GraphCopyFunction(host_, func_, nullptr, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  TF_Operation* in = Placeholder(host_, "vec");
  TF_OperationDescription* d =
      TF_NewOperation(host_, "PartitionedCall", "call");
  TF_Output in_out{in, 0};
  TF_AddInputList(d, &in_out, 1);
  TF_DataType tin[] = {TF_FLOAT}, tout[] = {TF_FLOAT, TF_FLOAT};
  TF_SetAttrTypeList(d, "Tin", tin, 1);
  TF_SetAttrTypeList(d, "Tout", tout, 2);
  TF_SetAttrFuncName(d, "f", "MyFunc", 6);
  TF_Operation* call = TF_FinishOperation(d, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  int64_t dims[] = {3};
  TF_Tensor* v = TF_AllocateTensor(TF_FLOAT, dims, 1, 3 * sizeof(float));
  float* data = static_cast<float*>(TF_TensorData(v));
  data[0] = 1;
  data[1] = 2;
  data[2] = 4;
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(host_, opts, s());
  TF_DeleteSessionOptions(opts);
  TF_Output fetches[] = {{call, 0}, {call, 1}};
  TF_Tensor* results[2] = {nullptr, nullptr};
  TF_SessionRun(session, nullptr, &in_out, &v, 1, fetches, results, 2, nullptr,
                0, nullptr, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  EXPECT_EQ(static_cast<float*>(TF_TensorData(results[0]))[0], 5);
  EXPECT_EQ(static_cast<float*>(TF_TensorData(results[1]))[0], 2);
  TF_DeleteTensor(results[0]);
  TF_DeleteTensor(results[1]);
  TF_DeleteTensor(v);
  TF_CloseSession(session, s());
  TF_DeleteSession(session, s());
}

TEST_F(CApiFunctionTest, SplitOutputsAsInputs) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* split = Split3(fn_graph_, "split", feed);
  TF_Operation* add = Add(fn_graph_, "add", {split, 0}, {split, 2});
  ASSERT_EQ(Define(1, {add}, {{split, 0}, {split, 2}}, {{add, 0}}), TF_OK)
      << Message();
  EXPECT_EQ(ArgNames(true), (Names{"split", "split_0"}));
  EXPECT_EQ(Inputs("add_0"), (Names{"split", "split_0"}));
  EXPECT_EQ(Call({4, 5}), std::vector<float>{9});
}

TEST_F(CApiFunctionTest, NodesUsedInInputsMustHaveSingleOutput) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* split = Split3(fn_graph_, "split", feed);
  TF_Operation* add = Add(fn_graph_, "add", {split, 0}, {split, 2});
  EXPECT_EQ(Define(-1, {}, {{split, 0}, {split, 2}}, {{add, 0}}),
            TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "When `num_opers` is set to -1, nodes referenced in `inputs` must "
            "have a single output. Node split has 3 outputs. Encountered while "
            "creating function 'MyFunc'");
}

TEST_F(CApiFunctionTest, ControlDependencyInsideTheBody) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* five = Const(fn_graph_, "five", 5);
  TF_Operation* add = Add(fn_graph_, "add", f1, f2, five);
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {{add, 0}}), TF_OK) << Message();
  EXPECT_EQ(Inputs("add_0"), (Names{"feed1", "feed2", "^five"}));
  EXPECT_EQ(Call({1, 2}), std::vector<float>{3});
}

TEST_F(CApiFunctionTest, ControlDependencyOutsideTheBody) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* five = Const(fn_graph_, "five", 5);
  TF_Operation* add = Add(fn_graph_, "add", f1, f2, five);
  EXPECT_EQ(Define(1, {add}, {{f1, 0}, {f2, 0}}, {{add, 0}}),
            TF_INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(Message(), "The source of control edge"))
      << Message();
  EXPECT_TRUE(absl::StrContains(
      Message(),
      "is not in the body. Encountered while creating function "
      "'MyFunc'"))
      << Message();
}

TEST_F(CApiFunctionTest, ControlDependencyFromAnInputNode) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* add = Add(fn_graph_, "add", f1, f2, f1);
  // An input node stands for its argument, control edges included.
  ASSERT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {{add, 0}}), TF_OK) << Message();
  EXPECT_EQ(Inputs("add_0"), (Names{"feed1", "feed2", "^feed1"}));
  EXPECT_EQ(Call({1, 2}), std::vector<float>{3});
}

TEST_F(CApiFunctionTest, DuplicateInputsAreNotAllowed) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed1");
  TF_Operation* add = Add(fn_graph_, "add", feed, feed);
  EXPECT_EQ(Define(-1, {}, {{feed, 0}, {feed, 0}}, {{add, 0}}),
            TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "TF_Output feed1:0 appears more than once in the input list");
}

TEST_F(CApiFunctionTest, DuplicateOutputNamesAreNotAllowed) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* add = Add(fn_graph_, "add", f1, f2);
  EXPECT_EQ(Define(-1, {}, {{f1, 0}, {f2, 0}}, {{add, 0}, {f1, 0}},
                   {"my_out", "my_out"}),
            TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "Cannot have duplicate output names. Name 'my_out' appears more "
            "than once in 'output_names' array.");
}

TEST_F(CApiFunctionTest, InvalidInputAndOutputTensors) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed1");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  EXPECT_EQ(Define(-1, {}, {{feed, 2}}, {{neg, 0}}), TF_OUT_OF_RANGE);
  EXPECT_EQ(Message(),
            "Node 'feed1' (type: 'Placeholder', num of outputs: 1) does not "
            "have output 2\n\tEncountered while processing input 0 into "
            "function 'MyFunc'");
  EXPECT_EQ(Define(-1, {}, {{nullptr, 0}}, {{neg, 0}}), TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "Node is null\n\tEncountered while processing input 0 into "
            "function 'MyFunc'");
  EXPECT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 3}}), TF_OUT_OF_RANGE);
  EXPECT_EQ(Message(),
            "Node 'neg' (type: 'Neg', num of outputs: 1) does not have output "
            "3\n\tEncountered while processing output 0 from function "
            "'MyFunc'");
  EXPECT_EQ(Define(-1, {}, {{feed, 0}}, {{nullptr, 0}}), TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "Node is null\n\tEncountered while processing output 0 from "
            "function 'MyFunc'");
}

TEST_F(CApiFunctionTest, NodeMissingInput) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* f3 = Placeholder(fn_graph_, "feed3");
  TF_Operation* add1 = Add(fn_graph_, "add1", f1, f2);
  TF_Operation* add2 = Add(fn_graph_, "add2", add1, f3);
  EXPECT_EQ(Define(2, {add1, add2}, {{f1, 0}, {f2, 0}}, {{add2, 0}}),
            TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "Input 1, 'feed3:0', of node 'add2' in function 'MyFunc' is not "
            "available. You might need to include it in inputs or include its "
            "source node in the body");
}

TEST_F(CApiFunctionTest, OutputOpNotInBody) {
  TF_Operation* f1 = Placeholder(fn_graph_, "feed1");
  TF_Operation* f2 = Placeholder(fn_graph_, "feed2");
  TF_Operation* scalar = Const(fn_graph_, "scalar", 2);
  TF_Operation* add = Add(fn_graph_, "add", f1, f2);
  EXPECT_EQ(Define(1, {add}, {{f1, 0}, {f2, 0}}, {{add, 0}, {scalar, 0}}),
            TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(),
            "TF_Output scalar:0 is neither in the function body nor among "
            "function inputs. Encountered while creating function 'MyFunc'");
}

TEST_F(CApiFunctionTest, NamesAreNormalised) {
  TF_Operation* feed = Placeholder(fn_graph_, "1Feed/Odd-Name");
  TF_Operation* neg = Neg(fn_graph_, "Neg_Out", feed);
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}), TF_OK) << Message();
  EXPECT_EQ(ArgNames(true), Names{"feed_odd_name"});
  EXPECT_EQ(ArgNames(false), Names{"neg_out"});
  // Body nodes keep their own (case-sensitive) names.
  EXPECT_EQ(Ret(), (Refs{{"neg_out", "Neg_Out:y:0"}}));
  EXPECT_EQ(Call({7}), std::vector<float>{-7});
}

TEST_F(CApiFunctionTest, AppendHashDependsOnTheBody) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  TF_Operation* abs = Unary(fn_graph_, "Abs", "abs", {feed, 0});
  ASSERT_EQ(Define(1, {neg}, {{feed, 0}}, {{neg, 0}}, {}, true), TF_OK)
      << Message();
  const std::string neg_name = TF_FunctionName(func_);
  EXPECT_TRUE(absl::StartsWith(neg_name, "MyFunc_")) << neg_name;
  for (char c : neg_name) EXPECT_TRUE(isalnum(c) || c == '_') << neg_name;
  EXPECT_EQ(Call({3}), std::vector<float>{-3});
  TF_DeleteFunction(func_);
  ASSERT_EQ(Define(1, {neg}, {{feed, 0}}, {{neg, 0}}, {}, true), TF_OK);
  EXPECT_EQ(TF_FunctionName(func_), neg_name);  // Deterministic.
  TF_DeleteFunction(func_);
  ASSERT_EQ(Define(1, {abs}, {{feed, 0}}, {{abs, 0}}, {}, true), TF_OK);
  EXPECT_NE(TF_FunctionName(func_), neg_name);
}

TEST_F(CApiFunctionTest, DescriptionAndStatefulness) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  TF_Output in{feed, 0}, out{neg, 0};
  func_ = TF_GraphToFunction(fn_graph_, "MyFunc", 0, -1, nullptr, 1, &in, 1,
                             &out, nullptr, nullptr, "Negates its input", s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  fdef_ = FunctionDefOf(func_);
  EXPECT_EQ(fdef_.signature().description(), "Negates its input");
  EXPECT_FALSE(fdef_.signature().is_stateful());
  TF_DeleteFunction(func_);
  func_ = nullptr;

  // RandomUniform's shape is a vector (TensorFlow refuses a scalar).
  TF_OperationDescription* c = TF_NewOperation(fn_graph_, "Const", "shape");
  const int64_t shape_dims[] = {1};
  TF_Tensor* t = TF_AllocateTensor(TF_INT32, shape_dims, 1, sizeof(int32_t));
  *static_cast<int32_t*>(TF_TensorData(t)) = 1;
  TF_SetAttrTensor(c, "value", t, s());
  TF_DeleteTensor(t);
  TF_SetAttrType(c, "dtype", TF_INT32);
  TF_Operation* shape = TF_FinishOperation(c, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  TF_OperationDescription* d =
      TF_NewOperation(fn_graph_, "RandomUniform", "random");
  TF_AddInput(d, {shape, 0});
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* random = TF_FinishOperation(d, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  TF_Output r{random, 0};
  func_ = TF_GraphToFunction(fn_graph_, "Rand", 0, -1, nullptr, 1, &in, 1, &r,
                             nullptr, nullptr, nullptr, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  EXPECT_TRUE(FunctionDefOf(func_).signature().is_stateful());
}

TEST_F(CApiFunctionTest, ControlOutputs) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  TF_Operation* abs = Unary(fn_graph_, "Abs", "side_effect", {feed, 0});
  ASSERT_EQ(
      Define(-1, {}, {{feed, 0}}, {{neg, 0}}, {}, false, {abs}, {"effect"}),
      TF_OK)
      << Message();
  EXPECT_EQ(fdef_.signature().control_output_size(), 1);
  EXPECT_EQ(fdef_.signature().control_output(0), "effect");
  EXPECT_EQ(fdef_.control_ret().at("effect"), "side_effect");
  EXPECT_EQ(Call({3}), std::vector<float>{-3});

  TF_DeleteFunction(func_);
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}, {}, false, {abs}), TF_OK)
      << Message();
  EXPECT_EQ(fdef_.control_ret().at("side_effect"), "side_effect");

  TF_DeleteFunction(func_);
  EXPECT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}, {}, false, {abs, neg},
                   {"same", "same"}),
            TF_INVALID_ARGUMENT);
  EXPECT_EQ(Message(), "Repeated control output name: same");
  EXPECT_EQ(Define(1, {neg}, {{feed, 0}}, {{neg, 0}}, {}, false, {abs}),
            TF_INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(Message(), "is not in the body")) << Message();
}

TEST_F(CApiFunctionTest, SetGradientAndCopyTwice) {
  TF_Operation* feed = Placeholder(fn_graph_, "feed");
  TF_Operation* neg = Neg(fn_graph_, "neg", feed);
  ASSERT_EQ(Define(-1, {}, {{feed, 0}}, {{neg, 0}}), TF_OK) << Message();
  TF_Output in{feed, 0}, out{neg, 0};
  TF_Function* grad =
      TF_GraphToFunction(fn_graph_, "MyGrad", 0, -1, nullptr, 1, &in, 1, &out,
                         nullptr, nullptr, nullptr, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  TF_GraphCopyFunction(host_, func_, grad, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << Message();
  EXPECT_EQ(TF_GraphNumFunctions(host_), 2);
  TF_DeleteFunction(grad);
  EXPECT_EQ(Call({4}), std::vector<float>{-4});
}

}  // namespace
}  // namespace stepflow
