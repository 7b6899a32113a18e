// The checkpoint file format: bit-exact round trips of every savable dtype,
// error codes for missing files/tensors, detection of every single-byte
// corruption and every truncation, atomic replacement, and merging.
#include "runtime/kernels/checkpoint_format.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/kernels/checkpoint_test_util.h"
#include "runtime/kernels/crc32c.h"
#include "runtime/kernels/file_io.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace checkpoint {
namespace {

using test::ExpectError;
using test::MakeTempDir;
using test::ReadFileOrDie;

// Bytes with a pattern that exercises every bit position.
Tensor PatternTensor(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  if (dtype == DT_BOOL) {
    for (int64_t i = 0; i < t.NumElements(); ++i)
      t.base<bool>()[i] = i % 3 == 1;
  } else {
    auto* bytes = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) {
      bytes[i] = static_cast<unsigned char>(i * 73 + 11);
    }
  }
  return t;
}

// Equal dtype, shape and element bytes (strings by value).
void ExpectIdentical(const Tensor& a, const Tensor& b,
                     const std::string& what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      EXPECT_EQ(a.base<std::string>()[i], b.base<std::string>()[i])
          << what << "[" << i << "]";
    }
  } else {
    ASSERT_EQ(a.TotalBytes(), b.TotalBytes()) << what;
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()), 0)
        << what;
  }
}

absl::Status Save(const std::string& prefix,
                  const std::map<std::string, Tensor>& tensors,
                  uint64_t id = 1) {
  CheckpointWriter w(prefix, id);
  for (const auto& [name, t] : tensors) {
    absl::Status s = w.Add(name, t);
    if (!s.ok()) return s;
  }
  return w.Finish();
}

// Opens `prefix` and reads every tensor; the first error.
absl::Status ReadAll(const std::string& prefix,
                     std::map<std::string, Tensor>* out) {
  std::unique_ptr<CheckpointReader> r;
  absl::Status s = CheckpointReader::Open(prefix, &r);
  if (!s.ok()) return s;
  for (const auto& entry : r->entries()) {
    Tensor t;
    s = r->Read(entry.first, &t);
    if (!s.ok()) return s;
    (*out)[entry.first] = t;
  }
  return absl::OkStatus();
}

std::map<std::string, Tensor> SmallSet() {
  return {
      {"bias", Tensor::Scalar<float>(0.25f)},
      {"step", Tensor::Scalar<int64_t>(42)},
      {"vocab", Tensor::Vector<std::string>({"a", "", "ccc"})},
      {"weights", test::Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6})}};
}

class CheckpointFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  std::string Prefix(const std::string& name = "model") const {
    return dir_ + "/" + name;
  }
  std::string dir_;
};

