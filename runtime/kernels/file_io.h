// Small POSIX file helpers for the checkpoint kernels: an atomically
// committed writable file, a positional reader, and path utilities.
//
// Atomic writes: AtomicFileWriter writes `<path>.tmp-<16 hex digits>` (the
// digits come from a caller-supplied id, never from entropy) and Commit()
// fsyncs it, renames it over `<path>` and fsyncs the directory. Until Commit
// succeeds `<path>` is untouched; a writer destroyed without a successful
// Commit (an error, an abandoned save) deletes its temporary file. A crash
// can therefore leave a stale `.tmp-*` file next to `<path>`, never a
// partially written `<path>`.
//
// Stale temporaries: a writer holds an exclusive flock(2) on its temporary
// file from creation until the rename (the kernel drops it when the
// process dies, however it dies). RemoveStaleTempFiles deletes the
// temporaries in a directory that nobody holds locked — provably those of
// writers that died — and leaves those of live writers (in this or any
// other process on the machine) alone.
//
// Errors map errno to status codes: ENOENT NotFound; EACCES/EPERM/EROFS
// PermissionDenied; ENOSPC/EDQUOT ResourceExhausted; EEXIST AlreadyExists;
// EISDIR/ENOTDIR/ENOTEMPTY FailedPrecondition; ENAMETOOLONG/EINVAL
// InvalidArgument; anything else Unknown. Messages name the path and the
// operation. A short read is DataLoss (the file ended early).
//
// Thread-safety: RandomAccessFile::Read may be called concurrently (it uses
// pread); AtomicFileWriter is used by one thread.
#ifndef STEPFLOW_RUNTIME_KERNELS_FILE_IO_H_
#define STEPFLOW_RUNTIME_KERNELS_FILE_IO_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace stepflow {

// The status for a failed `operation` on `path` with `errno_value`.
absl::Status IoError(absl::string_view operation, absl::string_view path,
                     int errno_value);

// "a/b/c" -> "a/b"; "c" -> "."; "/c" -> "/".
std::string Dirname(absl::string_view path);

// mkdir -p. OK if the directory exists already; FailedPrecondition if a
// component exists and is not a directory.
absl::Status RecursivelyCreateDir(const std::string& dir);

// Whether `path` exists (any kind of file).
bool FileExists(const std::string& path);

// unlink(2): NotFound if `path` does not exist.
absl::Status DeleteFile(const std::string& path);

// rmdir(2) of an empty directory.
absl::Status DeleteEmptyDir(const std::string& dir);

// The temporary name AtomicFileWriter uses for `path` and `unique_id`:
// "<path>.tmp-<unique_id as 16 lowercase hex digits>".
std::string TempFilePath(absl::string_view path, uint64_t unique_id);

// Deletes every file in `dir` named "<anything><suffix>.tmp-<16 lowercase
// hex digits>" that no live AtomicFileWriter holds (see above), and
// returns how many it deleted. Best effort: a file it cannot open, lock or
// delete is skipped; an unreadable `dir` deletes nothing. (A temporary
// written by a writer older than the locking scheme counts as stale.)
int RemoveStaleTempFiles(const std::string& dir, absl::string_view suffix);
// The same for every temporary whose destination's file name (the name
// without ".tmp-<16 hex digits>") satisfies `is_ours`.
int RemoveStaleTempFiles(const std::string& dir,
                         absl::FunctionRef<bool(absl::string_view)> is_ours);

// rename(2): atomically replaces `to` (a file) with `from`.
absl::Status RenameFile(const std::string& from, const std::string& to);

// link(2): gives the file at `from` the second name `to` (which must not
// exist).
absl::Status LinkFile(const std::string& from, const std::string& to);

class AtomicFileWriter {
 public:
  // Creates (truncating) the temporary file for `path` and locks it
  // (flock LOCK_EX) until Commit or destruction. The parent directory must
  // exist.
  static absl::Status Create(const std::string& path, uint64_t unique_id,
                             std::unique_ptr<AtomicFileWriter>* writer);
  // Closes and deletes the temporary file unless Commit succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  absl::Status Append(absl::string_view data);
  // Bytes appended so far.
  uint64_t size() const { return size_; }
  // fsync, rename over the destination (still locked), close, fsync its
  // directory. After a failure the temporary file is deleted and the
  // writer is unusable.
  absl::Status Commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFileWriter(std::string path, std::string temp_path, int fd)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd) {}
  void Abandon();

  const std::string path_;
  const std::string temp_path_;
  int fd_;  // -1 once closed.
  uint64_t size_ = 0;
  bool committed_ = false;
};

class RandomAccessFile {
 public:
  // NotFound if `path` does not exist.
  static absl::Status Open(const std::string& path,
                           std::unique_ptr<RandomAccessFile>* file);
  ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Size at open time.
  uint64_t size() const { return size_; }
  // Reads exactly `n` bytes at `offset` into `out` (resized). DataLoss if
  // the file ends first.
  absl::Status Read(uint64_t offset, uint64_t n, std::string* out) const;
  // The same into `n` bytes at `out`.
  absl::Status ReadInto(uint64_t offset, uint64_t n, char* out) const;
  const std::string& path() const { return path_; }

 private:
  RandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  const std::string path_;
  const int fd_;
  const uint64_t size_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_FILE_IO_H_
