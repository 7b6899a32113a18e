// SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename and
// ShardedFilespec kernels: round trips, input validation, and the error
// codes TensorFlow uses, each naming the node.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/checkpoint_test_util.h"
#include "runtime/kernels/file_io.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace test {
namespace {

Tensor Strings(const std::vector<std::string>& v) {
  return Vec<std::string>(v);
}
Tensor Str(const std::string& s) { return Scalar<std::string>(s); }

NodeDef SaveNode(const std::vector<DataType>& dtypes) {
  return TestNode("save/SaveV2", "SaveV2")
      .Inputs(3 + static_cast<int>(dtypes.size()))
      .Attr("dtypes", dtypes);
}

NodeDef RestoreNode(const std::vector<DataType>& dtypes) {
  return TestNode("save/RestoreV2", "RestoreV2")
      .Inputs(3)
      .Attr("dtypes", dtypes);
}

class SaveRestoreOpsTest : public ::testing::Test {
 protected:
  void SetUp() override { prefix_ = MakeTempDir() + "/model"; }

  absl::Status SaveThree() {
    std::vector<Tensor> out;
    return RunKernel(
        SaveNode({DT_FLOAT, DT_INT64, DT_STRING}),
        {Str(prefix_), Strings({"w", "step", "words"}), Strings({"", "", ""}),
         Make<float>(TensorShape({2, 2}), {1.5f, -2, 0, 3}),
         Scalar<int64_t>(12), Strings({"a", "bc"})},
        &out);
  }

  std::string prefix_;
};

TEST_F(SaveRestoreOpsTest, SaveThenRestore) {
  ASSERT_TRUE(SaveThree().ok());
  std::vector<Tensor> out;
  absl::Status s = RunKernel(
      RestoreNode({DT_STRING, DT_FLOAT, DT_INT64}),
      {Str(prefix_), Strings({"words", "w", "step"}), Strings({"", "", ""})},
      &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 3u);
  ExpectTensor<std::string>(out[0], TensorShape({2}), {"a", "bc"});
  ExpectTensor<float>(out[1], TensorShape({2, 2}), {1.5f, -2, 0, 3});
  ExpectTensor<int64_t>(out[2], TensorShape({}), {12});
}

TEST_F(SaveRestoreOpsTest, RestoreASubsetAndTheSameTensorTwice) {
  ASSERT_TRUE(SaveThree().ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunKernel(RestoreNode({DT_INT64, DT_INT64}),
                {Str(prefix_), Strings({"step", "step"}), Strings({"", ""})},
                &out)
          .ok());
  ExpectTensor<int64_t>(out[0], TensorShape({}), {12});
  ExpectTensor<int64_t>(out[1], TensorShape({}), {12});
}

TEST_F(SaveRestoreOpsTest, PrefixAsOneElementVectorIsAccepted) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(SaveNode({DT_INT32}),
                        {Strings({prefix_}), Strings({"x"}), Strings({""}),
                         Scalar<int32_t>(3)},
                        &out)
                  .ok());
  ASSERT_TRUE(RunKernel(RestoreNode({DT_INT32}),
                        {Strings({prefix_}), Strings({"x"}), Strings({""})},
                        &out)
                  .ok());
  ExpectTensor<int32_t>(out[0], TensorShape({}), {3});
}

