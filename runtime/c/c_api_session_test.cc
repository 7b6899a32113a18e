// TF_SessionOptions and TF_Session: runs, extension before runs, error
// codes, closing, partial runs, devices, run options/metadata, the graph
// refcount, mutation warnings and the cycle check.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/config.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_mutation.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::ImportText;
using c_api_test::NewStatus;
using c_api_test::PlaceholderNode;
using c_api_test::StatusPtr;

const std::string kAddGraph = PlaceholderNode("x") + ConstFloatNode("c", 2) +
                              BinaryNode("AddV2", "z", "x", "c");

class CApiSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    live_before_ = TF_TestOnlyLiveGraphCount();
    graph_ = TF_NewGraph();
    ASSERT_EQ(ImportText(graph_, kAddGraph), TF_OK);
    opts_ = TF_NewSessionOptions();
  }
  void TearDown() override {
    TF_DeleteSessionOptions(opts_);
    if (graph_ != nullptr) TF_DeleteGraph(graph_);
    EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live_before_) << "graph leaked";
  }

  TF_Session* NewSession() {
    TF_Session* s = TF_NewSession(graph_, opts_, status_.get());
    EXPECT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
    return s;
  }
  void DeleteSession(TF_Session* s) {
    TF_DeleteSession(s, status_.get());
    EXPECT_EQ(TF_GetCode(status_.get()), TF_OK);
  }
  TF_Operation* Op(const char* name) {
    TF_Operation* op = TF_GraphOperationByName(graph_, name);
    EXPECT_NE(op, nullptr) << name;
    return op;
  }

  // Feeds x = `x`, fetches `fetch`; returns the code and, on success, the
  // value in *value.
  TF_Code RunFeedX(TF_Session* s, TF_Operation* x, float xv,
                   TF_Operation* fetch, float* value) {
    TF_Output feed{x, 0};
    TF_Tensor* in = FloatScalar(xv);
    TF_Output out{fetch, 0};
    TF_Tensor* result = reinterpret_cast<TF_Tensor*>(0x1);  // Must be reset.
    TF_SessionRun(s, nullptr, &feed, &in, 1, &out, &result, 1, nullptr, 0,
                  nullptr, status_.get());
    TF_DeleteTensor(in);
    const TF_Code code = TF_GetCode(status_.get());
    if (code == TF_OK) {
      EXPECT_NE(result, nullptr);
      if (result != nullptr) *value = FloatValue(result);
      TF_DeleteTensor(result);
    } else {
      EXPECT_EQ(result, nullptr) << "outputs must be NULL on error";
    }
    return code;
  }

  int64_t live_before_ = 0;
  TF_Graph* graph_ = nullptr;
  TF_SessionOptions* opts_ = nullptr;
  StatusPtr status_ = NewStatus();
};

