// Building graphs operation by operation (TF_NewOperation ..
// TF_FinishOperation) and querying them: validation errors, inputs,
// consumers, control edges, arg list lengths, NodeDefs, iteration, static
// shapes, op definitions and versions, and running a built graph.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "proto/op_def.pb.h"
#include "proto/versions.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::NewStatus;
using c_api_test::StatusPtr;

TF_Operation* Placeholder(TF_Graph* g, const char* name, TF_Status* s,
                          TF_DataType dtype = TF_FLOAT) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dtype);
  return TF_FinishOperation(d, s);
}

TF_Operation* ScalarConst(TF_Graph* g, const char* name, float value,
                          TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_Tensor* t = FloatScalar(value);
  TF_SetAttrTensor(d, "value", t, s);
  TF_DeleteTensor(t);
  if (TF_GetCode(s) != TF_OK) return nullptr;
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  return TF_FinishOperation(d, s);
}

TF_Operation* Add(TF_Graph* g, const char* name, TF_Operation* a,
                  TF_Operation* b, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "AddV2", name);
  TF_AddInput(d, TF_Output{a, 0});
  TF_AddInput(d, TF_Output{b, 0});
  return TF_FinishOperation(d, s);
}

class CApiBuildTest : public ::testing::Test {
 protected:
  void TearDown() override { TF_DeleteGraph(graph_); }
  TF_Graph* graph_ = TF_NewGraph();
  StatusPtr status_ = NewStatus();
};