// SaveV2 with shape_and_slices saves parts of one tensor (a partitioned
// variable); RestoreV2 assembles the whole or any slice of it.
TEST_F(SaveRestoreOpsTest, SavesAndRestoresSlices) {
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunKernel(SaveNode({DT_FLOAT, DT_FLOAT}),
                {Str(prefix_), Strings({"w", "w"}), Strings({"4 0,2", "4 2,2"}),
                 Vec<float>({1, 2}), Vec<float>({3, 4})},
                &out)
          .ok());
  ASSERT_TRUE(
      RunKernel(RestoreNode({DT_FLOAT, DT_FLOAT}),
                {Str(prefix_), Strings({"w", "w"}), Strings({"", "4 1,2"})},
                &out)
          .ok());
  ExpectTensor<float>(out[0], TensorShape({4}), {1, 2, 3, 4});
  ExpectTensor<float>(out[1], TensorShape({2}), {2, 3});
  ExpectError(RunKernel(SaveNode({DT_FLOAT}),
                        {Str(prefix_ + "2"), Strings({"w"}), Strings({"4 0,3"}),
                         Vec<float>({1, 2})},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"{{node save/SaveV2}}", "does not match the shape"});
  ExpectError(RunKernel(SaveNode({DT_FLOAT}),
                        {Str(prefix_ + "2"), Strings({"w"}),
                         Strings({"4 0,2:-"}), Vec<float>({1, 2})},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"{{node save/SaveV2}}", "Invalid shape_and_slice"});
}

// RestoreV2 reads a slice of a whole saved tensor, as TensorFlow does.
TEST_F(SaveRestoreOpsTest, RestoresSlices) {
  ASSERT_TRUE(SaveThree().ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(RestoreNode({DT_FLOAT, DT_FLOAT}),
                        {Str(prefix_), Strings({"w", "w"}),
                         Strings({"2 2 0,1:-", "2 2 -:1,1"})},
                        &out)
                  .ok());
  ExpectTensor<float>(out[0], TensorShape({1, 2}), {1.5f, -2});
  ExpectTensor<float>(out[1], TensorShape({2, 1}), {-2, 3});
  ExpectError(
      RunKernel(RestoreNode({DT_FLOAT}),
                {Str(prefix_), Strings({"w"}), Strings({"3 2 0,1:-"})}, &out),
      absl::StatusCode::kInvalidArgument,
      {"{{node save/RestoreV2}}", "does not match the shape stored"});
  ExpectError(
      RunKernel(RestoreNode({DT_FLOAT}),
                {Str(prefix_), Strings({"w"}), Strings({"2 2 1,2:-"})}, &out),
      absl::StatusCode::kInvalidArgument,
      {"{{node save/RestoreV2}}", "Invalid shape_and_slice"});
}

TEST_F(SaveRestoreOpsTest, SaveInputValidation) {
  std::vector<Tensor> out;
  ExpectError(
      RunKernel(SaveNode({DT_FLOAT}),
                {Strings({"a", "b"}), Strings({"w"}), Strings({""}),
                 Scalar<float>(1)},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"prefix should have a single element, got 2", "{{node save/SaveV2}}"});
  ExpectError(
      RunKernel(SaveNode({DT_FLOAT}),
                {Str(prefix_), Str("w"), Strings({""}), Scalar<float>(1)},
                &out),
      absl::StatusCode::kInvalidArgument, {"1-D", "{{node save/SaveV2}}"});
  ExpectError(RunKernel(SaveNode({DT_FLOAT}),
                        {Str(prefix_), Strings({"w"}), Strings({"", ""}),
                         Scalar<float>(1)},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"different number of elements: 1 vs. 2"});
  ExpectError(RunKernel(SaveNode({DT_FLOAT}),
                        {Str(prefix_), Strings({"w", "v"}), Strings({"", ""}),
                         Scalar<float>(1)},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"Got 2 tensor names but 1 tensors"});
  ExpectError(RunKernel(SaveNode({DT_FLOAT, DT_FLOAT}),
                        {Str(prefix_), Strings({"w", "w"}), Strings({"", ""}),
                         Scalar<float>(1), Scalar<float>(2)},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"Duplicate", "'w'", "{{node save/SaveV2}}"});
  EXPECT_TRUE(ListDir(Dirname(prefix_)).empty());
}

