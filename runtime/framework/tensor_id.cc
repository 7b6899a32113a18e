#include "runtime/framework/tensor_id.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace stepflow {

TensorId ParseTensorName(absl::string_view name) {
  TensorId id;
  if (!name.empty() && name[0] == '^') {
    id.node = std::string(name.substr(1));
    id.index = kControlSlot;
    return id;
  }
  const size_t colon = name.rfind(':');
  if (colon != absl::string_view::npos && colon + 1 < name.size()) {
    absl::string_view suffix = name.substr(colon + 1);
    bool all_digits = true;
    for (char c : suffix) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        all_digits = false;
        break;
      }
    }
    int index = 0;
    if (all_digits && suffix.size() <= 9 && absl::SimpleAtoi(suffix, &index)) {
      id.node = std::string(name.substr(0, colon));
      id.index = index;
      return id;
    }
  }
  id.node = std::string(name);
  id.index = 0;
  return id;
}

std::string CanonicalTensorName(absl::string_view name) {
  return ParseTensorName(name).ToString();
}

std::vector<std::string> SortedUnique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace stepflow