TEST_F(CheckpointFormatTest, RoundTripsEveryDtypeBitExactly) {
  std::map<std::string, Tensor> saved;
  const std::vector<DataType> pods = {
      DT_FLOAT, DT_DOUBLE, DT_INT8,     DT_INT16,     DT_INT32,
      DT_INT64, DT_UINT8,  DT_UINT16,   DT_UINT32,    DT_UINT64,
      DT_BOOL,  DT_HALF,   DT_BFLOAT16, DT_COMPLEX64, DT_COMPLEX128};
  for (DataType dt : pods) {
    const std::string n = DataTypeString(dt);
    saved[n + "/scalar"] = PatternTensor(dt, TensorShape({}));
    saved[n + "/matrix"] = PatternTensor(dt, TensorShape({3, 5}));
    saved[n + "/empty"] = PatternTensor(dt, TensorShape({0}));
    saved[n + "/empty2"] = PatternTensor(dt, TensorShape({4, 0, 2}));
  }
  // Floats whose bits must survive: NaN with a payload, -0, denormal, inf.
  Tensor special(DT_FLOAT, TensorShape({4}));
  const uint32_t bits[4] = {0x7FC12345u, 0x80000000u, 0x00000001u, 0xFF800000u};
  std::memcpy(special.raw_data(), bits, sizeof(bits));
  saved["float/special"] = special;
  Tensor strings(DT_STRING, TensorShape({2, 2}));
  strings.base<std::string>()[0] = "";
  strings.base<std::string>()[1] = std::string("nul\0inside", 10);
  strings.base<std::string>()[2] = std::string(1000, '\xFE');
  strings.base<std::string>()[3] = "utf-8 \xC3\xA9";
  saved["string/matrix"] = strings;
  saved["string/scalar"] = Tensor::Scalar<std::string>("model");
  saved["string/empty"] = Tensor(DT_STRING, TensorShape({0, 3}));
  saved[""] = Tensor::Scalar<int32_t>(-1);  // The empty name is a name.
  saved
      ["a name/with:odd\xFF"
       "chars"] = Tensor::Scalar<uint8_t>(9);

  ASSERT_TRUE(Save(Prefix(), saved).ok());
  std::map<std::string, Tensor> restored;
  absl::Status s = ReadAll(Prefix(), &restored);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(restored.size(), saved.size());
  for (const auto& [name, t] : saved) ExpectIdentical(restored[name], t, name);

  std::unique_ptr<CheckpointReader> r;
  ASSERT_TRUE(CheckpointReader::Open(Prefix(), &r).ok());
  const EntryInfo* info = nullptr;
  ASSERT_TRUE(r->Lookup("int16/matrix", &info).ok());
  EXPECT_EQ(info->dtype, DT_INT16);
  EXPECT_EQ(info->shape, TensorShape({3, 5}));
  EXPECT_EQ(info->length, 30u);
  EXPECT_EQ(r->path(), Prefix() + ".sfckpt");
}

TEST_F(CheckpointFormatTest, EmptyCheckpoint) {
  ASSERT_TRUE(Save(Prefix(), {}).ok());
  std::unique_ptr<CheckpointReader> r;
  ASSERT_TRUE(CheckpointReader::Open(Prefix(), &r).ok());
  EXPECT_TRUE(r->entries().empty());
  EXPECT_EQ(ReadFileOrDie(Prefix() + ".sfckpt").size(),
            kHeaderSize + 8 + kFooterSize);
}

TEST_F(CheckpointFormatTest, SameContentGivesSameBytes) {
  ASSERT_TRUE(Save(Prefix("a"), SmallSet(), 1).ok());
  ASSERT_TRUE(Save(Prefix("b"), SmallSet(), 2).ok());
  EXPECT_EQ(ReadFileOrDie(Prefix("a") + ".sfckpt"),
            ReadFileOrDie(Prefix("b") + ".sfckpt"));
}