TEST_F(SaveRestoreOpsTest, RestoreErrors) {
  std::vector<Tensor> out;
  ExpectError(RunKernel(RestoreNode({DT_FLOAT}),
                        {Str(prefix_), Strings({"w"}), Strings({""})}, &out),
              absl::StatusCode::kNotFound,
              {"Failed to find any matching files for", prefix_,
               "{{node save/RestoreV2}}"});
  ASSERT_TRUE(SaveThree().ok());
  ExpectError(RunKernel(RestoreNode({DT_FLOAT, DT_FLOAT}),
                        {Str(prefix_), Strings({"w", "missing_var"}),
                         Strings({"", ""})},
                        &out),
              absl::StatusCode::kNotFound,
              {"Key missing_var not found", "{{node save/RestoreV2}}"});
  ExpectError(RunKernel(RestoreNode({DT_DOUBLE}),
                        {Str(prefix_), Strings({"w"}), Strings({""})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"tensor_name = w; expected dtype double does not equal "
               "restored dtype float",
               "{{node save/RestoreV2}}"});
  ExpectError(
      RunKernel(RestoreNode({DT_FLOAT}),
                {Str(prefix_), Strings({"w", "step"}), Strings({"", ""})},
                &out),
      absl::StatusCode::kInvalidArgument,
      {"Got 2 tensor names but 1 expected dtypes"});
}

TEST_F(SaveRestoreOpsTest, CorruptCheckpointIsDataLossNamingNodeAndFile) {
  ASSERT_TRUE(SaveThree().ok());
  const std::string path = prefix_ + ".data-00000-of-00001";
  FlipByte(path, 3);  // Inside the float tensor's bytes.
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(RestoreNode({DT_FLOAT, DT_INT64, DT_STRING})).ok());
  absl::Status s = runner.Run(
      {Str(prefix_), Strings({"w", "step", "words"}), Strings({"", "", ""})});
  ExpectError(s, absl::StatusCode::kDataLoss,
              {"checksum mismatch", path, "{{node save/RestoreV2}}"});
  const std::string index = prefix_ + ".index";
  TruncateFile(index, ReadFileOrDie(index).size() / 2);
  s = runner.Run(
      {Str(prefix_), Strings({"w", "step", "words"}), Strings({"", "", ""})});
  ExpectError(s, absl::StatusCode::kDataLoss,
              {index, "{{node save/RestoreV2}}"});
}

TEST_F(SaveRestoreOpsTest, ResaveWithTheSameKernelReplacesTheCheckpoint) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(SaveNode({DT_FLOAT})).ok());
  for (float v : {1.0f, 2.0f, 3.0f}) {
    ASSERT_TRUE(runner
                    .Run({Str(prefix_), Strings({"v"}), Strings({""}),
                          Scalar<float>(v)})
                    .ok());
  }
  std::vector<Tensor> out;
  ASSERT_TRUE(RunKernel(RestoreNode({DT_FLOAT}),
                        {Str(prefix_), Strings({"v"}), Strings({""})}, &out)
                  .ok());
  ExpectTensor<float>(out[0], TensorShape({}), {3.0f});
  EXPECT_EQ(
      ListDir(Dirname(prefix_)),
      (std::vector<std::string>{"model.data-00000-of-00001", "model.index"}));
}

