// File helpers: atomic commit/abandon, rename failure, errno mapping,
// short reads, directories.
#include "runtime/kernels/file_io.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/checkpoint_test_util.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace test {
namespace {

TEST(FileIoTest, Dirname) {
  EXPECT_EQ(Dirname("a/b/c"), "a/b");
  EXPECT_EQ(Dirname("c"), ".");
  EXPECT_EQ(Dirname("/c"), "/");
  EXPECT_EQ(Dirname("/x/y_temp/part-00000-of-00001"), "/x/y_temp");
}

TEST(FileIoTest, TempFilePathIsDeterministic) {
  EXPECT_EQ(TempFilePath("/d/model.sfckpt", 0xabc),
            "/d/model.sfckpt.tmp-0000000000000abc");
}

TEST(FileIoTest, CommitPublishesAndLeavesNoTemporary) {
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/f";
  std::unique_ptr<AtomicFileWriter> w;
  ASSERT_TRUE(AtomicFileWriter::Create(path, 7, &w).ok());
  ASSERT_TRUE(w->Append("hello ").ok());
  ASSERT_TRUE(w->Append("world").ok());
  EXPECT_EQ(w->size(), 11u);
  EXPECT_FALSE(FileExists(path));  // Not visible before Commit.
  EXPECT_TRUE(FileExists(w->temp_path()));
  ASSERT_TRUE(w->Commit().ok());
  w.reset();
  EXPECT_EQ(ReadFileOrDie(path), "hello world");
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"f"});
}

TEST(FileIoTest, AbandonedWriterDeletesTemporaryAndKeepsOldFile) {
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/f";
  WriteFileOrDie(path, "old");
  {
    std::unique_ptr<AtomicFileWriter> w;
    ASSERT_TRUE(AtomicFileWriter::Create(path, 1, &w).ok());
    ASSERT_TRUE(w->Append("new, but never committed").ok());
  }
  EXPECT_EQ(ReadFileOrDie(path), "old");
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"f"});
}

TEST(FileIoTest, FailedRenameReportsAndCleansUp) {
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/target";
  ASSERT_TRUE(RecursivelyCreateDir(path + "/occupied").ok());
  std::unique_ptr<AtomicFileWriter> w;
  ASSERT_TRUE(AtomicFileWriter::Create(path, 2, &w).ok());
  ASSERT_TRUE(w->Append("data").ok());
  absl::Status s = w->Commit();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rename"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find(path), absl::string_view::npos) << s;
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"target"});
  EXPECT_FALSE(w->Commit().ok());  // Unusable afterwards.
}

TEST(FileIoTest, CreateInMissingDirectoryIsNotFound) {
  const std::string dir = MakeTempDir();
  std::unique_ptr<AtomicFileWriter> w;
  ExpectError(AtomicFileWriter::Create(dir + "/no/such/f", 1, &w),
              absl::StatusCode::kNotFound, {"no/such/f"});
}

TEST(FileIoTest, RecursivelyCreateDir) {
  const std::string dir = MakeTempDir();
  ASSERT_TRUE(RecursivelyCreateDir(dir + "/a/b/c").ok());
  ASSERT_TRUE(RecursivelyCreateDir(dir + "/a/b/c").ok());  // Idempotent.
  EXPECT_TRUE(FileExists(dir + "/a/b/c"));
  WriteFileOrDie(dir + "/file", "x");
  ExpectError(RecursivelyCreateDir(dir + "/file/sub"),
              absl::StatusCode::kFailedPrecondition, {"file"});
}

TEST(FileIoTest, DeleteFileAndDir) {
  const std::string dir = MakeTempDir();
  WriteFileOrDie(dir + "/f", "x");
  ASSERT_TRUE(RecursivelyCreateDir(dir + "/d").ok());
  ExpectError(DeleteEmptyDir(dir), absl::StatusCode::kFailedPrecondition,
              {dir});  // Not empty.
  EXPECT_TRUE(DeleteFile(dir + "/f").ok());
  ExpectError(DeleteFile(dir + "/f"), absl::StatusCode::kNotFound, {"/f"});
  EXPECT_TRUE(DeleteEmptyDir(dir + "/d").ok());
  EXPECT_TRUE(ListDir(dir).empty());
}

TEST(FileIoTest, RandomAccessReads) {
  const std::string dir = MakeTempDir();
  WriteFileOrDie(dir + "/f", "0123456789");
  std::unique_ptr<RandomAccessFile> f;
  ASSERT_TRUE(RandomAccessFile::Open(dir + "/f", &f).ok());
  EXPECT_EQ(f->size(), 10u);
  std::string out;
  ASSERT_TRUE(f->Read(3, 4, &out).ok());
  EXPECT_EQ(out, "3456");
  ASSERT_TRUE(f->Read(10, 0, &out).ok());
  EXPECT_EQ(out, "");
  ExpectError(f->Read(8, 3, &out), absl::StatusCode::kDataLoss,
              {"past the end", "/f"});
  ExpectError(f->Read(UINT64_MAX, 2, &out), absl::StatusCode::kDataLoss, {});
  // A file that shrinks after open: the short read is DataLoss.
  TruncateFile(dir + "/f", 5);
  ExpectError(f->Read(2, 6, &out), absl::StatusCode::kDataLoss, {"truncated"});
}

TEST(FileIoTest, OpenErrors) {
  const std::string dir = MakeTempDir();
  std::unique_ptr<RandomAccessFile> f;
  ExpectError(RandomAccessFile::Open(dir + "/missing", &f),
              absl::StatusCode::kNotFound, {"missing"});
  ExpectError(RandomAccessFile::Open(dir, &f),
              absl::StatusCode::kFailedPrecondition, {"not a regular file"});
}

}  // namespace
}  // namespace test
}  // namespace stepflow