TEST_F(CheckpointFormatTest, LayoutMatchesTheDocumentation) {
  ASSERT_TRUE(
      Save(Prefix(), {{"x", Tensor::Scalar<int32_t>(0x01020304)}}).ok());
  const std::string f = ReadFileOrDie(Prefix() + ".sfckpt");
  ASSERT_EQ(f.size(), 16u + 4u + (8 + 4 + 1 + 4 + 4 + 8 + 8 + 4) + 32u);
  EXPECT_EQ(f.substr(0, 8), std::string("\x89SFCKPT\n", 8));
  EXPECT_EQ(f.substr(8, 4), std::string("\x01\0\0\0", 4));  // Version 1.
  EXPECT_EQ(f.substr(16, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(f.substr(f.size() - 8), std::string("\x89SFEND\r\n", 8));
  uint32_t header_crc;
  std::memcpy(&header_crc, f.data() + 12, 4);
  EXPECT_EQ(header_crc, crc32c::Value(f.data(), 12));
}

TEST_F(CheckpointFormatTest, MissingFileIsNotFoundNamingThePrefix) {
  std::unique_ptr<CheckpointReader> r;
  ExpectError(CheckpointReader::Open(Prefix("nope"), &r),
              absl::StatusCode::kNotFound,
              {"Failed to find any matching files for", Prefix("nope")});
}

TEST_F(CheckpointFormatTest, MissingTensorIsNotFoundNamingIt) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  std::unique_ptr<CheckpointReader> r;
  ASSERT_TRUE(CheckpointReader::Open(Prefix(), &r).ok());
  Tensor t;
  ExpectError(r->Read("no_such_var", &t), absl::StatusCode::kNotFound,
              {"Key no_such_var not found", Prefix()});
  EXPECT_FALSE(r->Contains("no_such_var"));
  EXPECT_TRUE(r->Contains("bias"));
}

TEST_F(CheckpointFormatTest, WriterRejectsBadInput) {
  CheckpointWriter w(Prefix(), 1);
  ASSERT_TRUE(w.Add("x", Tensor::Scalar<float>(1)).ok());
  ExpectError(w.Add("x", Tensor::Scalar<float>(2)),
              absl::StatusCode::kInvalidArgument, {"Duplicate", "'x'"});
  ExpectError(w.Add("h", Tensor(DT_RESOURCE, TensorShape({}))),
              absl::StatusCode::kInvalidArgument, {"'h'", "resource"});
  ExpectError(w.Add("u", Tensor()), absl::StatusCode::kInvalidArgument,
              {"uninitialized", "'u'"});
  ASSERT_TRUE(w.Finish().ok());
  ExpectError(w.Finish(), absl::StatusCode::kFailedPrecondition, {});
}

TEST_F(CheckpointFormatTest, WriterCreatesMissingDirectories) {
  const std::string prefix = dir_ + "/run_temp_1/part-00000-of-00001";
  ASSERT_TRUE(Save(prefix, SmallSet()).ok());
  std::map<std::string, Tensor> restored;
  ASSERT_TRUE(ReadAll(prefix, &restored).ok());
  EXPECT_EQ(restored.size(), 4u);
}

// Every single-byte corruption anywhere in the file is DataLoss when the
// checkpoint is opened or a tensor read, never a wrong value.
TEST_F(CheckpointFormatTest, EveryFlippedByteIsDataLoss) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  const std::string path = Prefix() + ".sfckpt";
  const std::string good = ReadFileOrDie(path);
  for (size_t offset = 0; offset < good.size(); ++offset) {
    std::string bad = good;
    bad[offset] = static_cast<char>(bad[offset] ^ 0x01);
    test::WriteFileOrDie(path, bad);
    std::map<std::string, Tensor> restored;
    absl::Status s = ReadAll(Prefix(), &restored);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss)
        << "flip at " << offset << " of " << good.size() << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), path)) << s;
  }
}

TEST_F(CheckpointFormatTest, EveryTruncationIsDataLoss) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  const std::string path = Prefix() + ".sfckpt";
  const std::string good = ReadFileOrDie(path);
  for (size_t size = 0; size < good.size(); ++size) {
    test::WriteFileOrDie(path, good.substr(0, size));
    std::unique_ptr<CheckpointReader> r;
    absl::Status s = CheckpointReader::Open(Prefix(), &r);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss)
        << "truncated to " << size << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), path)) << s;
  }
}

TEST_F(CheckpointFormatTest, CorruptionMessagesSayWhatIsWrong) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  const std::string path = Prefix() + ".sfckpt";
  const std::string good = ReadFileOrDie(path);
  std::unique_ptr<CheckpointReader> r;

  test::FlipByte(path, 1);  // Header magic.
  ExpectError(CheckpointReader::Open(Prefix(), &r), absl::StatusCode::kDataLoss,
              {"bad magic", path});

  test::WriteFileOrDie(path, good);
  test::FlipByte(path, 16);  // First payload byte (tensor "bias").
  ASSERT_TRUE(CheckpointReader::Open(Prefix(), &r).ok());
  Tensor t;
  ExpectError(r->Read("bias", &t), absl::StatusCode::kDataLoss,
              {"checksum mismatch", "'bias'", path});
  EXPECT_TRUE(r->Read("step", &t).ok());  // Other tensors are intact.

  test::WriteFileOrDie(path, good);
  test::TruncateFile(path, good.size() - 1);
  ExpectError(CheckpointReader::Open(Prefix(), &r), absl::StatusCode::kDataLoss,
              {"truncated", path});

  test::WriteFileOrDie(path, good.substr(0, 20));
  ExpectError(CheckpointReader::Open(Prefix(), &r), absl::StatusCode::kDataLoss,
              {"truncated", "20 bytes", path});

  test::WriteFileOrDie(path, good + "trailing garbage");
  ExpectError(CheckpointReader::Open(Prefix(), &r), absl::StatusCode::kDataLoss,
              {"footer", path});

  test::WriteFileOrDie(path, "");
  ExpectError(CheckpointReader::Open(Prefix(), &r), absl::StatusCode::kDataLoss,
              {"truncated", path});
}

