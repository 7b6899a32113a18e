// The tensor bundle (TensorFlow's checkpoint format): reading checkpoints
// TensorFlow wrote (testdata/, from testdata/make_tf_checkpoint.py),
// writing byte-identical ones, slices, merges, atomic saves, and that every
// flipped byte and every truncation of a checkpoint is DataLoss naming the
// damaged file.
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/kernels/bundle_format.h"
#include "runtime/kernels/bundle_merge.h"
#include "runtime/kernels/bundle_reader.h"
#include "runtime/kernels/bundle_writer.h"
#include "runtime/kernels/checkpoint_test_util.h"
#include "runtime/kernels/file_io.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/tensor_slice.h"

namespace stepflow {
namespace test {
namespace {

std::string Testdata(const std::string& name) {
  return absl::StrCat(getenv("TEST_SRCDIR"), "/", getenv("TEST_WORKSPACE"),
                      "/runtime/kernels/testdata/", name);
}

// Copies TensorFlow checkpoint `name` into a fresh directory; its prefix.
std::string CopyTfCheckpoint(const std::string& name) {
  const std::string dir = MakeTempDir();
  std::unique_ptr<BundleReader> probe;
  for (const std::string& file : ListDir(Dirname(Testdata(name + ".index")))) {
    if (absl::StartsWith(file, name + ".")) {
      WriteFileOrDie(dir + "/" + file, ReadFileOrDie(Testdata(file)));
    }
  }
  return dir + "/" + name;
}

absl::Status ReadAll(const std::string& prefix, std::vector<Tensor>* out) {
  std::unique_ptr<BundleReader> reader;
  absl::Status s = BundleReader::Open(prefix, &reader);
  if (!s.ok()) return s;
  for (const auto& [key, entry] : reader->entries()) {
    if (key[0] == '\0') continue;  // A slice's bytes.
    Tensor t;
    s = reader->Read(key, bundle::DefaultAllocator(), &t);
    if (!s.ok()) return s;
    if (out != nullptr) out->push_back(t);
  }
  return absl::OkStatus();
}

Tensor ReadOne(const std::string& prefix, const std::string& name) {
  std::unique_ptr<BundleReader> reader;
  absl::Status s = BundleReader::Open(prefix, &reader);
  EXPECT_TRUE(s.ok()) << s;
  Tensor t;
  if (!s.ok()) return t;
  s = reader->Read(name, bundle::DefaultAllocator(), &t);
  EXPECT_TRUE(s.ok()) << name << ": " << s;
  return t;
}

std::vector<uint16_t> Bits16(const Tensor& t) {
  std::vector<uint16_t> v(t.NumElements());
  std::memcpy(v.data(), t.raw_data(), 2 * v.size());
  return v;
}

// The tensors tf_dtypes holds, in the order TensorFlow saved them.
std::vector<std::pair<std::string, Tensor>> DtypeTensors() {
  auto bits16 = [](DataType dtype, std::vector<uint16_t> v) {
    Tensor t(dtype, TensorShape({static_cast<int64_t>(v.size())}));
    std::memcpy(t.raw_data(), v.data(), 2 * v.size());
    return t;
  };
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  return {
      {"f32", Make<float>(TensorShape({2, 3}),
                          {1.5f, -2.0f, 3.25f, 0.0f, -0.0f, 1e-30f})},
      {"f64", Vec<double>({3.141592653589793, -1e300})},
      {"f16", bits16(DT_HALF, {0x3c00, 0xc100, 0x7bff})},
      {"bf16", bits16(DT_BFLOAT16, {0x3f80, 0xc040})},
      {"i8", Vec<int8_t>({-128, 127, 5})},
      {"i16", Vec<int16_t>({-32768, 32767})},
      {"i32", Make<int32_t>(TensorShape({2, 2}), {1, -2, 3, 2147483647})},
      {"i64", Vec<int64_t>({INT64_MIN, 42})},
      {"u8", Vec<uint8_t>({0, 255, 7})},
      {"u16", Vec<uint16_t>({65535, 1})},
      {"u32", Vec<uint32_t>({4294967295u, 2})},
      {"u64", Vec<uint64_t>({UINT64_MAX, 3})},
      {"c64", Vec<c64>({c64(1, 2), c64(-3.5, -0.5)})},
      {"c128", Vec<c128>({c128(2, -1)})},
      {"bool", Vec<bool>({true, false, true})},
      {"str", Make<std::string>(TensorShape({2, 2}),
                                {"hello", "", std::string(200, 'x'),
                                 std::string("\x00\xff", 2)})},
      {"str_scalar", Scalar<std::string>("scalar")},
      {"scalar", Scalar<float>(7.0f)},
      {"empty", Tensor(DT_FLOAT, TensorShape({0, 3}))},
      {"empty_str", Tensor(DT_STRING, TensorShape({0}))},
  };
}

void ExpectSameTensor(const Tensor& got, const Tensor& want,
                      const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (want.dtype() == DT_STRING) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ(got.base<std::string>()[i], want.base<std::string>()[i])
          << what << " at " << i;
    }
    return;
  }
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), want.TotalBytes()), 0)
      << what;
}

