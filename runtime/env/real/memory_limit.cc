#include "runtime/env/real/memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace stepflow {

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size;
}

int64_t AddressSpaceLimitBytes() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return 0;
  }
  return static_cast<int64_t>(
      std::min<rlim_t>(limit.rlim_cur, static_cast<rlim_t>(INT64_MAX)));
}

int64_t DefaultProcessMemoryLimit() {
  int64_t bytes = PhysicalMemoryBytes();
  const int64_t address_space = AddressSpaceLimitBytes();
  if (address_space > 0 && (bytes == 0 || address_space < bytes)) {
    bytes = address_space;
  }
  return bytes / 5 * 4;
}

absl::Status ParseMemoryLimit(const std::string& text, int64_t* bytes) {
  std::string s(absl::StripAsciiWhitespace(text));
  double scale = 1;
  if (!s.empty()) {
    switch (absl::ascii_toupper(s.back())) {
      case 'K':
        scale = 1024.0;
        break;
      case 'M':
        scale = 1024.0 * 1024;
        break;
      case 'G':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 'T':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        break;
    }
    if (scale != 1) s.pop_back();
  }
  double value = 0;
  if (s.empty() || !absl::SimpleAtod(s, &value) || !std::isfinite(value) ||
      value < 0 || value * scale >= 9.2e18) {
    return absl::InvalidArgumentError(
        absl::StrCat("--memory_limit='", text,
                     "' is not a byte count (like 4G, 512M or 1073741824)"));
  }
  *bytes = static_cast<int64_t>(value * scale);
  return absl::OkStatus();
}

}  // namespace stepflow