TEST_F(CheckpointFormatTest, NewerVersionIsInvalidArgument) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  const std::string path = Prefix() + ".sfckpt";
  std::string f = ReadFileOrDie(path);
  f[8] = 2;  // Version 2, with a matching header checksum.
  const uint32_t crc = crc32c::Value(f.data(), 12);
  std::memcpy(&f[12], &crc, 4);
  test::WriteFileOrDie(path, f);
  std::unique_ptr<CheckpointReader> r;
  ExpectError(CheckpointReader::Open(Prefix(), &r),
              absl::StatusCode::kInvalidArgument, {"version 2", path});
}

// A structurally inconsistent file whose checksums were all recomputed (a
// buggy or hostile writer) is still refused, not trusted.
TEST_F(CheckpointFormatTest, InconsistentTableWithValidChecksumsIsDataLoss) {
  ASSERT_TRUE(Save(Prefix(), {{"b", Tensor::Scalar<bool>(true)}}).ok());
  const std::string path = Prefix() + ".sfckpt";
  const std::string good = ReadFileOrDie(path);
  // Payload byte 16 holds the bool; the table follows at 17.
  auto reseal = [](std::string f) {
    const size_t footer = f.size() - kFooterSize;
    uint64_t table_offset;
    std::memcpy(&table_offset, &f[footer], 8);
    const uint32_t table_crc =
        crc32c::Value(f.data() + table_offset, footer - table_offset);
    std::memcpy(&f[footer + 16], &table_crc, 4);
    const uint32_t footer_crc = crc32c::Value(f.data() + footer, 20);
    std::memcpy(&f[footer + 20], &footer_crc, 4);
    return f;
  };
  // The bool byte 2 with a matching payload checksum.
  {
    std::string f = good;
    f[16] = 2;
    const uint32_t payload_crc = crc32c::Value(f.data() + 16, 1);
    const size_t crc_at = f.size() - kFooterSize - 4;  // Last entry field.
    std::memcpy(&f[crc_at], &payload_crc, 4);
    test::WriteFileOrDie(path, reseal(f));
    std::unique_ptr<CheckpointReader> r;
    ASSERT_TRUE(CheckpointReader::Open(Prefix(), &r).ok());
    Tensor t;
    ExpectError(r->Read("b", &t), absl::StatusCode::kDataLoss, {"bool"});
  }
  // The entry's length field claims 2 bytes for a bool scalar.
  {
    std::string f = good;
    const size_t length_at = f.size() - kFooterSize - 4 - 8;
    f[length_at] = 2;
    test::WriteFileOrDie(path, reseal(f));
    std::unique_ptr<CheckpointReader> r;
    ExpectError(CheckpointReader::Open(Prefix(), &r),
                absl::StatusCode::kDataLoss, {"'b'"});
  }
  // A huge dimension.
  {
    std::string f = good;
    // Table: count(8) name_len(4) "b"(1) dtype(4) rank(4): rank 0 -> 1 is
    // not representable in place, so instead make the dtype string.
    const size_t dtype_at = 17 + 8 + 4 + 1;
    f[dtype_at] = static_cast<char>(DT_STRING);
    test::WriteFileOrDie(path, reseal(f));
    std::unique_ptr<CheckpointReader> r;
    ExpectError(CheckpointReader::Open(Prefix(), &r),
                absl::StatusCode::kDataLoss, {"'b'", "inconsistent"});
  }
}