TEST_F(CApiSessionTest, RunComputesFetches) {
  TF_Session* s = NewSession();
  float v = 0;
  ASSERT_EQ(RunFeedX(s, Op("x"), 3, Op("z"), &v), TF_OK)
      << TF_Message(status_.get());
  EXPECT_EQ(v, 5.0f);
  // Fetch several outputs, including a duplicate.
  TF_Output feed{Op("x"), 0};
  TF_Tensor* in = FloatScalar(10);
  TF_Output outs[3] = {{Op("z"), 0}, {Op("c"), 0}, {Op("z"), 0}};
  TF_Tensor* results[3] = {nullptr, nullptr, nullptr};
  TF_SessionRun(s, nullptr, &feed, &in, 1, outs, results, 3, nullptr, 0,
                nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(FloatValue(results[0]), 12.0f);
  EXPECT_EQ(FloatValue(results[1]), 2.0f);
  EXPECT_EQ(FloatValue(results[2]), 12.0f);
  for (TF_Tensor* t : results) TF_DeleteTensor(t);
  // The caller keeps its input and may reuse it.
  EXPECT_EQ(FloatValue(in), 10.0f);
  TF_DeleteTensor(in);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, FeedsFromCallerMemoryAndVectors) {
  ASSERT_EQ(ImportText(graph_, PlaceholderNode("v") +
                                   BinaryNode("Mul", "vv", "v", "v")),
            TF_OK);
  TF_Session* s = NewSession();
  float values[4] = {1, 2, 3, 4};
  const int64_t dims[] = {2, 2};
  TF_Tensor* in =
      TF_NewTensor(TF_FLOAT, dims, 2, values, sizeof(values), nullptr, nullptr);
  TF_Output feed{Op("v"), 0};
  TF_Output out{Op("vv"), 0};
  TF_Tensor* result = nullptr;
  TF_SessionRun(s, nullptr, &feed, &in, 1, &out, &result, 1, nullptr, 0,
                nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  ASSERT_EQ(TF_NumDims(result), 2);
  EXPECT_EQ(TF_Dim(result, 0), 2);
  EXPECT_EQ(TF_Dim(result, 1), 2);
  const float* r = static_cast<const float*>(TF_TensorData(result));
  EXPECT_EQ(r[0], 1.0f);
  EXPECT_EQ(r[3], 16.0f);
  TF_DeleteTensor(result);
  TF_DeleteTensor(in);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, GraphGrowthIsSentBeforeTheNextRun) {
  TF_Session* s = NewSession();
  float v = 0;
  ASSERT_EQ(RunFeedX(s, Op("x"), 1, Op("z"), &v), TF_OK);
  EXPECT_EQ(v, 3.0f);
  ASSERT_EQ(ImportText(graph_, BinaryNode("Mul", "w", "z", "z")), TF_OK);
  ASSERT_EQ(RunFeedX(s, Op("x"), 1, Op("w"), &v), TF_OK)
      << TF_Message(status_.get());
  EXPECT_EQ(v, 9.0f);
  ASSERT_EQ(ImportText(graph_, BinaryNode("AddV2", "u", "w", "x")), TF_OK);
  // A second session created now gets the whole graph at its first run.
  TF_Session* s2 = NewSession();
  ASSERT_EQ(RunFeedX(s2, Op("x"), 2, Op("u"), &v), TF_OK);
  EXPECT_EQ(v, 18.0f);
  ASSERT_EQ(RunFeedX(s, Op("x"), 2, Op("u"), &v), TF_OK);
  EXPECT_EQ(v, 18.0f);
  DeleteSession(s2);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, SessionOnEmptyGraphGrowsLater) {
  TF_Graph* empty = TF_NewGraph();
  TF_Session* s = TF_NewSession(empty, opts_, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr,
                0, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  ASSERT_EQ(ImportText(empty, kAddGraph), TF_OK);
  float v = 0;
  ASSERT_EQ(RunFeedX(s, TF_GraphOperationByName(empty, "x"), 4,
                     TF_GraphOperationByName(empty, "z"), &v),
            TF_OK)
      << TF_Message(status_.get());
  EXPECT_EQ(v, 6.0f);
  DeleteSession(s);
  TF_DeleteGraph(empty);
}

TEST_F(CApiSessionTest, UnknownFeedAndFetchAreNotFound) {
  TF_Graph* other = TF_NewGraph();
  ASSERT_EQ(
      ImportText(other, PlaceholderNode("elsewhere") + ConstFloatNode("k", 1)),
      TF_OK);
  TF_Session* s = NewSession();
  float v = 0;
  EXPECT_EQ(
      RunFeedX(s, TF_GraphOperationByName(other, "elsewhere"), 1, Op("z"), &v),
      TF_NOT_FOUND);
  EXPECT_NE(std::string(TF_Message(status_.get())).find("elsewhere"),
            std::string::npos)
      << TF_Message(status_.get());
  EXPECT_EQ(RunFeedX(s, Op("x"), 1, TF_GraphOperationByName(other, "k"), &v),
            TF_NOT_FOUND);
  // A target from elsewhere too.
  const TF_Operation* target = TF_GraphOperationByName(other, "k");
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &target,
                1, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_NOT_FOUND);
  DeleteSession(s);
  TF_DeleteGraph(other);
}

TEST_F(CApiSessionTest, MalformedRequestsAreInvalidArgument) {
  TF_Session* s = NewSession();
  float v = 0;
  // NULL operation in a feed / fetch / target.
  EXPECT_EQ(RunFeedX(s, nullptr, 1, Op("z"), &v), TF_INVALID_ARGUMENT);
  EXPECT_EQ(RunFeedX(s, Op("x"), 1, nullptr, &v), TF_INVALID_ARGUMENT);
  const TF_Operation* null_target = nullptr;
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0,
                &null_target, 1, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // Output index out of range.
  TF_Output bad_out{Op("z"), 3};
  TF_Tensor* result = nullptr;
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, &bad_out, &result, 1, nullptr,
                0, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(result, nullptr);
  // Wrong dtype for x.
  int32_t i = 1;
  TF_Tensor* int_in =
      TF_NewTensor(TF_INT32, nullptr, 0, &i, sizeof(i), nullptr, nullptr);
  TF_Output feed{Op("x"), 0};
  TF_Output out{Op("z"), 0};
  TF_SessionRun(s, nullptr, &feed, &int_in, 1, &out, &result, 1, nullptr, 0,
                nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteTensor(int_in);
  // A string tensor for a float placeholder.
  TF_Tensor* str_in =
      TF_AllocateTensor(TF_STRING, nullptr, 0, sizeof(TF_TString));
  ASSERT_NE(str_in, nullptr);
  TF_SessionRun(s, nullptr, &feed, &str_in, 1, &out, &result, 1, nullptr, 0,
                nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteTensor(str_in);
  // A string tensor with too few bytes for its shape.
  const int64_t three[] = {3};
  TF_TString strings[2];
  TF_StringInit(&strings[0]);
  TF_StringInit(&strings[1]);
  TF_Tensor* short_in = TF_NewTensor(TF_STRING, three, 1, strings,
                                     sizeof(strings), nullptr, nullptr);
  EXPECT_EQ(short_in, nullptr);
  // Missing value for a feed.
  TF_Tensor* none = nullptr;
  TF_SessionRun(s, nullptr, &feed, &none, 1, &out, &result, 1, nullptr, 0,
                nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // Nothing to do.
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr,
                0, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // NULL session.
  TF_SessionRun(nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0,
                nullptr, 0, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // The session still works.
  ASSERT_EQ(RunFeedX(s, Op("x"), 1, Op("z"), &v), TF_OK);
  EXPECT_EQ(v, 3.0f);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, FetchingAStringGivesTStrings) {
  ASSERT_EQ(ImportText(graph_,
                       "node { name: 's' op: 'Const' attr { key: 'dtype' value "
                       "{ type: DT_STRING } } attr { key: 'value' value { "
                       "tensor { dtype: DT_STRING tensor_shape {} string_val: "
                       "'hi' } } } }\n"),
            TF_OK);
  TF_Session* s = NewSession();
  TF_Output outs[2] = {{Op("c"), 0}, {Op("s"), 0}};
  TF_Tensor* results[2] = {nullptr, nullptr};
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, outs, results, 2, nullptr, 0,
                nullptr, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  ASSERT_NE(results[1], nullptr);
  EXPECT_EQ(TF_TensorType(results[1]), TF_STRING);
  EXPECT_EQ(TF_TensorByteSize(results[1]), sizeof(TF_TString));
  const auto* str = static_cast<const TF_TString*>(TF_TensorData(results[1]));
  EXPECT_EQ(std::string(TF_StringGetDataPointer(str), TF_StringGetSize(str)),
            "hi");
  TF_DeleteTensor(results[0]);
  TF_DeleteTensor(results[1]);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, TargetsRunWithoutFetches) {
  TF_Session* s = NewSession();
  const TF_Operation* target = Op("c");
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &target,
                1, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  DeleteSession(s);
}

TEST_F(CApiSessionTest, ClosedSessionRunsAreCancelled) {
  TF_Session* s = NewSession();
  float v = 0;
  ASSERT_EQ(RunFeedX(s, Op("x"), 1, Op("z"), &v), TF_OK);
  TF_CloseSession(s, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(RunFeedX(s, Op("x"), 1, Op("z"), &v), TF_CANCELLED);
  // Also when the graph grew since the last run (the extension fails first).
  ASSERT_EQ(ImportText(graph_, BinaryNode("Mul", "w", "z", "z")), TF_OK);
  EXPECT_EQ(RunFeedX(s, Op("x"), 1, Op("w"), &v), TF_CANCELLED);
  const char* handle = "unchanged";
  TF_Output feed{Op("x"), 0};
  TF_Output out{Op("z"), 0};
  TF_SessionPRunSetup(s, &feed, 1, &out, 1, nullptr, 0, &handle, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_CANCELLED);
  EXPECT_EQ(handle, nullptr);
  // Closing again is fine.
  TF_CloseSession(s, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_CloseSession(nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, ClosedSessionNeverRunOnEmptyGraphIsCancelled) {
  TF_Graph* empty = TF_NewGraph();
  TF_Session* s = TF_NewSession(empty, opts_, status_.get());
  TF_CloseSession(s, status_.get());
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr,
                0, nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_CANCELLED);
  DeleteSession(s);
  TF_DeleteGraph(empty);
}

TEST_F(CApiSessionTest, DeleteGraphWaitsForTheLastSession) {
  TF_Session* a = NewSession();
  TF_Session* b = NewSession();
  TF_Operation* x = Op("x");
  TF_Operation* z = Op("z");
  const int64_t with_graph = TF_TestOnlyLiveGraphCount();
  TF_DeleteGraph(graph_);
  graph_ = nullptr;
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph) << "freed too early";
  // Sessions still run, using operations of the deleted-but-held graph.
  float v = 0;
  ASSERT_EQ(RunFeedX(a, x, 1, z, &v), TF_OK);
  EXPECT_EQ(v, 3.0f);
  DeleteSession(a);
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph) << "freed too early";
  ASSERT_EQ(RunFeedX(b, x, 2, z, &v), TF_OK);
  EXPECT_EQ(v, 4.0f);
  TF_CloseSession(b, status_.get());
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph) << "close must not free";
  DeleteSession(b);
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph - 1) << "not freed";
}

TEST_F(CApiSessionTest, DeletingSessionsBeforeTheGraphDoesNotFreeIt) {
  TF_Session* a = NewSession();
  const int64_t with_graph = TF_TestOnlyLiveGraphCount();
  DeleteSession(a);
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph);
  EXPECT_EQ(TF_GraphNumOperations(graph_), 3);  // Still usable.
  TF_DeleteGraph(graph_);
  graph_ = nullptr;
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph - 1);
  TF_DeleteSession(nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OK);
}

TEST_F(CApiSessionTest, FailedNewSessionRegistersNothing) {
  TF_SetTarget(opts_, "nosuchproto://host:1");
  TF_Session* s = TF_NewSession(graph_, opts_, status_.get());
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_NOT_FOUND)
      << TF_Message(status_.get());
  const int64_t with_graph = TF_TestOnlyLiveGraphCount();
  TF_DeleteGraph(graph_);  // No session holds it: freed now.
  graph_ = nullptr;
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), with_graph - 1);

  EXPECT_EQ(TF_NewSession(nullptr, opts_, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
}

TEST_F(CApiSessionTest, ConfigIsParsedAndApplied) {
  ConfigProto config;
  (*config.mutable_device_count())["CPU"] = 3;
  std::string bytes;
  ASSERT_TRUE(config.SerializeToString(&bytes));
  TF_SetConfig(opts_, bytes.data(), bytes.size(), status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  const char garbage[] = "\xff\xff\xff";
  TF_SetConfig(opts_, garbage, 3, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_SetConfig(nullptr, bytes.data(), bytes.size(), status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  TF_Session* s = NewSession();  // The bad config left the good one.
  TF_DeviceList* list = TF_SessionListDevices(s, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  ASSERT_EQ(TF_DeviceListCount(list), 3);
  EXPECT_STREQ(TF_DeviceListName(list, 2, status_.get()),
               "/job:localhost/replica:0/task:0/device:CPU:2");
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_STREQ(TF_DeviceListType(list, 0, status_.get()), "CPU");
  EXPECT_GT(TF_DeviceListMemoryBytes(list, 0, status_.get()), 0);
  EXPECT_EQ(TF_DeviceListName(list, 3, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_DeviceListType(list, -1, status_.get()), nullptr);
  EXPECT_EQ(TF_DeviceListMemoryBytes(list, 9, status_.get()), -1);
  EXPECT_EQ(TF_DeviceListCount(nullptr), 0);
  TF_DeleteDeviceList(list);
  EXPECT_EQ(TF_SessionListDevices(nullptr, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  DeleteSession(s);
  TF_DeleteSessionOptions(nullptr);
}

TEST_F(CApiSessionTest, RunOptionsAndMetadata) {
  TF_Session* s = NewSession();
  RunOptions options;
  options.set_output_partition_graphs(true);
  std::string bytes;
  ASSERT_TRUE(options.SerializeToString(&bytes));
  TF_Buffer* run_options = TF_NewBufferFromString(bytes.data(), bytes.size());
  TF_Buffer* metadata = TF_NewBuffer();
  TF_Output out{Op("c"), 0};
  TF_Tensor* result = nullptr;
  TF_SessionRun(s, run_options, nullptr, nullptr, 0, &out, &result, 1, nullptr,
                0, metadata, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_DeleteTensor(result);
  ASSERT_NE(metadata->data, nullptr);
  RunMetadata parsed;
  ASSERT_TRUE(parsed.ParseFromArray(metadata->data,
                                    static_cast<int>(metadata->length)));
  EXPECT_GE(parsed.partition_graphs_size(), 1);

  // A non-empty metadata buffer is rejected.
  TF_SessionRun(s, run_options, nullptr, nullptr, 0, &out, &result, 1, nullptr,
                0, metadata, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_DeleteBuffer(metadata);
  TF_DeleteBuffer(run_options);

  const char garbage[] = "\xff\xff\xff";
  TF_Buffer* bad = TF_NewBufferFromString(garbage, 3);
  TF_SessionRun(s, bad, nullptr, nullptr, 0, &out, &result, 1, nullptr, 0,
                nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(result, nullptr);
  TF_DeleteBuffer(bad);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, PartialRun) {
  ASSERT_EQ(ImportText(graph_, BinaryNode("Mul", "w", "z", "z")), TF_OK);
  TF_Session* s = NewSession();
  TF_Output feed{Op("x"), 0};
  TF_Output fetches[2] = {{Op("z"), 0}, {Op("w"), 0}};
  const char* handle = nullptr;
  TF_SessionPRunSetup(s, &feed, 1, fetches, 2, nullptr, 0, &handle,
                      status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  ASSERT_NE(handle, nullptr);

  TF_Tensor* in = FloatScalar(3);
  TF_Tensor* z = nullptr;
  TF_SessionPRun(s, handle, &feed, &in, 1, &fetches[0], &z, 1, nullptr, 0,
                 status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(FloatValue(z), 5.0f);
  TF_Tensor* w = nullptr;
  TF_SessionPRun(s, handle, nullptr, nullptr, 0, &fetches[1], &w, 1, nullptr, 0,
                 status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(FloatValue(w), 25.0f);
  TF_DeleteTensor(z);
  TF_DeleteTensor(w);
  TF_DeleteTensor(in);
  TF_DeletePRunHandle(handle);

  // Unknown handle; NULL arguments.
  TF_Tensor* out = nullptr;
  TF_SessionPRun(s, "no-such-handle", nullptr, nullptr, 0, &fetches[0], &out, 1,
                 nullptr, 0, status_.get());
  EXPECT_NE(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(out, nullptr);
  TF_SessionPRun(s, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr,
                 0, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_SessionPRunSetup(s, &feed, 1, fetches, 2, nullptr, 0, nullptr,
                      status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // Setup naming an unknown feed.
  TF_Output bad_feed{nullptr, 0};
  TF_SessionPRunSetup(s, &bad_feed, 1, fetches, 2, nullptr, 0, &handle,
                      status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(handle, nullptr);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, PartialRunSetupExtendsTheSession) {
  TF_Session* s = NewSession();
  float v = 0;
  ASSERT_EQ(RunFeedX(s, Op("x"), 1, Op("z"), &v), TF_OK);
  ASSERT_EQ(ImportText(graph_, BinaryNode("Mul", "w", "z", "z")), TF_OK);
  TF_Output feed{Op("x"), 0};
  TF_Output fetch{Op("w"), 0};
  const char* handle = nullptr;
  TF_SessionPRunSetup(s, &feed, 1, &fetch, 1, nullptr, 0, &handle,
                      status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  TF_Tensor* in = FloatScalar(1);
  TF_Tensor* w = nullptr;
  TF_SessionPRun(s, handle, &feed, &in, 1, &fetch, &w, 1, nullptr, 0,
                 status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
  EXPECT_EQ(FloatValue(w), 9.0f);
  TF_DeleteTensor(w);
  TF_DeleteTensor(in);
  TF_DeletePRunHandle(handle);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, MutatingARunOperationWarnsOncePerMutation) {
  TF_Session* ran = NewSession();
  TF_Session* fresh = nullptr;
  float v = 0;
  ASSERT_EQ(RunFeedX(ran, Op("x"), 1, Op("z"), &v), TF_OK);
  fresh = NewSession();  // Has not received anything yet.
  SetRequestedDevice(graph_, Op("z"), "/device:CPU:0");

  testing::internal::CaptureStderr();
  ASSERT_EQ(RunFeedX(fresh, Op("x"), 1, Op("z"), &v), TF_OK);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("WARNING"), std::string::npos) << err;

  testing::internal::CaptureStderr();
  ASSERT_EQ(RunFeedX(ran, Op("x"), 1, Op("z"), &v), TF_OK);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("WARNING"), std::string::npos) << err;
  EXPECT_NE(err.find("'z'"), std::string::npos) << err;
  EXPECT_NE(err.find("SetRequestedDevice"), std::string::npos) << err;

  testing::internal::CaptureStderr();
  ASSERT_EQ(RunFeedX(ran, Op("x"), 1, Op("z"), &v), TF_OK);
  err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("WARNING"), std::string::npos) << "warned twice: " << err;

  // A new mutation warns both sessions (both have received z now).
  AddControlInput(graph_, Op("z"), Op("x"));
  testing::internal::CaptureStderr();
  ASSERT_EQ(RunFeedX(fresh, Op("x"), 1, Op("z"), &v), TF_OK);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("AddControlInput"), std::string::npos) << err;
  testing::internal::CaptureStderr();
  ASSERT_EQ(RunFeedX(ran, Op("x"), 1, Op("z"), &v), TF_OK);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("AddControlInput"), std::string::npos) << err;
  DeleteSession(ran);
  DeleteSession(fresh);
}

TEST_F(CApiSessionTest, ControlInputsAddedBeforeTheFirstRunAreSent) {
  // x -> c (control) makes c wait for x; the session must see that edge.
  AddControlInput(graph_, Op("c"), Op("x"));
  TF_Session* s = NewSession();
  // Fetching c alone now needs x's value: x is an unfed placeholder.
  TF_Output out{Op("c"), 0};
  TF_Tensor* result = nullptr;
  TF_SessionRun(s, nullptr, nullptr, nullptr, 0, &out, &result, 1, nullptr, 0,
                nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT)
      << TF_Message(status_.get());
  EXPECT_EQ(result, nullptr);
  DeleteSession(s);
}

TEST_F(CApiSessionTest, CycleIsReportedBeforeExtending) {
  TF_Session* s = NewSession();
  float v = 0;
  ASSERT_EQ(RunFeedX(s, Op("x"), 1, Op("z"), &v), TF_OK);
  // c -> z exists; z -> c closes a cycle.
  AddControlInput(graph_, Op("c"), Op("z"));
  ASSERT_EQ(ImportText(graph_, BinaryNode("Mul", "w", "x", "x")), TF_OK);
  testing::internal::CaptureStderr();  // Swallow the mutation warning.
  EXPECT_EQ(RunFeedX(s, Op("x"), 1, Op("w"), &v), TF_INVALID_ARGUMENT);
  testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string(TF_Message(status_.get())).find("cycle"),
            std::string::npos)
      << TF_Message(status_.get());
  // A new session cannot start on the cyclic graph either.
  TF_Session* s2 = NewSession();
  EXPECT_EQ(RunFeedX(s2, Op("x"), 1, Op("w"), &v), TF_INVALID_ARGUMENT);
  DeleteSession(s2);
  DeleteSession(s);
}

}  // namespace
}  // namespace stepflow
