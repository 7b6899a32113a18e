// V1 checkpoint tables: slices written and read back (whole, partial, across
// two files of a pattern), and every damaged or missing input a clear
// status, never a crash.
#include "runtime/kernels/tensor_slice_table.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/checkpoint_test_util.h"

namespace stepflow {
namespace {

Tensor Iota(const TensorShape& shape, float start) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = start + i;
  return t;
}

TensorSlice Parse(const std::string& spec, TensorShape* shape) {
  TensorSlice slice;
  EXPECT_TRUE(TensorSlice::ParseShapeAndSlice(spec, shape, &slice).ok());
  return slice;
}

// Rows 0..1 of a [4, 3] tensor in `a`, rows 2..3 in `b` (values 0..11).
void WriteHalves(const std::string& a, const std::string& b) {
  TensorShape shape;
  TensorSliceTableWriter first, second;
  ASSERT_TRUE(first
                  .Add("t", TensorShape({4, 3}), Parse("4 3 0,2:-", &shape),
                       Iota(TensorShape({2, 3}), 0))
                  .ok());
  ASSERT_TRUE(second
                  .Add("t", TensorShape({4, 3}), Parse("4 3 2,2:-", &shape),
                       Iota(TensorShape({2, 3}), 6))
                  .ok());
  ASSERT_TRUE(first.Write(a, 1).ok());
  ASSERT_TRUE(second.Write(b, 2).ok());
}

TEST(TensorSliceTableTest, AssemblesSlicesAcrossFiles) {
  const std::string dir = test::MakeTempDir();
  WriteHalves(absl::StrCat(dir, "/ckpt-0"), absl::StrCat(dir, "/ckpt-1"));
  std::unique_ptr<TensorSliceTableReader> reader;
  ASSERT_TRUE(
      TensorSliceTableReader::Open(absl::StrCat(dir, "/ckpt-?"), &reader).ok());
  DataType dtype;
  TensorShape shape;
  ASSERT_TRUE(reader->Lookup("t", &dtype, &shape).ok());
  EXPECT_EQ(dtype, DT_FLOAT);
  EXPECT_EQ(shape, TensorShape({4, 3}));
  Tensor whole(DT_FLOAT, shape);
  ASSERT_TRUE(reader->ReadSlice("t", TensorSlice::Full(2), &whole).ok());
  for (int i = 0; i < 12; ++i) EXPECT_EQ(whole.flat<float>()(i), i);
  TensorShape full;
  const TensorSlice middle = Parse("4 3 1,2:1,2", &full);
  Tensor part(DT_FLOAT, middle.SliceShape(full));
  ASSERT_TRUE(reader->ReadSlice("t", middle, &part).ok());
  EXPECT_EQ(part.flat<float>()(0), 4);
  EXPECT_EQ(part.flat<float>()(3), 8);
  EXPECT_EQ(reader->Lookup("u", &dtype, &shape).code(),
            absl::StatusCode::kNotFound);
}

TEST(TensorSliceTableTest, UncoveredSliceIsInvalidArgument) {
  const std::string dir = test::MakeTempDir();
  WriteHalves(absl::StrCat(dir, "/ckpt-0"), absl::StrCat(dir, "/other"));
  std::unique_ptr<TensorSliceTableReader> reader;
  ASSERT_TRUE(
      TensorSliceTableReader::Open(absl::StrCat(dir, "/ckpt-0"), &reader).ok());
  Tensor whole(DT_FLOAT, TensorShape({4, 3}));
  EXPECT_EQ(reader->ReadSlice("t", TensorSlice::Full(2), &whole).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorSliceTableTest, MissingAndDamagedFiles) {
  const std::string dir = test::MakeTempDir();
  std::unique_ptr<TensorSliceTableReader> reader;
  EXPECT_EQ(
      TensorSliceTableReader::Open(absl::StrCat(dir, "/none*"), &reader).code(),
      absl::StatusCode::kNotFound);
  const std::string a = absl::StrCat(dir, "/a");
  WriteHalves(a, absl::StrCat(dir, "/b"));
  const std::string bytes = test::ReadFileOrDie(a);
  for (uint64_t offset = 0; offset < bytes.size(); offset += 7) {
    test::WriteFileOrDie(a, bytes);
    test::FlipByte(a, offset);
    absl::Status s = TensorSliceTableReader::Open(a, &reader);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
      continue;
    }
    Tensor whole(DT_FLOAT, TensorShape({4, 3}));
    reader->ReadSlice("t", TensorSlice::Full(2), &whole).IgnoreError();
  }
  test::WriteFileOrDie(a, bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(TensorSliceTableReader::Open(a, &reader).code(),
            absl::StatusCode::kDataLoss);
}

TEST(TensorSliceTableTest, SameSliceTwiceIsInvalidArgument) {
  TensorSliceTableWriter writer;
  const Tensor t = Iota(TensorShape({2}), 0);
  ASSERT_TRUE(writer.Add("t", t.shape(), TensorSlice::Full(1), t).ok());
  EXPECT_EQ(writer.Add("t", t.shape(), TensorSlice::Full(1), t).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.Add("t", TensorShape({3}), TensorSlice::Full(1), t).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