// Atomicity: an interrupted save never produces a restorable half-written
// checkpoint, and never damages the previous one.
TEST_F(CheckpointFormatTest, StaleTemporaryFileIsIgnored) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  const std::string path = Prefix() + ".sfckpt";
  const std::string good = ReadFileOrDie(path);
  // A save that died half-way: its temporary file holds a prefix of a file.
  test::WriteFileOrDie(TempFilePath(path, 99), good.substr(0, good.size() / 2));
  std::map<std::string, Tensor> restored;
  ASSERT_TRUE(ReadAll(Prefix(), &restored).ok());
  ExpectIdentical(restored["weights"], SmallSet()["weights"], "weights");
  // With no committed checkpoint the stale temporary is not found at all.
  ASSERT_TRUE(DeleteFile(path).ok());
  std::unique_ptr<CheckpointReader> r;
  ExpectError(CheckpointReader::Open(Prefix(), &r), absl::StatusCode::kNotFound,
              {Prefix()});
}

// Saves killed before their rename leave temporaries (13 kills left
// 3.8 GB): the next save in the directory removes them, whatever their
// prefix, and keeps those of saves still running.
TEST_F(CheckpointFormatTest, SaveRemovesStaleTemporariesOfDeadSaves) {
  const std::string path = Prefix() + ".sfckpt";
  test::WriteFileOrDie(TempFilePath(path, 99), std::string(4096, 'p'));
  test::WriteFileOrDie(TempFilePath(Prefix("model-100") + ".sfckpt", 5), "p");
  // A save in progress (its writer holds the temporary locked).
  std::unique_ptr<AtomicFileWriter> running;
  ASSERT_TRUE(
      AtomicFileWriter::Create(Prefix("model-200") + ".sfckpt", 7, &running)
          .ok());
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  EXPECT_EQ(test::ListDir(dir_),
            (std::vector<std::string>{"model-200.sfckpt.tmp-0000000000000007",
                                      "model.sfckpt"}));
  std::map<std::string, Tensor> restored;
  ASSERT_TRUE(ReadAll(Prefix(), &restored).ok());
  ExpectIdentical(restored["weights"], SmallSet()["weights"], "weights");
  ASSERT_TRUE(running->Commit().ok());
  EXPECT_EQ(test::ListDir(dir_),
            (std::vector<std::string>{"model-200.sfckpt", "model.sfckpt"}));
}

TEST_F(CheckpointFormatTest, FailedRenameKeepsNoPartialCheckpoint) {
  // The destination is occupied by a directory, so the final rename fails.
  ASSERT_TRUE(RecursivelyCreateDir(Prefix() + ".sfckpt/blocker").ok());
  absl::Status s = Save(Prefix(), SmallSet());
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "rename")) << s;
  // No temporary file is left behind, and nothing restorable exists.
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"model.sfckpt"});
  std::unique_ptr<CheckpointReader> r;
  EXPECT_FALSE(CheckpointReader::Open(Prefix(), &r).ok());
}

TEST_F(CheckpointFormatTest, OverwriteReplacesWholeCheckpoint) {
  ASSERT_TRUE(Save(Prefix(), SmallSet()).ok());
  ASSERT_TRUE(Save(Prefix(), {{"only", Tensor::Scalar<double>(2.5)}}, 2).ok());
  std::map<std::string, Tensor> restored;
  ASSERT_TRUE(ReadAll(Prefix(), &restored).ok());
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_EQ(restored["only"].scalar<double>(), 2.5);
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"model.sfckpt"});
}

// --- Merge -------------------------------------------------------------------