TEST_F(CApiBuildTest, BuildsAndQueriesAGraph) {
  TF_Operation* feed = Placeholder(graph_, "feed", status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_STREQ(TF_OperationName(feed), "feed");
  EXPECT_STREQ(TF_OperationOpType(feed), "Placeholder");
  EXPECT_EQ(TF_OperationNumOutputs(feed), 1);
  EXPECT_EQ(TF_OperationNumInputs(feed), 0);
  EXPECT_EQ(TF_OperationOutputNumConsumers(TF_Output{feed, 0}), 0);
  EXPECT_EQ(TF_OperationOutputListLength(feed, "output", status_.get()), 1);
  EXPECT_EQ(TF_OperationInputListLength(feed, "nope", status_.get()), -1);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  TF_Operation* three = ScalarConst(graph_, "scalar", 3, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_Operation* add = Add(graph_, "add", feed, three, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());

  EXPECT_EQ(TF_OperationNumInputs(add), 2);
  EXPECT_EQ(TF_OperationInputType(TF_Input{add, 1}), TF_FLOAT);
  EXPECT_EQ(TF_OperationInputType(TF_Input{add, 2}), 0);
  TF_Output in = TF_OperationInput(TF_Input{add, 1});
  EXPECT_EQ(in.oper, three);
  EXPECT_EQ(in.index, 0);
  EXPECT_EQ(TF_OperationInput(TF_Input{add, 5}).oper, nullptr);
  TF_Output all[2];
  TF_OperationAllInputs(add, all, 2);
  EXPECT_EQ(all[0].oper, feed);
  EXPECT_EQ(all[1].oper, three);
  EXPECT_EQ(TF_OperationOutputNumConsumers(TF_Output{feed, 0}), 1);
  TF_Input consumer;
  EXPECT_EQ(TF_OperationOutputConsumers(TF_Output{feed, 0}, &consumer, 1), 1);
  EXPECT_EQ(consumer.oper, add);
  EXPECT_EQ(consumer.index, 0);

  // Iteration visits every operation once, in creation order.
  size_t pos = 0;
  std::vector<std::string> names;
  while (TF_Operation* op = TF_GraphNextOperation(graph_, &pos)) {
    names.push_back(TF_OperationName(op));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"feed", "scalar", "add"}));

  // NodeDef and GraphDef.
  TF_Buffer* buf = TF_NewBuffer();
  TF_OperationToNodeDef(add, buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  NodeDef def;
  ASSERT_TRUE(def.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_EQ(def.op(), "AddV2");
  ASSERT_EQ(def.input_size(), 2);
  EXPECT_EQ(def.input(0), "feed");
  EXPECT_EQ(def.input(1), "scalar");
  TF_GraphToGraphDef(graph_, buf, status_.get());
  GraphDef gdef;
  ASSERT_TRUE(gdef.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_EQ(gdef.node_size(), 3);
  TF_DeleteBuffer(buf);

  // Run it: feed + 3.
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(graph_, opts, status_.get());
  TF_DeleteSessionOptions(opts);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_Output feed_out{feed, 0}, add_out{add, 0};
  TF_Tensor* value = FloatScalar(2);
  TF_Tensor* result = nullptr;
  TF_SessionRun(session, nullptr, &feed_out, &value, 1, &add_out, &result, 1,
                nullptr, 0, nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(FloatValue(result), 5);
  TF_DeleteTensor(value);
  TF_DeleteTensor(result);
  TF_DeleteSession(session, status_.get());
}

TEST_F(CApiBuildTest, FinishReportsTensorFlowErrors) {
  TF_Operation* feed = Placeholder(graph_, "feed", status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);

  // Duplicate name.
  EXPECT_EQ(Placeholder(graph_, "feed", status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_NE(std::string(TF_Message(status_.get())).find("Duplicate node name"),
            std::string::npos);

  // Missing required attr.
  TF_OperationDescription* d = TF_NewOperation(graph_, "Placeholder", "p2");
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  // Unregistered op.
  d = TF_NewOperation(graph_, "NoSuchOp", "n");
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  // Wrong number of inputs, wrong input type.
  d = TF_NewOperation(graph_, "AddV2", "a1");
  TF_AddInput(d, TF_Output{feed, 0});
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_Operation* ifeed = Placeholder(graph_, "ifeed", status_.get(), TF_INT32);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  d = TF_NewOperation(graph_, "AddV2", "a2");
  TF_AddInput(d, TF_Output{feed, 0});
  TF_AddInput(d, TF_Output{ifeed, 0});
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  // Output index out of range.
  d = TF_NewOperation(graph_, "Identity", "id");
  TF_AddInput(d, TF_Output{feed, 3});
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_NE(TF_GetCode(status_.get()), TF_OK);

  // An input from another graph.
  TF_Graph* other = TF_NewGraph();
  TF_Operation* foreign = Placeholder(other, "foreign", status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  d = TF_NewOperation(graph_, "Identity", "id");
  TF_AddInput(d, TF_Output{foreign, 0});
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteGraph(other);

  // NULL arguments never crash.
  EXPECT_EQ(TF_NewOperation(nullptr, "NoOp", "x"), nullptr);
  EXPECT_EQ(TF_NewOperation(graph_, nullptr, "x"), nullptr);
  EXPECT_EQ(TF_NewOperation(graph_, "NoOp", nullptr), nullptr);
  EXPECT_EQ(TF_FinishOperation(nullptr, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  d = TF_NewOperation(graph_, "NoOp", "noop");
  TF_AddInput(d, TF_Output{nullptr, 0});
  TF_AddControlInput(d, nullptr);
  TF_SetAttrInt(d, nullptr, 1);
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  // The failures left nothing behind.
  EXPECT_EQ(TF_GraphNumOperations(graph_), 2);
  EXPECT_STREQ(TF_OperationName(nullptr), "");
  EXPECT_EQ(TF_OperationNumOutputs(nullptr), 0);
  EXPECT_EQ(TF_OperationNumControlInputs(nullptr), 0);
}

TEST_F(CApiBuildTest, ControlInputsDevicesAndColocation) {
  TF_Operation* feed = Placeholder(graph_, "feed", status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_OperationDescription* d = TF_NewOperation(graph_, "NoOp", "init");
  TF_SetDevice(d, "/cpu:0");
  TF_Operation* init = TF_FinishOperation(d, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_STREQ(TF_OperationDevice(init), "/cpu:0");

  d = TF_NewOperation(graph_, "Identity", "id");
  TF_AddInput(d, TF_Output{feed, 0});
  TF_AddControlInput(d, init);
  TF_ColocateWith(d, feed);
  TF_Operation* id = TF_FinishOperation(d, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());

  EXPECT_EQ(TF_OperationNumControlInputs(id), 1);
  TF_Operation* got = nullptr;
  EXPECT_EQ(TF_OperationGetControlInputs(id, &got, 1), 1);
  EXPECT_EQ(got, init);
  EXPECT_EQ(TF_OperationNumControlOutputs(init), 1);
  EXPECT_EQ(TF_OperationGetControlOutputs(init, &got, 1), 1);
  EXPECT_EQ(got, id);
  EXPECT_EQ(TF_OperationNumControlInputs(feed), 0);

  TF_AttrMetadata m = TF_OperationGetAttrMetadata(id, "_class", status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(m.is_list, 1);
  EXPECT_EQ(m.list_size, 1);
  char storage[32];
  void* values[1];
  size_t lengths[1];
  TF_OperationGetAttrStringList(id, "_class", values, lengths, 1, storage,
                                sizeof(storage), status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(std::string(static_cast<char*>(values[0]), lengths[0]),
            "loc:@feed");

  // Mutations exported to C.
  TF_SetRequestedDevice(graph_, feed, "/cpu:0");
  EXPECT_STREQ(TF_OperationDevice(feed), "/cpu:0");
  TF_AddOperationControlInput(graph_, feed, init);
  EXPECT_EQ(TF_OperationNumControlInputs(feed), 1);
  TF_RemoveAllControlInputs(graph_, feed);
  EXPECT_EQ(TF_OperationNumControlInputs(feed), 0);

  AttrValue value;
  value.set_s("note");
  const std::string bytes = value.SerializeAsString();
  TF_Buffer* buf = TF_NewBufferFromString(bytes.data(), bytes.size());
  TF_SetAttr(graph_, id, "_note", buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_DeleteBuffer(buf);
  char note[4];
  TF_OperationGetAttrString(id, "_note", note, 4, status_.get());
  EXPECT_EQ(std::string(note, 4), "note");
  TF_ClearAttr(graph_, id, "_note", status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_OperationGetAttrString(id, "_note", note, 4, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  // Rewire id's input to another float output; an int one is refused.
  TF_Operation* other = Placeholder(graph_, "other", status_.get());
  TF_Operation* ints = Placeholder(graph_, "ints", status_.get(), TF_INT32);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_UpdateEdge(graph_, TF_Output{other, 0}, TF_Input{id, 0}, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(TF_OperationInput(TF_Input{id, 0}).oper, other);
  TF_UpdateEdge(graph_, TF_Output{ints, 0}, TF_Input{id, 0}, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_UpdateEdge(graph_, TF_Output{other, 0}, TF_Input{id, 4}, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OUT_OF_RANGE);
}

TEST_F(CApiBuildTest, StaticShapes) {
  TF_OperationDescription* d = TF_NewOperation(graph_, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t dims[] = {-1, 3};
  TF_SetAttrShape(d, "shape", dims, 2);
  TF_Operation* p = TF_FinishOperation(d, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_Operation* unknown = Placeholder(graph_, "u", status_.get());
  TF_Operation* c = ScalarConst(graph_, "c", 1, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);

  TF_Output out{p, 0};
  EXPECT_EQ(TF_GraphGetTensorNumDims(graph_, out, status_.get()), 2);
  int64_t got[2] = {0, 0};
  TF_GraphGetTensorShape(graph_, out, got, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(got[0], -1);
  EXPECT_EQ(got[1], 3);
  TF_GraphGetTensorShape(graph_, out, got, 1, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  // Merging refines unknown dimensions; conflicts are errors.
  const int64_t refine[] = {5, -1};
  TF_GraphSetTensorShape(graph_, out, refine, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_GraphGetTensorShape(graph_, out, got, 2, status_.get());
  EXPECT_EQ(got[0], 5);
  EXPECT_EQ(got[1], 3);
  const int64_t conflict[] = {5, 4};
  TF_GraphSetTensorShape(graph_, out, conflict, 2, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_GraphSetTensorShape(graph_, out, conflict, 1, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  EXPECT_EQ(
      TF_GraphGetTensorNumDims(graph_, TF_Output{unknown, 0}, status_.get()),
      -1);
  EXPECT_EQ(TF_GraphGetTensorNumDims(graph_, TF_Output{c, 0}, status_.get()),
            0);
  TF_Tensor* value = nullptr;
  EXPECT_EQ(
      TF_TryEvaluateConstant(graph_, TF_Output{c, 0}, &value, status_.get()),
      1);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(FloatValue(value), 1);
  TF_DeleteTensor(value);
  EXPECT_EQ(
      TF_TryEvaluateConstant(graph_, TF_Output{p, 0}, &value, status_.get()),
      0);
  EXPECT_EQ(value, nullptr);
  EXPECT_EQ(TF_GraphGetTensorNumDims(graph_, TF_Output{c, 1}, status_.get()),
            -1);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OUT_OF_RANGE);
  EXPECT_EQ(
      TF_GraphGetTensorNumDims(graph_, TF_Output{nullptr, 0}, status_.get()),
      -1);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
}

TEST_F(CApiBuildTest, OpDefsVersionsAndOpLists) {
  TF_Buffer* buf = TF_NewBuffer();
  TF_GraphGetOpDef(graph_, "AddV2", buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  OpDef op_def;
  ASSERT_TRUE(op_def.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_EQ(op_def.name(), "AddV2");
  TF_GraphGetOpDef(graph_, "NoSuchOp", buf, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_NOT_FOUND);

  TF_GraphVersions(graph_, buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  VersionDef versions;
  ASSERT_TRUE(
      versions.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_GT(versions.producer(), 0);
  TF_DeleteBuffer(buf);

  TF_Buffer* all = TF_GetAllOpList();
  OpList list;
  ASSERT_TRUE(list.ParseFromArray(all->data, static_cast<int>(all->length)));
  std::set<std::string> names;
  for (const OpDef& op : list.op()) names.insert(op.name());
  EXPECT_EQ(names.count("AddV2"), 1u);
  EXPECT_EQ(names.count("Placeholder"), 1u);
  TF_DeleteBuffer(all);

  TF_Library* lib = TF_LoadLibrary("libnothing.so", status_.get());
  EXPECT_EQ(lib, nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_UNIMPLEMENTED);
  EXPECT_EQ(TF_GetOpList(nullptr).length, 0u);
}

TEST_F(CApiBuildTest, WhileLoopCountsToTen) {
  // i = 0; limit = 10; while (i < limit) i = i + 1.
  TF_OperationDescription* d = TF_NewOperation(graph_, "Const", "zero");
  int32_t zero = 0;
  TF_Tensor* zero_t = TF_AllocateTensor(TF_INT32, nullptr, 0, sizeof(zero));
  *static_cast<int32_t*>(TF_TensorData(zero_t)) = zero;
  TF_SetAttrTensor(d, "value", zero_t, status_.get());
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation* start = TF_FinishOperation(d, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_DeleteTensor(zero_t);
  TF_Operation* limit = Placeholder(graph_, "limit", status_.get(), TF_INT32);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);

  TF_Output inputs[] = {{start, 0}, {limit, 0}};
  TF_WhileParams params = TF_NewWhile(graph_, inputs, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  d = TF_NewOperation(params.cond_graph, "Less", "less");
  TF_AddInput(d, params.cond_inputs[0]);
  TF_AddInput(d, params.cond_inputs[1]);
  params.cond_output = {TF_FinishOperation(d, status_.get()), 0};
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  d = TF_NewOperation(params.body_graph, "Const", "one");
  TF_Tensor* one_t = TF_AllocateTensor(TF_INT32, nullptr, 0, sizeof(int32_t));
  *static_cast<int32_t*>(TF_TensorData(one_t)) = 1;
  TF_SetAttrTensor(d, "value", one_t, status_.get());
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation* one = TF_FinishOperation(d, status_.get());
  TF_DeleteTensor(one_t);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  d = TF_NewOperation(params.body_graph, "AddV2", "next");
  TF_AddInput(d, params.body_inputs[0]);
  TF_AddInput(d, TF_Output{one, 0});
  params.body_outputs[0] = {TF_FinishOperation(d, status_.get()), 0};
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  params.body_outputs[1] = params.body_inputs[1];
  params.name = "count";
  TF_Output outputs[2];
  TF_FinishWhile(&params, status_.get(), outputs);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_STREQ(TF_OperationOpType(outputs[0].oper), "Exit");
  // TensorFlow's names: the first loop variable's nodes unnumbered.
  EXPECT_STREQ(TF_OperationName(outputs[0].oper), "count/Exit");
  EXPECT_STREQ(TF_OperationName(outputs[1].oper), "count/Exit_1");

  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(graph_, opts, status_.get());
  TF_DeleteSessionOptions(opts);
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_Tensor* limit_value =
      TF_AllocateTensor(TF_INT32, nullptr, 0, sizeof(int32_t));
  *static_cast<int32_t*>(TF_TensorData(limit_value)) = 10;
  TF_Output feed{limit, 0};
  TF_Tensor* result = nullptr;
  TF_SessionRun(session, nullptr, &feed, &limit_value, 1, &outputs[0], &result,
                1, nullptr, 0, nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(*static_cast<int32_t*>(TF_TensorData(result)), 10);
  TF_DeleteTensor(result);
  TF_DeleteTensor(limit_value);
  TF_DeleteSession(session, status_.get());

  // Misuse: no inputs; an unset condition (the graphs are freed either way).
  TF_NewWhile(graph_, inputs, 0, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_WhileParams unset = TF_NewWhile(graph_, inputs, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  unset.name = "unset";
  TF_FinishWhile(&unset, status_.get(), outputs);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // No name: TensorFlow refuses it too.
  TF_WhileParams unnamed = TF_NewWhile(graph_, inputs, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  unnamed.cond_output = {start, 0};
  TF_FinishWhile(&unnamed, status_.get(), outputs);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(status_.get()),
               "TF_WhileParams `name` field is null");
  TF_WhileParams aborted = TF_NewWhile(graph_, inputs, 1, status_.get());
  TF_AbortWhile(&aborted);
}

TEST_F(CApiBuildTest, FunctionsInTheGraphLibrary) {
  FunctionDef fdef;
  fdef.mutable_signature()->set_name("MyFunc");
  const std::string bytes = fdef.SerializeAsString();
  TF_Function* func =
      TF_FunctionImportFunctionDef(bytes.data(), bytes.size(), status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_STREQ(TF_FunctionName(func), "MyFunc");
  EXPECT_EQ(TF_FunctionImportFunctionDef("\xff", 1, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  AttrValue value;
  value.set_b(true);
  const std::string attr = value.SerializeAsString();
  TF_FunctionSetAttrValueProto(func, "_noinline", attr.data(), attr.size(),
                               status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_Buffer* buf = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(func, "_noinline", buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(buf->length, attr.size());
  TF_FunctionGetAttrValueProto(func, "_other", buf, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  TF_GraphCopyFunction(graph_, func, nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_GraphCopyFunction(graph_, func, nullptr, status_.get());  // Same again.
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(TF_GraphNumFunctions(graph_), 1);
  TF_Function* copy = nullptr;
  EXPECT_EQ(TF_GraphGetFunctions(graph_, &copy, 1, status_.get()), 1);
  ASSERT_NE(copy, nullptr);
  TF_FunctionToFunctionDef(copy, buf, status_.get());
  FunctionDef back;
  ASSERT_TRUE(back.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_EQ(back.signature().name(), "MyFunc");
  EXPECT_EQ(back.attr().count("_noinline"), 1u);
  TF_DeleteBuffer(buf);
  TF_DeleteFunction(copy);

  // A different definition under the same name is refused.
  fdef.mutable_signature()->set_description("changed");
  const std::string changed = fdef.SerializeAsString();
  TF_Function* other = TF_FunctionImportFunctionDef(
      changed.data(), changed.size(), status_.get());
  TF_GraphCopyFunction(graph_, other, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteFunction(other);
  TF_DeleteFunction(func);

  // An empty body, no arguments: a valid function (c_api_function_test
  // covers TF_GraphToFunction).
  TF_Function* empty =
      TF_GraphToFunction(graph_, "f", 0, 0, nullptr, 0, nullptr, 0, nullptr,
                         nullptr, nullptr, nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_STREQ(TF_FunctionName(empty), "f");
  TF_DeleteFunction(empty);
}

}  // namespace
}  // namespace stepflow
