#include "runtime/kernels/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stepflow {

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
  return absl::StrFormat("%s.tmp-%016x", path, unique_id);
}

// --- AtomicFileWriter -------------------------------------------------------

absl::Status AtomicFileWriter::Create(
    const std::string& path, uint64_t unique_id,
    std::unique_ptr<AtomicFileWriter>* writer) {
  std::string temp_path = TempFilePath(path, unique_id);
  const int fd =
      ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("open for writing", temp_path, errno);
  writer->reset(new AtomicFileWriter(path, std::move(temp_path), fd));
  return absl::OkStatus();
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
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int e = errno;
    Abandon();
    return IoError("close", temp_path_, e);
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    Abandon();
    return IoError(absl::StrCat("rename to '", path_, "' of"), temp_path_, e);
  }
  committed_ = true;
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
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, &(*out)[done], n - done,
                                static_cast<off_t>(offset + done));
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