TEST(TensorBundleTest, ReadsEveryDtypeTensorFlowWrote) {
  const std::string prefix = Testdata("tf_dtypes");
  for (const auto& [name, want] : DtypeTensors()) {
    ExpectSameTensor(ReadOne(prefix, name), want, name);
  }
  EXPECT_EQ(Bits16(ReadOne(prefix, "f16")),
            (std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff}));
}

TEST(TensorBundleTest, WritesWhatTensorFlowWritesByteForByte) {
  const std::string prefix = MakeTempDir() + "/tf_dtypes";
  BundleWriter writer(prefix, 1);
  for (const auto& [name, tensor] : DtypeTensors()) {
    ASSERT_TRUE(writer.Add(name, tensor).ok()) << name;
  }
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(ReadFileOrDie(prefix + ".data-00000-of-00001"),
            ReadFileOrDie(Testdata("tf_dtypes.data-00000-of-00001")));
  EXPECT_EQ(ReadFileOrDie(prefix + ".index"),
            ReadFileOrDie(Testdata("tf_dtypes.index")));
  EXPECT_EQ(ListDir(Dirname(prefix)),
            (std::vector<std::string>{"tf_dtypes.data-00000-of-00001",
                                      "tf_dtypes.index"}));
}

TEST(TensorBundleTest, ReadsSlicesTensorFlowWrote) {
  const std::string prefix = Testdata("tf_sliced");
  std::vector<float> all(12);
  for (int i = 0; i < 12; ++i) all[i] = static_cast<float>(i);
  ExpectTensor<float>(ReadOne(prefix, "part"), TensorShape({4, 3}), all);
  ExpectTensor<int64_t>(ReadOne(prefix, "cols"), TensorShape({2, 4}),
                        {0, 10, 20, 30, 40, 50, 60, 70});
  ExpectTensor<std::string>(ReadOne(prefix, "whole"), TensorShape({2}),
                            {"a", "bc"});

  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(prefix, &reader).ok());
  // Rows 0..1 span both stored slices; columns 2..3 of "cols" too.
  TensorShape full;
  TensorSlice slice;
  ASSERT_TRUE(
      TensorSlice::ParseShapeAndSlice("4 3 0,2:1,2", &full, &slice).ok());
  Tensor t;
  ASSERT_TRUE(
      reader->ReadSlice("part", full, slice, bundle::DefaultAllocator(), &t)
          .ok());
  ExpectTensor<float>(t, TensorShape({2, 2}), {1, 2, 4, 5});
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("2 4 -:2,2", &full, &slice).ok());
  ASSERT_TRUE(
      reader->ReadSlice("cols", full, slice, bundle::DefaultAllocator(), &t)
          .ok());
  ExpectTensor<int64_t>(t, TensorShape({2, 2}), {20, 30, 60, 70});
  // Strings: the whole tensor or a stored slice only (as in TensorFlow).
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("2 0,2", &full, &slice).ok());
  ASSERT_TRUE(
      reader->ReadSlice("whole", full, slice, bundle::DefaultAllocator(), &t)
          .ok());
  ExpectTensor<std::string>(t, TensorShape({2}), {"a", "bc"});
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("2 1,1", &full, &slice).ok());
  ExpectError(
      reader->ReadSlice("whole", full, slice, bundle::DefaultAllocator(), &t),
      absl::StatusCode::kInvalidArgument, {"Dtype string not supported"});
  // Rows 0..1 of a tensor stored as rows 0 and 1..3 are covered; a tensor
  // with a missing part is not.
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("4 3 1,3:-", &full, &slice).ok());
  ASSERT_TRUE(
      reader->ReadSlice("part", full, slice, bundle::DefaultAllocator(), &t)
          .ok());
  ExpectTensor<float>(t, TensorShape({3, 3}), {3, 4, 5, 6, 7, 8, 9, 10, 11});
  // The stated full shape must be the stored one.
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("5 3 0,1:-", &full, &slice).ok());
  EXPECT_EQ(
      reader->ReadSlice("part", full, slice, bundle::DefaultAllocator(), &t)
          .code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(TensorBundleTest, WritesSlicesAsTensorFlowDoes) {
  const std::string prefix = MakeTempDir() + "/tf_sliced";
  BundleWriter writer(prefix, 1);
  auto add = [&](const std::string& name, const std::string& spec,
                 const Tensor& t) {
    TensorShape full;
    TensorSlice slice;
    ASSERT_TRUE(TensorSlice::ParseShapeAndSlice(spec, &full, &slice).ok());
    ASSERT_TRUE(writer.AddSlice(name, full, slice, t).ok()) << spec;
  };
  add("part", "4 3 0,1:-", Make<float>(TensorShape({1, 3}), {0, 1, 2}));
  add("part", "4 3 1,3:-",
      Make<float>(TensorShape({3, 3}), {3, 4, 5, 6, 7, 8, 9, 10, 11}));
  add("cols", "2 4 -:0,3",
      Make<int64_t>(TensorShape({2, 3}), {0, 10, 20, 40, 50, 60}));
  add("cols", "2 4 -:3,1", Make<int64_t>(TensorShape({2, 1}), {30, 70}));
  ASSERT_TRUE(writer.Add("whole", Vec<std::string>({"a", "bc"})).ok());
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(ReadFileOrDie(prefix + ".index"),
            ReadFileOrDie(Testdata("tf_sliced.index")));
  EXPECT_EQ(ReadFileOrDie(prefix + ".data-00000-of-00001"),
            ReadFileOrDie(Testdata("tf_sliced.data-00000-of-00001")));
}

// Keys TensorFlow wrote for slices of a [70000] tensor named "a\0b\xc3\xbf"
// (escapes, and one- to three-byte numbers).
TEST(TensorBundleTest, SliceKeysAreTensorFlows) {
  const std::string name("a\0b\xc3\xbf", 5);
  const std::string head(
      "\x00"
      "a\x00\xff"
      "b\xc3\xbf\x00\x01\x01\x01",
      11);
  auto key = [&](const std::string& spec) {
    TensorShape full;
    TensorSlice slice;
    EXPECT_TRUE(TensorSlice::ParseShapeAndSlice(spec, &full, &slice).ok());
    return EncodeSliceKey(name, slice);
  };
  EXPECT_EQ(key("70000 100,1"), head + "\xc0\x64\x81");
  EXPECT_EQ(key("70000 8191,64"), head + "\xdf\xff\xc0\x40");
  EXPECT_EQ(key("70000 65536,2"), head + std::string("\xe1\x00\x00\x82", 4));
  EXPECT_EQ(key("70000 -"), head + "\x80\x7f");
}

TEST(TensorBundleTest, SliceErrors) {
  const std::string prefix = MakeTempDir() + "/m";
  BundleWriter writer(prefix, 1);
  TensorShape full;
  TensorSlice slice;
  EXPECT_FALSE(
      TensorSlice::ParseShapeAndSlice("4 3 0,5:-", &full, &slice).ok());
  EXPECT_FALSE(TensorSlice::ParseShapeAndSlice("4 3 0,1", &full, &slice).ok());
  EXPECT_FALSE(
      TensorSlice::ParseShapeAndSlice("4 x 0,1:-", &full, &slice).ok());
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("4 3 0,2:-", &full, &slice).ok());
  // Wrong shape for the slice.
  EXPECT_EQ(
      writer.AddSlice("p", full, slice, Tensor(DT_FLOAT, TensorShape({3, 3})))
          .code(),
      absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      writer.AddSlice("p", full, slice, Tensor(DT_FLOAT, TensorShape({2, 3})))
          .ok());
  // The same slice twice; another dtype; also saved whole.
  EXPECT_FALSE(
      writer.AddSlice("p", full, slice, Tensor(DT_FLOAT, TensorShape({2, 3})))
          .ok());
  ASSERT_TRUE(TensorSlice::ParseShapeAndSlice("4 3 2,2:-", &full, &slice).ok());
  EXPECT_FALSE(
      writer.AddSlice("p", full, slice, Tensor(DT_INT32, TensorShape({2, 3})))
          .ok());
  EXPECT_FALSE(writer.Add("p", Tensor(DT_FLOAT, TensorShape({4, 3}))).ok());
  ASSERT_TRUE(writer.Finish().ok());
  // Rows 2..3 were never saved: the full tensor is not covered.
  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(prefix, &reader).ok());
  Tensor t;
  ExpectError(reader->Read("p", bundle::DefaultAllocator(), &t),
              absl::StatusCode::kInvalidArgument,
              {"Does not have sufficient slices for partitioned tensor p"});
  EXPECT_EQ(BundleReader::Open(prefix + "_none", &reader).code(),
            absl::StatusCode::kNotFound);
}