TEST_F(CheckpointFormatTest, MergeShardsAndCleanUp) {
  const std::string tmp = dir_ + "/model_temp_abc/part";
  const std::string s0 = tmp + "-00000-of-00002";
  const std::string s1 = tmp + "-00001-of-00002";
  ASSERT_TRUE(Save(s0, {{"a", Tensor::Scalar<float>(1)}}).ok());
  ASSERT_TRUE(Save(s1, {{"b", Tensor::Vector<std::string>({"x"})}}).ok());
  ASSERT_TRUE(MergeCheckpoints({s0, s1}, Prefix(), /*delete_old_dirs=*/true,
                               /*allow_missing_files=*/false, 5)
                  .ok());
  std::map<std::string, Tensor> restored;
  ASSERT_TRUE(ReadAll(Prefix(), &restored).ok());
  ASSERT_EQ(restored.size(), 2u);
  EXPECT_EQ(restored["a"].scalar<float>(), 1.0f);
  EXPECT_EQ(restored["b"].base<std::string>()[0], "x");
  // Sources and their temporary directory are gone.
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"model.sfckpt"});
}

TEST_F(CheckpointFormatTest, MergeKeepsDirectoriesWhenAsked) {
  const std::string s0 = dir_ + "/tmpdir/part-00000-of-00001";
  ASSERT_TRUE(Save(s0, {{"a", Tensor::Scalar<float>(1)}}).ok());
  ASSERT_TRUE(MergeCheckpoints({s0}, Prefix(), false, false, 5).ok());
  EXPECT_EQ(test::ListDir(dir_),
            (std::vector<std::string>{"model.sfckpt", "tmpdir"}));
  EXPECT_TRUE(test::ListDir(dir_ + "/tmpdir").empty());
}

TEST_F(CheckpointFormatTest, MergeIntoOneOfTheSources) {
  ASSERT_TRUE(Save(Prefix("x"), {{"a", Tensor::Scalar<float>(1)}}).ok());
  ASSERT_TRUE(Save(Prefix("y"), {{"b", Tensor::Scalar<float>(2)}}).ok());
  ASSERT_TRUE(
      MergeCheckpoints({Prefix("x"), Prefix("y")}, Prefix("x"), true, false, 5)
          .ok());
  std::map<std::string, Tensor> restored;
  ASSERT_TRUE(ReadAll(Prefix("x"), &restored).ok());
  EXPECT_EQ(restored.size(), 2u);
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"x.sfckpt"});
}

TEST_F(CheckpointFormatTest, MergeErrors) {
  ASSERT_TRUE(Save(Prefix("x"), {{"a", Tensor::Scalar<float>(1)}}).ok());
  ASSERT_TRUE(Save(Prefix("y"), {{"a", Tensor::Scalar<float>(2)}}).ok());
  ExpectError(
      MergeCheckpoints({Prefix("x"), Prefix("y")}, Prefix(), true, false, 5),
      absl::StatusCode::kInvalidArgument,
      {"Duplicate tensor keyed by a", Prefix("y")});
  ExpectError(
      MergeCheckpoints({Prefix("x"), Prefix("gone")}, Prefix(), true, false, 5),
      absl::StatusCode::kNotFound, {Prefix("gone")});
  ExpectError(MergeCheckpoints({Prefix("gone")}, Prefix(), true, true, 5),
              absl::StatusCode::kInvalidArgument, {"none of the 1"});
  // Nothing was written or deleted by the failed merges.
  EXPECT_EQ(test::ListDir(dir_),
            (std::vector<std::string>{"x.sfckpt", "y.sfckpt"}));
  // allow_missing_files skips the missing one.
  ASSERT_TRUE(
      MergeCheckpoints({Prefix("x"), Prefix("gone")}, Prefix(), true, true, 5)
          .ok());
  EXPECT_EQ(test::ListDir(dir_),
            (std::vector<std::string>{"model.sfckpt", "y.sfckpt"}));
}

TEST_F(CheckpointFormatTest, MergeOfCorruptSourceIsDataLossAndChangesNothing) {
  ASSERT_TRUE(Save(Prefix("x"), {{"a", Tensor::Scalar<float>(1)}}).ok());
  test::FlipByte(Prefix("x") + ".sfckpt", 17);  // The payload.
  ExpectError(MergeCheckpoints({Prefix("x")}, Prefix(), true, false, 5),
              absl::StatusCode::kDataLoss, {"checksum mismatch", "'a'"});
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"x.sfckpt"});
}

}  // namespace
}  // namespace checkpoint
}  // namespace stepflow
