#include "runtime/bin/tensor_file.h"

#include <sys/stat.h>

#include <climits>
#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/npy.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace {

constexpr absl::string_view kNpyMagic = "\x93NUMPY";

absl::Status InFile(const absl::Status& s, const std::string& path) {
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat("file '", path, "': ", s.message()));
}

absl::Status WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open '", path, "' for writing"));
  }
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadTensorFile(const std::string& path, Tensor* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("file '", path, "' not found"));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is a directory, not a .npy or .pb file"));
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open file '", path, "'"));
  }
  const std::string bytes((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  if (f.bad()) {
    return absl::InternalError(absl::StrCat("error reading file '", path, "'"));
  }
  if (absl::EndsWith(absl::AsciiStrToLower(path), ".npy") ||
      absl::StartsWith(bytes, kNpyMagic)) {
    return InFile(DecodeNpy(bytes, out), path);
  }
  TensorProto proto;
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "file '", path, "' is neither a .npy file nor a binary TensorProto"));
  }
  return InFile(TensorFromProto(proto, out), path);
}

std::string FetchFileStem(absl::string_view fetch) {
  const TensorId id = ParseTensorName(fetch);
  std::string stem;
  for (const char c : id.node) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
        c == '.' || c == '-') {
      stem.push_back(c);
    } else if (c == '/') {
      stem.push_back('+');
    } else {
      absl::StrAppendFormat(&stem, "%%%02X", static_cast<unsigned char>(c));
    }
  }
  absl::StrAppend(&stem, "_", id.index);
  return stem;
}

absl::Status WriteFetchFile(const std::string& dir, absl::string_view fetch,
                            const Tensor& tensor, std::string* path) {
  const std::string stem = absl::StrCat(dir, "/", FetchFileStem(fetch));
  std::string bytes;
  if (EncodeNpy(tensor, &bytes).ok()) {
    *path = absl::StrCat(stem, ".npy");
  } else {
    TensorProto proto;
    TensorToProto(tensor, &proto);
    bytes.clear();
    if (!proto.SerializeToString(&bytes)) {
      return absl::InternalError(absl::StrCat("cannot serialize the value of '",
                                              fetch, "' as a TensorProto"));
    }
    *path = absl::StrCat(stem, ".pb");
  }
  return WriteBytes(*path, bytes);
}

}  // namespace stepflow