TEST(TensorBundleTest, ReadsAShardedCheckpointTensorFlowMerged) {
  const std::string prefix = Testdata("tf_sharded");
  ExpectTensor<float>(ReadOne(prefix, "a"), TensorShape({2}), {1, 2});
  ExpectTensor<std::string>(ReadOne(prefix, "b"), TensorShape({2, 1}),
                            {"s0", "s1"});
  ExpectTensor<int64_t>(ReadOne(prefix, "c"), TensorShape({}), {3});
}

TEST(TensorBundleTest, MergesAsTensorFlowDoes) {
  const std::string dir = MakeTempDir();
  const std::string p0 = dir + "/tmp/part-00000-of-00002";
  const std::string p1 = dir + "/tmp/part-00001-of-00002";
  BundleWriter w0(p0, 1), w1(p1, 2);
  ASSERT_TRUE(w0.Add("a", Vec<float>({1, 2})).ok());
  ASSERT_TRUE(w0.Add("c", Scalar<int64_t>(3)).ok());
  ASSERT_TRUE(
      w1.Add("b", Make<std::string>(TensorShape({2, 1}), {"s0", "s1"})).ok());
  ASSERT_TRUE(w0.Finish().ok());
  ASSERT_TRUE(w1.Finish().ok());
  ASSERT_TRUE(MergeBundles({p0, p1}, dir + "/tf_sharded", true, false, 3).ok());
  EXPECT_EQ(ListDir(dir),
            (std::vector<std::string>{"tf_sharded.data-00000-of-00002",
                                      "tf_sharded.data-00001-of-00002",
                                      "tf_sharded.index"}));
  for (const char* file : {"tf_sharded.index", "tf_sharded.data-00000-of-00002",
                           "tf_sharded.data-00001-of-00002"}) {
    EXPECT_EQ(ReadFileOrDie(dir + "/" + file), ReadFileOrDie(Testdata(file)))
        << file;
  }
}

