// TF_LoadSessionFromSavedModel: the session runs the restored model, the
// TF_Graph holds the same graph (later additions extend the session), the
// MetaGraphDef comes back, and bad arguments or SavedModels fail cleanly
// without touching the graph.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/meta_graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"
#include "runtime/kernels/checkpoint_test_util.h"
#include "runtime/saved_model/saved_model_test_util.h"

namespace stepflow {
namespace {

using c_api_test::NewStatus;

class SavedModelCApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(test::MakeTempDir(), "/export");
    ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
    graph_ = TF_NewGraph();
    opts_ = TF_NewSessionOptions();
  }
  void TearDown() override {
    TF_DeleteSessionOptions(opts_);
    TF_DeleteGraph(graph_);
  }

  TF_Session* Load(const std::vector<const char*>& tags, TF_Status* status,
                   TF_Buffer* meta = nullptr) {
    return TF_LoadSessionFromSavedModel(
        opts_, nullptr, dir_.c_str(), tags.data(),
        static_cast<int>(tags.size()), graph_, meta, status);
  }

  std::string dir_;
  TF_Graph* graph_ = nullptr;
  TF_SessionOptions* opts_ = nullptr;
};

TEST_F(SavedModelCApiTest, LoadsRunsAndReturnsTheMetaGraph) {
  auto status = NewStatus();
  TF_Buffer* meta = TF_NewBuffer();
  TF_Session* session = Load({"serve"}, status.get(), meta);
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  ASSERT_NE(session, nullptr);

  MetaGraphDef meta_graph;
  ASSERT_TRUE(
      meta_graph.ParseFromArray(meta->data, static_cast<int>(meta->length)));
  EXPECT_EQ(
      meta_graph.signature_def().at("serving_default").outputs().at("y").name(),
      "y:0");
  TF_DeleteBuffer(meta);

  TF_Operation* x = TF_GraphOperationByName(graph_, "x");
  TF_Operation* y = TF_GraphOperationByName(graph_, "y");
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  const int64_t dims[] = {2};
  TF_Tensor* x_value = TF_AllocateTensor(TF_FLOAT, dims, 1, 2 * sizeof(float));
  const float xs[] = {1, 2};
  std::memcpy(TF_TensorData(x_value), xs, sizeof(xs));
  TF_Output feed{x, 0};
  TF_Output fetch{y, 0};
  TF_Tensor* y_value = nullptr;
  TF_SessionRun(session, nullptr, &feed, &x_value, 1, &fetch, &y_value, 1,
                nullptr, 0, nullptr, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  const float* ys = static_cast<const float*>(TF_TensorData(y_value));
  EXPECT_EQ(ys[0], 11);
  EXPECT_EQ(ys[1], 22);
  TF_DeleteTensor(x_value);
  TF_DeleteTensor(y_value);

  // An operation added to the graph afterwards reaches the session.
  ASSERT_EQ(
      c_api_test::ImportText(graph_,
                             "node { name: 'z' op: 'Identity' input: 'y' "
                             "attr { key: 'T' value { type: DT_FLOAT } } }"),
      TF_OK);
  TF_Output z{TF_GraphOperationByName(graph_, "z"), 0};
  x_value = TF_AllocateTensor(TF_FLOAT, dims, 1, 2 * sizeof(float));
  std::memcpy(TF_TensorData(x_value), xs, sizeof(xs));
  TF_Tensor* z_value = nullptr;
  TF_SessionRun(session, nullptr, &feed, &x_value, 1, &z, &z_value, 1, nullptr,
                0, nullptr, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(static_cast<const float*>(TF_TensorData(z_value))[1], 22);
  TF_DeleteTensor(x_value);
  TF_DeleteTensor(z_value);

  TF_CloseSession(session, status.get());
  TF_DeleteSession(session, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
}

TEST_F(SavedModelCApiTest, UnknownTagsAreNotFoundAndLeaveTheGraphEmpty) {
  auto status = NewStatus();
  EXPECT_EQ(Load({"train"}, status.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_NOT_FOUND);
  EXPECT_NE(std::string(TF_Message(status.get())).find("{ serve }"),
            std::string::npos)
      << TF_Message(status.get());
  EXPECT_EQ(TF_GraphNumOperations(graph_), 0);
}

TEST_F(SavedModelCApiTest, MissingDirectoryIsNotFound) {
  auto status = NewStatus();
  dir_ += "/nope";
  EXPECT_EQ(Load({"serve"}, status.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_NOT_FOUND);
}

TEST_F(SavedModelCApiTest, NonEmptyGraphAndBadArgumentsAreInvalidArgument) {
  auto status = NewStatus();
  const char* tags[] = {"serve"};
  EXPECT_EQ(TF_LoadSessionFromSavedModel(opts_, nullptr, nullptr, tags, 1,
                                         graph_, nullptr, status.get()),
            nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_Buffer* bad = TF_NewBufferFromString("\xff\xff", 2);
  EXPECT_EQ(TF_LoadSessionFromSavedModel(opts_, bad, dir_.c_str(), tags, 1,
                                         graph_, nullptr, status.get()),
            nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_DeleteBuffer(bad);

  ASSERT_EQ(c_api_test::ImportText(graph_, "node { name: 'c' op: 'NoOp' }"),
            TF_OK);
  EXPECT_EQ(Load({"serve"}, status.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_GraphNumOperations(graph_), 1);
}

}  // namespace
}  // namespace stepflow
