// LoadSavedModel on SavedModels written by this runtime's own save ops
// (saved_model_test_util.h): tag selection, binary and text files, the
// three ways of naming the init op, assets, a SavedModel without
// variables, and the errors for missing, corrupt or mismatched input.
#include "runtime/saved_model/loader.h"

#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/env/real/real_env.h"
#include "runtime/kernels/checkpoint_test_util.h"
#include "runtime/saved_model/reader.h"
#include "runtime/saved_model/saved_model_test_util.h"
#include "runtime/saved_model/signature.h"

namespace stepflow {
namespace {

using test::TestSavedModelOptions;
using InitOp = TestSavedModelOptions::InitOp;

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = RealEnv::Create(1);
    options_.env = env_->env();
    dir_ = absl::StrCat(test::MakeTempDir(), "/export");
  }

  absl::Status Load(const std::unordered_set<std::string>& tags = {"serve"}) {
    return LoadSavedModel(options_, RunOptions(), dir_, tags, &bundle_);
  }

  // Runs serving_default with x = [1, 2]; fetches y, local and asset.
  absl::Status RunServing(std::vector<Tensor>* out) {
    const SignatureDef* sig;
    absl::Status s =
        FindSignature(bundle_.meta_graph_def, "serving_default", &sig);
    if (!s.ok()) return s;
    Tensor x(DT_FLOAT, TensorShape({2}));
    x.flat<float>()(0) = 1;
    x.flat<float>()(1) = 2;
    return bundle_.session->Run(
        {{sig->inputs().at("x").name(), x}},
        {sig->outputs().at("y").name(), sig->outputs().at("local").name(),
         sig->outputs().at("asset").name()},
        {}, out);
  }

  void ExpectServes() {
    std::vector<Tensor> out;
    ASSERT_TRUE(RunServing(&out).ok()) << RunServing(&out);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].flat<float>()(0), 11);
    EXPECT_EQ(out[0].flat<float>()(1), 22);
    EXPECT_EQ(out[1].scalar<float>(), 5);
    EXPECT_EQ(out[2].scalar<std::string>(),
              absl::StrCat(dir_, "/assets/vocab.txt"));
  }

  std::unique_ptr<RealEnv> env_;
  SessionOptions options_;
  std::string dir_;
  SavedModelBundle bundle_;
};

TEST_F(LoaderTest, RestoresVariablesRunsInitOpAndFeedsAssets) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  ASSERT_TRUE(Load().ok()) << Load();
  EXPECT_EQ(bundle_.GetSignatures().count("serving_default"), 1u);
  ExpectServes();
}

TEST_F(LoaderTest, ReadsTextSavedModel) {
  TestSavedModelOptions o;
  o.text = true;
  o.assets_in_collection = true;
  ASSERT_TRUE(test::WriteTestSavedModel(dir_, o).ok());
  ASSERT_TRUE(Load().ok()) << Load();
  ExpectServes();
}

TEST_F(LoaderTest, InitOpFromEachSource) {
  for (InitOp init : {InitOp::kMainOpCollection, InitOp::kSignature,
                      InitOp::kLegacyInitOpCollection}) {
    dir_ = absl::StrCat(test::MakeTempDir(), "/export");
    TestSavedModelOptions o;
    o.init_op = init;
    ASSERT_TRUE(test::WriteTestSavedModel(dir_, o).ok());
    ASSERT_TRUE(Load().ok()) << Load();
    ExpectServes();
  }
}

TEST_F(LoaderTest, AssetsFromCollection) {
  TestSavedModelOptions o;
  o.assets_in_collection = true;
  ASSERT_TRUE(test::WriteTestSavedModel(dir_, o).ok());
  ASSERT_TRUE(Load().ok()) << Load();
  ExpectServes();
}

TEST_F(LoaderTest, PicksTheMetaGraphWhoseTagSetMatches) {
  TestSavedModelOptions o;
  o.tag_sets = {{"train"}, {"serve", "gpu"}, {"serve"}};
  ASSERT_TRUE(test::WriteTestSavedModel(dir_, o).ok());
  ASSERT_TRUE(Load({"gpu", "serve"}).ok());
  EXPECT_EQ(bundle_.meta_graph_def.meta_info_def().meta_graph_version(),
            "serve,gpu");
  ASSERT_TRUE(Load({"serve"}).ok());
  EXPECT_EQ(bundle_.meta_graph_def.meta_info_def().meta_graph_version(),
            "serve");
  ExpectServes();

  absl::Status s = Load({"serve", "tpu"});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "{ serve tpu }")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "{ train }, { gpu serve }, "
                                "{ serve }"))
      << s;
  EXPECT_EQ(bundle_.session, nullptr);
}