TEST(TensorBundleTest, MergeErrorsChangeNothing) {
  const std::string dir = MakeTempDir();
  BundleWriter w0(dir + "/p0", 1), w1(dir + "/p1", 2);
  ASSERT_TRUE(w0.Add("a", Vec<float>({1, 2})).ok());
  ASSERT_TRUE(w1.Add("a", Vec<float>({3})).ok());
  ASSERT_TRUE(w0.Finish().ok());
  ASSERT_TRUE(w1.Finish().ok());
  const std::vector<std::string> before = ListDir(dir);
  ExpectError(
      MergeBundles({dir + "/p0", dir + "/p1"}, dir + "/m", true, false, 3),
      absl::StatusCode::kInvalidArgument, {"Duplicate tensor keyed by a"});
  EXPECT_EQ(ListDir(dir), before);
  EXPECT_EQ(
      MergeBundles({dir + "/p0", dir + "/nope"}, dir + "/m", true, false, 3)
          .code(),
      absl::StatusCode::kNotFound);
  EXPECT_EQ(ListDir(dir), before);
  EXPECT_EQ(MergeBundles({dir + "/nope"}, dir + "/m", true, true, 3).code(),
            absl::StatusCode::kInvalidArgument);
  FlipByte(dir + "/p1.data-00000-of-00001", 0);
  ExpectError(
      MergeBundles({dir + "/p0", dir + "/p1"}, dir + "/m", true, false, 3),
      absl::StatusCode::kDataLoss, {"p1.data-00000-of-00001"});
  EXPECT_EQ(ListDir(dir), before);
  // Missing parts are skipped when allowed.
  ASSERT_TRUE(
      MergeBundles({dir + "/p0", dir + "/nope"}, dir + "/m", true, true, 3)
          .ok());
  ExpectTensor<float>(ReadOne(dir + "/m", "a"), TensorShape({2}), {1, 2});
}

