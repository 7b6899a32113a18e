// The zoo's SavedModels, written by TensorFlow (a TF1 SavedModelBuilder model
// and a TF2 tf.saved_model.save module, committed under
// testing/tf_goldens/zoo), through the two entry points the oracle does not
// use: the C API's TF_LoadSessionFromSavedModel (its signature read from the
// MetaGraphDef it returns) and `run_graph --saved_model`. Both must give the
// values TensorFlow computed (expected/), under the oracle's tolerances. The
// third entry point, the C++ LoadSavedModel, is the oracle's own
// (//testing/tf_models:zoo_golden_test).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/meta_graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/framework/tensor.h"
#include "testing/test_tmpdir.h"
#include "testing/tf_oracle/compare.h"
#include "testing/tf_oracle/oracle_case.h"

namespace stepflow {
namespace {

std::string Runfile(const std::string& path) {
  return absl::StrCat(getenv("TEST_SRCDIR"), "/", getenv("TEST_WORKSPACE"), "/",
                      path);
}

struct ZooSavedModel {
  oracle::LoadedCase c;
  oracle::CaseOutcome expected;
  std::string export_dir;
};

void LoadZooCase(const std::string& name, ZooSavedModel* out) {
  const std::string dir = Runfile("testing/tf_goldens/zoo/" + name);
  ASSERT_TRUE(oracle::LoadCase(dir, &out->c).ok()) << dir;
  ASSERT_TRUE(oracle::LoadOutcome(dir + "/expected", &out->expected).ok());
  ASSERT_EQ(out->expected.steps.size(), 1u);
  ASSERT_EQ(out->c.spec.fetches_size(), 1);
  ASSERT_EQ(out->c.feeds.size(), 1u);
  ASSERT_EQ(out->c.feeds[0].second.dtype(), DT_FLOAT);
  out->export_dir = dir + "/" + out->c.spec.saved_model();
}

// A TF_Tensor holding a copy of a float tensor.
TF_Tensor* ToTF(const Tensor& t) {
  std::vector<int64_t> dims(t.shape().dim_sizes().begin(),
                            t.shape().dim_sizes().end());
  TF_Tensor* out = TF_AllocateTensor(
      TF_FLOAT, dims.data(), static_cast<int>(dims.size()), t.TotalBytes());
  std::memcpy(TF_TensorData(out), t.raw_data(), t.TotalBytes());
  return out;
}

Tensor FromTF(const TF_Tensor* t) {
  std::vector<int64_t> dims;
  for (int d = 0; d < TF_NumDims(t); ++d) dims.push_back(TF_Dim(t, d));
  Tensor out(DT_FLOAT, TensorShape(dims));
  std::memcpy(out.raw_data(), TF_TensorData(t), out.TotalBytes());
  return out;
}

// "name:index" of a signature's TensorInfo as a TF_Output of `graph`.
TF_Output ResolveOutput(TF_Graph* graph, const std::string& tensor_name) {
  const size_t colon = tensor_name.rfind(':');
  const std::string op = tensor_name.substr(0, colon);
  const int index = colon == std::string::npos
                        ? 0
                        : std::atoi(tensor_name.c_str() + colon + 1);
  return TF_Output{TF_GraphOperationByName(graph, op.c_str()), index};
}

void RunThroughCApi(const std::string& name) {
  ZooSavedModel m;
  LoadZooCase(name, &m);
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Buffer* meta = TF_NewBuffer();
  std::vector<const char*> tags;
  for (const std::string& t : m.c.spec.tags()) tags.push_back(t.c_str());
  TF_Session* session = TF_LoadSessionFromSavedModel(
      opts, nullptr, m.export_dir.c_str(), tags.data(),
      static_cast<int>(tags.size()), graph, meta, status);
  ASSERT_EQ(TF_GetCode(status), TF_OK) << TF_Message(status);

  MetaGraphDef meta_graph;
  ASSERT_TRUE(
      meta_graph.ParseFromArray(meta->data, static_cast<int>(meta->length)));
  const auto sig = meta_graph.signature_def().find(m.c.spec.signature());
  ASSERT_NE(sig, meta_graph.signature_def().end());
  const auto in = sig->second.inputs().find(m.c.feeds[0].first);
  const auto out = sig->second.outputs().find(m.c.spec.fetches(0));
  ASSERT_NE(in, sig->second.inputs().end());
  ASSERT_NE(out, sig->second.outputs().end());
  TF_Output feed = ResolveOutput(graph, in->second.name());
  TF_Output fetch = ResolveOutput(graph, out->second.name());
  ASSERT_NE(feed.oper, nullptr) << in->second.name();
  ASSERT_NE(fetch.oper, nullptr) << out->second.name();

  TF_Tensor* feed_value = ToTF(m.c.feeds[0].second);
  TF_Tensor* fetched = nullptr;
  TF_SessionRun(session, nullptr, &feed, &feed_value, 1, &fetch, &fetched, 1,
                nullptr, 0, nullptr, status);
  ASSERT_EQ(TF_GetCode(status), TF_OK) << TF_Message(status);
  ASSERT_EQ(TF_TensorType(fetched), TF_FLOAT);
  const absl::Status match =
      oracle::CompareTensors(m.expected.steps[0][0], FromTF(fetched), m.c.graph,
                             name + " through the C API");
  EXPECT_TRUE(match.ok()) << match;

  TF_DeleteTensor(feed_value);
  TF_DeleteTensor(fetched);
  TF_CloseSession(session, status);
  TF_DeleteSession(session, status);
  TF_DeleteBuffer(meta);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
}

void RunThroughRunGraph(const std::string& name) {
  ZooSavedModel m;
  LoadZooCase(name, &m);
  const std::string out_dir = test::TestTmpPath(name);
  const std::string feed_file = absl::StrCat(
      Runfile("testing/tf_goldens/zoo/" + name), "/", m.c.spec.feeds(0).file());
  std::string tags;
  for (const std::string& t : m.c.spec.tags()) {
    absl::StrAppend(&tags, tags.empty() ? "" : ",", t);
  }
  const std::string cmd = absl::StrCat(
      Runfile("runtime/bin/run_graph"), " --saved_model=", m.export_dir,
      " --tags=", tags, " --signature=", m.c.spec.signature(),
      " --fetch=", m.c.spec.fetches(0), " --output_dir=", out_dir, " ",
      m.c.feeds[0].first, "=@", feed_file, " 2>&1");
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) output.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << cmd << "\n" << output;

  Tensor got;
  const std::string got_file =
      absl::StrCat(out_dir, "/", m.c.spec.fetches(0), "_0.npy");
  ASSERT_TRUE(oracle::ReadTensorFile(got_file, &got).ok()) << output;
  const absl::Status match = oracle::CompareTensors(
      m.expected.steps[0][0], got, m.c.graph, name + " through run_graph");
  EXPECT_TRUE(match.ok()) << match;
}

TEST(SavedModelEntryPointsTest, Tf1SavedModelThroughTheCApi) {
  RunThroughCApi("tf1_saved_model");
}

TEST(SavedModelEntryPointsTest, Tf2SavedModelThroughTheCApi) {
  RunThroughCApi("tf2_saved_model");
}

TEST(SavedModelEntryPointsTest, Tf1SavedModelThroughRunGraph) {
  RunThroughRunGraph("tf1_saved_model");
}

TEST(SavedModelEntryPointsTest, Tf2SavedModelThroughRunGraph) {
  RunThroughRunGraph("tf2_saved_model");
}

}  // namespace
}  // namespace stepflow
