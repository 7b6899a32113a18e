#include "runtime/kernels/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stepflow {
namespace {

constexpr char kTempMarker[] = ".tmp-";
constexpr size_t kTempIdDigits = 16;

// Whether `fd` is still the file linked at `path` (not unlinked or
// replaced since it was opened).
bool StillLinkedAt(int fd, const std::string& path) {
  struct stat by_fd;
  struct stat by_path;
  return ::fstat(fd, &by_fd) == 0 && ::stat(path.c_str(), &by_path) == 0 &&
         by_fd.st_dev == by_path.st_dev && by_fd.st_ino == by_path.st_ino;
}

// Whether `name` is "<head>.tmp-<16 lowercase hex digits>" with `is_ours`
// true for a non-empty <head>.
bool IsTempName(absl::string_view name,
                absl::FunctionRef<bool(absl::string_view)> is_ours) {
  const size_t tail = sizeof(kTempMarker) - 1 + kTempIdDigits;
  if (name.size() <= tail) return false;
  absl::string_view id = name.substr(name.size() - kTempIdDigits);
  for (char c : id) {
    if (!absl::ascii_isdigit(c) && !(c >= 'a' && c <= 'f')) return false;
  }
  absl::string_view head = name.substr(0, name.size() - tail);
  return name.substr(head.size(), sizeof(kTempMarker) - 1) == kTempMarker &&
         is_ours(head);
}

}  // namespace

absl::Status IoError(absl::string_view operation, absl::string_view path,
                     int errno_value) {
  const std::string message = absl::StrCat(
      operation, " '", path, "' failed: ",
      std::error_code(errno_value, std::generic_category()).message());
  switch (errno_value) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case EISDIR:
    case ENOTDIR:
    case ENOTEMPTY:
      return absl::FailedPreconditionError(message);
    case ENAMETOOLONG:
    case EINVAL:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnknownError(message);
  }
}

std::string Dirname(absl::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

absl::Status RecursivelyCreateDir(const std::string& dir) {
  if (dir.empty() || dir == "." || dir == "/") return absl::OkStatus();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "Cannot create directory '", dir, "': a file of that name exists"));
  }
  absl::Status parent = RecursivelyCreateDir(Dirname(dir));
  if (!parent.ok()) return parent;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return IoError("mkdir", dir, errno);
  }
  return absl::OkStatus();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

absl::Status DeleteFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return IoError("unlink", path, errno);
  return absl::OkStatus();
}

absl::Status DeleteEmptyDir(const std::string& dir) {
  if (::rmdir(dir.c_str()) != 0) return IoError("rmdir", dir, errno);
  return absl::OkStatus();
}

std::string TempFilePath(absl::string_view path, uint64_t unique_id) {
  return absl::StrFormat("%s%s%016x", path, kTempMarker, unique_id);
}

int RemoveStaleTempFiles(const std::string& dir, absl::string_view suffix) {
  return RemoveStaleTempFiles(dir, [suffix](absl::string_view head) {
    return head.size() > suffix.size() && absl::EndsWith(head, suffix);
  });
}

absl::Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return IoError(absl::StrCat("rename to '", to, "' of"), from, errno);
  }
  return absl::OkStatus();
}

absl::Status LinkFile(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) != 0) {
    return IoError(absl::StrCat("link to '", to, "' of"), from, errno);
  }
  return absl::OkStatus();
}

int RemoveStaleTempFiles(const std::string& dir,
                         absl::FunctionRef<bool(absl::string_view)> is_ours) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  std::vector<std::string> candidates;
  while (struct dirent* e = ::readdir(d)) {
    if (IsTempName(e->d_name, is_ours)) candidates.emplace_back(e->d_name);
  }
  ::closedir(d);
  int removed = 0;
  for (const std::string& name : candidates) {
    const std::string path = dir == "/" ? "/" + name : dir + "/" + name;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    // A live writer holds the lock; a dead one's lock died with it. Delete
    // only what is still linked under this name once locked (a writer
    // that re-created it in between holds the new file).
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && StillLinkedAt(fd, path) &&
        ::unlink(path.c_str()) == 0) {
      ++removed;
    }
    ::close(fd);
  }
  return removed;
}