TEST(TensorBundleTest, FailedSaveKeepsTheEarlierCheckpointAndStaleTempsGo) {
  const std::string dir = MakeTempDir();
  const std::string prefix = dir + "/model";
  BundleWriter first(prefix, 1);
  ASSERT_TRUE(first.Add("a", Vec<float>({1, 2})).ok());
  ASSERT_TRUE(first.Finish().ok());
  // What a save killed before its renames leaves.
  WriteFileOrDie(prefix + ".index.tmp-00000000000000aa", "partial");
  WriteFileOrDie(prefix + ".data-00000-of-00001.tmp-00000000000000aa", "x");
  WriteFileOrDie(dir + "/unrelated.tmp-00000000000000aa", "kept");
  // A save that fails at the last moment: the index's name is taken by a
  // directory, so its rename fails after the data file was written.
  // Here the earlier checkpoint's index is held open by a directory
  // standing in its way only for the second save's own prefix.
  BundleWriter second(dir + "/other", 2);
  ASSERT_TRUE(second.Add("a", Vec<float>({3})).ok());
  ASSERT_TRUE(RecursivelyCreateDir(dir + "/other.index").ok());
  EXPECT_FALSE(second.Finish().ok());
  ExpectTensor<float>(ReadOne(prefix, "a"), TensorShape({2}), {1, 2});
  EXPECT_EQ(ListDir(dir),
            (std::vector<std::string>{"model.data-00000-of-00001",
                                      "model.index", "other.index",
                                      "unrelated.tmp-00000000000000aa"}));
}

TEST(TensorBundleTest, FailedIndexRenamePutsBackTheEarlierDataFile) {
  const std::string dir = MakeTempDir();
  const std::string prefix = dir + "/model";
  BundleWriter first(prefix, 1);
  ASSERT_TRUE(first.Add("a", Vec<float>({1, 2})).ok());
  ASSERT_TRUE(first.Finish().ok());
  const std::string index = ReadFileOrDie(prefix + ".index");
  // The index's name becomes a non-empty directory: the new data file is
  // renamed into place, then the index rename fails.
  ASSERT_TRUE(DeleteFile(prefix + ".index").ok());
  ASSERT_TRUE(RecursivelyCreateDir(prefix + ".index/x").ok());
  BundleWriter second(prefix, 2);
  ASSERT_TRUE(second.Add("a", Vec<float>({3, 4})).ok());
  EXPECT_FALSE(second.Finish().ok());
  ASSERT_TRUE(DeleteEmptyDir(prefix + ".index/x").ok());
  ASSERT_TRUE(DeleteEmptyDir(prefix + ".index").ok());
  WriteFileOrDie(prefix + ".index", index);
  ExpectTensor<float>(ReadOne(prefix, "a"), TensorShape({2}), {1, 2});
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"model.data-00000-of-00001",
                                                    "model.index"}));
}

// Flips every byte, then truncates at every length, of each file of the
// checkpoint at `prefix`: reading everything must be DataLoss naming the
// damaged file, every time.
void ExpectEveryDamageIsDataLoss(const std::string& prefix) {
  const std::string dir = Dirname(prefix);
  for (const std::string& name : ListDir(dir)) {
    const std::string path = dir + "/" + name;
    const std::string good = ReadFileOrDie(path);
    for (size_t i = 0; i < good.size(); ++i) {
      FlipByte(path, i);
      absl::Status s = ReadAll(prefix, nullptr);
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss)
          << name << " byte " << i << ": " << s;
      EXPECT_TRUE(absl::StrContains(s.message(), path)) << s;
      WriteFileOrDie(path, good);
    }
    for (size_t n = 0; n < good.size(); ++n) {
      TruncateFile(path, n);
      absl::Status s = ReadAll(prefix, nullptr);
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss)
          << name << " length " << n << ": " << s;
      EXPECT_TRUE(absl::StrContains(s.message(), path)) << s;
      WriteFileOrDie(path, good);
    }
    ASSERT_TRUE(ReadAll(prefix, nullptr).ok());
  }
}

TEST(TensorBundleTest, EveryFlippedByteAndTruncationIsDataLoss) {
  ExpectEveryDamageIsDataLoss(CopyTfCheckpoint("tf_dtypes"));
  ExpectEveryDamageIsDataLoss(CopyTfCheckpoint("tf_sliced"));
  ExpectEveryDamageIsDataLoss(CopyTfCheckpoint("tf_sharded"));
}

}  // namespace
}  // namespace test
}  // namespace stepflow
