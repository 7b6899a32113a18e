#include "runtime/framework/allocator.h"

#include "absl/strings/str_cat.h"

namespace stepflow {

std::string AllocatorStats::DebugString() const {
  std::string out = absl::StrCat("num_allocs ", num_allocs, ", bytes_in_use ",
                                 bytes_in_use, ", peak ", peak_bytes_in_use,
                                 ", largest ", largest_alloc_size);
  if (bytes_limit.has_value()) absl::StrAppend(&out, ", limit ", *bytes_limit);
  return out;
}

}  // namespace stepflow
