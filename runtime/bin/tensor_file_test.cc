#include "runtime/bin/tensor_file.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "proto/tensor.pb.h"
#include "runtime/framework/npy.h"
#include "runtime/framework/tensor_util.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

using test::TestTmpDir;

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)),
                     std::istreambuf_iterator<char>());
}

TEST(TensorFileTest, FetchFileStemsAreOneToOne) {
  EXPECT_EQ(FetchFileStem("x"), "x_0");
  EXPECT_EQ(FetchFileStem("x:0"), "x_0");  // the same tensor
  EXPECT_EQ(FetchFileStem("x:1"), "x_1");
  EXPECT_EQ(FetchFileStem("x_1"), "x_1_0");
  EXPECT_EQ(FetchFileStem("scope/y"), "scope+y_0");
  EXPECT_EQ(FetchFileStem("scope__y"), "scope__y_0");
  EXPECT_EQ(FetchFileStem("a.b-c/d:12"), "a.b-c+d_12");
  // Not a TensorFlow name, still a safe and distinct file name.
  EXPECT_EQ(FetchFileStem("a b+c"), "a%20b%2Bc_0");
}

TEST(TensorFileTest, WritesNpyAndTensorProtoForWhatNpyCannotHold) {
  std::string path;
  const Tensor floats = Tensor::Vector<float>({1.5f, -2});
  ASSERT_TRUE(WriteFetchFile(TestTmpDir(), "scope/y:1", floats, &path).ok());
  EXPECT_EQ(path, TestTmpDir() + "/scope+y_1.npy");
  Tensor back;
  ASSERT_TRUE(DecodeNpy(ReadAll(path), &back).ok());
  EXPECT_TRUE(TensorsEqual(back, floats));
  Tensor read;
  ASSERT_TRUE(ReadTensorFile(path, &read).ok());
  EXPECT_TRUE(TensorsEqual(read, floats));

  Tensor bf(DT_BFLOAT16, TensorShape({2}));
  bf.flat<bfloat16>()(0) = bfloat16(1.0f);
  bf.flat<bfloat16>()(1) = bfloat16(-3.0f);
  ASSERT_TRUE(WriteFetchFile(TestTmpDir(), "h", bf, &path).ok());
  EXPECT_EQ(path, TestTmpDir() + "/h_0.pb");
  TensorProto proto;
  ASSERT_TRUE(proto.ParseFromString(ReadAll(path)));
  ASSERT_TRUE(TensorFromProto(proto, &back).ok());
  EXPECT_TRUE(TensorsEqual(back, bf));
  ASSERT_TRUE(ReadTensorFile(path, &read).ok());
  EXPECT_TRUE(TensorsEqual(read, bf));

  EXPECT_EQ(WriteFetchFile("/no_such_dir_xyz", "x", floats, &path).code(),
            absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace stepflow