// --- AtomicFileWriter -------------------------------------------------------

absl::Status AtomicFileWriter::Create(
    const std::string& path, uint64_t unique_id,
    std::unique_ptr<AtomicFileWriter>* writer) {
  std::string temp_path = TempFilePath(path, unique_id);
  // A RemoveStaleTempFiles may lock and delete the file between our open
  // and our flock: then the file we hold is no longer the one at
  // temp_path, and we create it again.
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = ::open(temp_path.c_str(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return IoError("open for writing", temp_path, errno);
    int rc;
    do {
      rc = ::flock(fd, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int e = errno;
      ::close(fd);
      return IoError("lock", temp_path, e);
    }
    if (StillLinkedAt(fd, temp_path)) {
      writer->reset(new AtomicFileWriter(path, std::move(temp_path), fd));
      return absl::OkStatus();
    }
    ::close(fd);
  }
  return absl::AbortedError(absl::StrCat(
      "Temporary file '", temp_path, "' keeps being deleted while created"));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) Abandon();
}

void AtomicFileWriter::Abandon() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  ::unlink(temp_path_.c_str());  // Best effort; it may be gone already.
}

absl::Status AtomicFileWriter::Append(absl::string_view data) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("Write to closed file '", temp_path_, "'"));
  }
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      Abandon();
      return IoError("write", temp_path_, e);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  size_ += data.size();
  return absl::OkStatus();
}

absl::Status AtomicFileWriter::Commit() {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("Commit of closed file '", temp_path_, "'"));
  }
  if (::fsync(fd_) != 0) {
    const int e = errno;
    Abandon();
    return IoError("fsync", temp_path_, e);
  }
  // Renamed while still open and locked, so that RemoveStaleTempFiles
  // never takes it for a dead writer's.
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    Abandon();
    return IoError(absl::StrCat("rename to '", path_, "' of"), temp_path_, e);
  }
  committed_ = true;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    // The data was fsynced and is in place; the descriptor is gone anyway.
    return IoError("close", path_, errno);
  }
  // Make the rename itself durable. Some file systems cannot fsync a
  // directory; the data is in place either way.
  const std::string dir = Dirname(path_);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return absl::OkStatus();
}

// --- RandomAccessFile -------------------------------------------------------

absl::Status RandomAccessFile::Open(const std::string& path,
                                    std::unique_ptr<RandomAccessFile>* file) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return IoError("stat", path, e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("'", path, "' is not a regular file"));
  }
  file->reset(
      new RandomAccessFile(path, fd, static_cast<uint64_t>(st.st_size)));
  return absl::OkStatus();
}

RandomAccessFile::~RandomAccessFile() { ::close(fd_); }

absl::Status RandomAccessFile::Read(uint64_t offset, uint64_t n,
                                    std::string* out) const {
  if (offset > size_ || n > size_ - offset) {
    return absl::DataLossError(absl::StrCat("Read of ", n, " bytes at offset ",
                                            offset, " runs past the end of '",
                                            path_, "' (", size_, " bytes)"));
  }
  out->resize(n);
  return ReadInto(offset, n, out->data());
}

absl::Status RandomAccessFile::ReadInto(uint64_t offset, uint64_t n,
                                        char* out) const {
  if (offset > size_ || n > size_ - offset) {
    return absl::DataLossError(absl::StrCat("Read of ", n, " bytes at offset ",
                                            offset, " runs past the end of '",
                                            path_, "' (", size_, " bytes)"));
  }
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError("read", path_, errno);
    }
    if (got == 0) {
      return absl::DataLossError(absl::StrCat(
          "'", path_, "' ended at offset ", offset + done, " while reading ", n,
          " bytes at offset ", offset, " (was it truncated?)"));
    }
    done += static_cast<uint64_t>(got);
  }
  return absl::OkStatus();
}

}  // namespace stepflow
