#include "runtime/common/frame_path.h"

#include "absl/strings/str_cat.h"

namespace stepflow {

uint64_t FrameIdFromPath(absl::string_view path) {
  if (path.empty()) return 0;
  // 64-bit FNV-1a: fixed, so every process and partition agrees.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : path) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h == 0 ? 1 : h;
}

std::string ChildFramePath(absl::string_view parent_path, int64_t parent_iter,
                           absl::string_view frame_name) {
  return absl::StrCat(parent_path, ";", parent_iter, ";", frame_name);
}

}  // namespace stepflow