TEST_F(SaveRestoreOpsTest, MergeV2Checkpoints) {
  const std::string tmp = prefix_ + "_temp_0123/part";
  std::vector<Tensor> out;
  for (int shard = 0; shard < 2; ++shard) {
    ASSERT_TRUE(
        RunKernel(SaveNode({DT_INT32}),
                  {Str(tmp + "-0000" + std::to_string(shard) + "-of-00002"),
                   Strings({"v" + std::to_string(shard)}), Strings({""}),
                   Scalar<int32_t>(shard + 10)},
                  &out)
            .ok());
  }
  NodeDef merge =
      TestNode("save/MergeV2Checkpoints", "MergeV2Checkpoints").Inputs(2);
  ASSERT_TRUE(
      RunKernel(merge,
                {Strings({tmp + "-00000-of-00002", tmp + "-00001-of-00002"}),
                 Str(prefix_)},
                &out)
          .ok());
  EXPECT_EQ(
      ListDir(Dirname(prefix_)),
      (std::vector<std::string>{"model.data-00000-of-00002",
                                "model.data-00001-of-00002", "model.index"}));
  ASSERT_TRUE(
      RunKernel(RestoreNode({DT_INT32, DT_INT32}),
                {Str(prefix_), Strings({"v0", "v1"}), Strings({"", ""})}, &out)
          .ok());
  ExpectTensor<int32_t>(out[0], TensorShape({}), {10});
  ExpectTensor<int32_t>(out[1], TensorShape({}), {11});

  // Missing sources: InvalidArgument by default (as in TensorFlow), skipped
  // with allow_missing_files.
  ExpectError(RunKernel(merge,
                        {Strings({prefix_, prefix_ + "_gone"}),
                         Str(prefix_ + "_merged")},
                        &out),
              absl::StatusCode::kInvalidArgument,
              {"_gone", "{{node save/MergeV2Checkpoints}}"});
  NodeDef lenient = merge;
  AddNodeAttr("allow_missing_files", true, &lenient);
  ASSERT_TRUE(RunKernel(lenient,
                        {Strings({prefix_, prefix_ + "_gone"}),
                         Str(prefix_ + "_merged")},
                        &out)
                  .ok());
  EXPECT_EQ(ListDir(Dirname(prefix_)),
            (std::vector<std::string>{"model_merged.data-00000-of-00002",
                                      "model_merged.data-00001-of-00002",
                                      "model_merged.index"}));
  ExpectError(RunKernel(merge, {Strings({prefix_}), Strings({prefix_})}, &out),
              absl::StatusCode::kInvalidArgument,
              {"destination_prefix should be a scalar"});
}

TEST_F(SaveRestoreOpsTest, MergeKeepsOldDirsWhenTold) {
  const std::string shard = prefix_ + "_temp/part-00000-of-00001";
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunKernel(SaveNode({DT_INT32}),
                {Str(shard), Strings({"v"}), Strings({""}), Scalar<int32_t>(1)},
                &out)
          .ok());
  NodeDef merge = TestNode("m", "MergeV2Checkpoints")
                      .Inputs(2)
                      .Attr("delete_old_dirs", false);
  ASSERT_TRUE(RunKernel(merge, {Strings({shard}), Str(prefix_)}, &out).ok());
  EXPECT_EQ(ListDir(Dirname(prefix_)),
            (std::vector<std::string>{"model.data-00000-of-00001",
                                      "model.index", "model_temp"}));
}

TEST(ShardedFilenameTest, Formats) {
  std::vector<Tensor> out;
  NodeDef def = TestNode("sf", "ShardedFilename").Inputs(3);
  ASSERT_TRUE(RunKernel(def,
                        {Str("/d/model_temp_x/part"), Scalar<int32_t>(3),
                         Scalar<int32_t>(12)},
                        &out)
                  .ok());
  ExpectTensor<std::string>(out[0], TensorShape({}),
                            {"/d/model_temp_x/part-00003-of-00012"});
  ASSERT_TRUE(
      RunKernel(def,
                {Str("m"), Scalar<int32_t>(123456), Scalar<int32_t>(123457)},
                &out)
          .ok());
  ExpectTensor<std::string>(out[0], TensorShape({}), {"m-123456-of-123457"});
  ExpectError(
      RunKernel(def, {Str("m"), Vec<int32_t>({0}), Scalar<int32_t>(2)}, &out),
      absl::StatusCode::kInvalidArgument,
      {"shard must be a scalar", "{{node sf}}"});

  NodeDef spec = TestNode("spec", "ShardedFilespec").Inputs(2);
  ASSERT_TRUE(RunKernel(spec, {Str("m"), Scalar<int32_t>(2)}, &out).ok());
  ExpectTensor<std::string>(out[0], TensorShape({}),
                            {"m-?????"
                             "-of-00002"});
  ExpectError(RunKernel(spec, {Strings({"a", "b"}), Scalar<int32_t>(2)}, &out),
              absl::StatusCode::kInvalidArgument,
              {"basename must be a scalar", "{{node spec}}"});
}

}  // namespace
}  // namespace test
}  // namespace stepflow