TEST_F(LoaderTest, WithoutVariablesNothingIsRestored) {
  TestSavedModelOptions o;
  o.with_variables = false;
  ASSERT_TRUE(test::WriteTestSavedModel(dir_, o).ok());
  ASSERT_TRUE(Load().ok()) << Load();
  // w was never restored, so y cannot be computed.
  std::vector<Tensor> out;
  absl::Status s = RunServing(&out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
}

TEST_F(LoaderTest, MissingDirectoryIsNotFound) {
  absl::Status s = Load();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), dir_)) << s;
  EXPECT_FALSE(MaybeSavedModelDirectory(dir_));
}

TEST_F(LoaderTest, CorruptFilesAreDataLossNamingTheFile) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  EXPECT_TRUE(MaybeSavedModelDirectory(dir_));
  const std::string pb = absl::StrCat(dir_, "/saved_model.pb");
  test::WriteFileOrDie(pb, "\x12\xff\xff garbage");
  absl::Status s = Load();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), pb)) << s;

  std::remove(pb.c_str());
  const std::string pbtxt = absl::StrCat(dir_, "/saved_model.pbtxt");
  test::WriteFileOrDie(pbtxt, "meta_graphs { graph_def { node { name: ");
  s = Load();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), pbtxt)) << s;
}

TEST_F(LoaderTest, TextToleratesUnknownFields) {
  mkdir(dir_.c_str(), 0755);
  test::WriteFileOrDie(
      absl::StrCat(dir_, "/saved_model.pbtxt"),
      "saved_model_schema_version: 1\n"
      "meta_graphs { meta_info_def { tags: 'serve' some_new_field: 3 }\n"
      "  object_graph_def { nodes { } } }\n");
  ASSERT_TRUE(Load().ok()) << Load();
}

TEST_F(LoaderTest, CorruptCheckpointFailsTheRestore) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  test::WriteFileOrDie(absl::StrCat(dir_, "/variables/variables.index"),
                       "not a table");
  absl::Status s = Load();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "restoring the variables")) << s;
  EXPECT_EQ(bundle_.session, nullptr);
}

TEST_F(LoaderTest, MissingSignatureNamesTheKnownOnes) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  ASSERT_TRUE(Load().ok());
  const SignatureDef* sig;
  absl::Status s = FindSignature(bundle_.meta_graph_def, "predict", &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "__saved_model_init_op, serving_default") ||
              absl::StrContains(s.message(), "serving_default"))
      << s;
  ASSERT_TRUE(
      FindSignature(bundle_.meta_graph_def, "serving_default", &sig).ok());
  TensorInfo info;
  s = SignatureInputTensor(*sig, "serving_default", "z", &info);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "inputs are: x")) << s;
  ASSERT_TRUE(SignatureOutputTensor(*sig, "serving_default", "y", &info).ok());
  EXPECT_EQ(info.name(), "y:0");
}

TEST_F(LoaderTest, DirectoryWithoutSavedModelFileIsNotFoundNamingIt) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  const std::string pb = absl::StrCat(dir_, "/saved_model.pb");
  std::remove(pb.c_str());
  absl::Status s = Load();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "SavedModel .pb or .pbtxt")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), dir_)) << s;
  EXPECT_EQ(bundle_.session, nullptr);
}

TEST_F(LoaderTest, MissingVariablesFailTheRestoreNamingTheFile) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  // The data shard gone: the index still lists w, whose bytes are missing.
  const std::string data =
      absl::StrCat(dir_, "/variables/variables.data-00000-of-00001");
  std::remove(data.c_str());
  absl::Status s = Load();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "restoring the variables")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "variables.data-00000-of-00001"))
      << s;
  EXPECT_EQ(bundle_.session, nullptr);
  // The whole checkpoint gone: as in TensorFlow, a SavedModel without a
  // variables index restores nothing, and a run that reads the variable
  // is FailedPrecondition naming it.
  const std::string index = absl::StrCat(dir_, "/variables/variables.index");
  std::remove(index.c_str());
  ASSERT_TRUE(Load().ok()) << Load();
  std::vector<Tensor> out;
  s = RunServing(&out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "w")) << s;
}

TEST_F(LoaderTest, NullEnvIsInvalidArgument) {
  ASSERT_TRUE(test::WriteTestSavedModel(dir_).ok());
  options_.env = nullptr;
  EXPECT_EQ(Load().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
