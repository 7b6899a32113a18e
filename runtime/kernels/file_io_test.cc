// File helpers: atomic commit/abandon, rename failure, errno mapping,
// short reads, directories, removal of the temporaries of dead writers.
#include "runtime/kernels/file_io.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
  EXPECT_EQ(TempFilePath("/d/model.index", 0xabc),
            "/d/model.index.tmp-0000000000000abc");
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

// --- Stale temporaries ------------------------------------------------------

// Forks a child that starts an AtomicFileWriter for `path` (id `id`),
// writes to it, reports on `ready` and waits to be killed; returns its pid.
pid_t StartWriterProcess(const std::string& path, uint64_t id) {
  int ready[2];
  if (::pipe(ready) != 0) {
    ADD_FAILURE() << "pipe";
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    std::unique_ptr<AtomicFileWriter> w;
    if (!AtomicFileWriter::Create(path, id, &w).ok() ||
        !w->Append(std::string(1 << 16, 'x')).ok()) {
      ::_exit(2);
    }
    char c = 'r';
    if (::write(ready[1], &c, 1) != 1) ::_exit(3);
    for (;;) ::pause();  // Killed mid-save, before Commit.
  }
  ::close(ready[1]);
  char c = 0;
  EXPECT_EQ(::read(ready[0], &c, 1), 1) << "the writer process failed";
  ::close(ready[0]);
  return pid;
}

void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
}

TEST(FileIoTest, RemovesTheTemporaryOfAKilledWriterOnly) {
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/m.index";
  const pid_t killed = StartWriterProcess(path, 1);
  const pid_t live = StartWriterProcess(path, 2);
  ASSERT_GT(killed, 0);
  ASSERT_GT(live, 0);
  KillAndReap(killed);
  // This process's own uncommitted writer is live too.
  std::unique_ptr<AtomicFileWriter> own;
  ASSERT_TRUE(AtomicFileWriter::Create(path, 3, &own).ok());
  // Names outside the scheme are never touched.
  WriteFileOrDie(dir + "/m.index.tmp-xyz", "not ours");
  WriteFileOrDie(dir + "/notes.tmp-0000000000000001", "other suffix");
  WriteFileOrDie(dir + "/m.index", "committed");

  EXPECT_EQ(RemoveStaleTempFiles(dir, ".index"), 1);
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{
                              "m.index", "m.index.tmp-0000000000000002",
                              "m.index.tmp-0000000000000003", "m.index.tmp-xyz",
                              "notes.tmp-0000000000000001"}));
  // The live writer is killed too: now its temporary goes.
  KillAndReap(live);
  EXPECT_EQ(RemoveStaleTempFiles(dir, ".index"), 1);
  // Our own writer still commits.
  ASSERT_TRUE(own->Append("new").ok());
  ASSERT_TRUE(own->Commit().ok());
  EXPECT_EQ(ReadFileOrDie(path), "new");
  EXPECT_EQ(ListDir(dir),
            (std::vector<std::string>{"m.index", "m.index.tmp-xyz",
                                      "notes.tmp-0000000000000001"}));
}

TEST(FileIoTest, UnlockedTemporaryIsStaleAndMissingDirIsHarmless) {
  const std::string dir = MakeTempDir();
  // What a writer killed before this scheme (or by the OOM killer) leaves:
  // a temporary nobody holds.
  WriteFileOrDie(TempFilePath(dir + "/a.index", 0xdead), "partial");
  EXPECT_EQ(RemoveStaleTempFiles(dir, ".index"), 1);
  EXPECT_TRUE(ListDir(dir).empty());
  EXPECT_EQ(RemoveStaleTempFiles(dir + "/missing", ".index"), 0);
}

TEST(FileIoTest, StaleTemporariesByPredicate) {
  const std::string dir = MakeTempDir();
  WriteFileOrDie(TempFilePath(dir + "/m.index", 1), "x");
  WriteFileOrDie(TempFilePath(dir + "/m.data-00000-of-00001", 1), "x");
  WriteFileOrDie(TempFilePath(dir + "/notes", 1), "x");
  EXPECT_EQ(
      RemoveStaleTempFiles(
          dir, [](absl::string_view head) { return head.rfind("m.", 0) == 0; }),
      2);
  EXPECT_EQ(ListDir(dir),
            std::vector<std::string>{"notes.tmp-0000000000000001"});
}

TEST(FileIoTest, RenameAndLink) {
  const std::string dir = MakeTempDir();
  WriteFileOrDie(dir + "/a", "A");
  WriteFileOrDie(dir + "/b", "B");
  ASSERT_TRUE(LinkFile(dir + "/a", dir + "/c").ok());
  EXPECT_EQ(LinkFile(dir + "/a", dir + "/b").code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(RenameFile(dir + "/b", dir + "/a").ok());
  EXPECT_EQ(ReadFileOrDie(dir + "/a"), "B");
  EXPECT_EQ(ReadFileOrDie(dir + "/c"), "A");
  EXPECT_EQ(RenameFile(dir + "/missing", dir + "/a").code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace test
}  // namespace stepflow
