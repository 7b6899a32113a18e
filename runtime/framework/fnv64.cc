#include "runtime/framework/fnv64.h"

namespace stepflow {

uint64_t Fnv1a64(absl::string_view s) {
  Fnv64 h;
  h.UpdateBytes(s.data(), s.size());
  return h.value();
}

}  // namespace stepflow
