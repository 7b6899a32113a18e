#include "runtime/graph/function_call_op.h"

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace stepflow {

const OpDef* FunctionCallOpDef(const FunctionDefLibrary& library,
                               absl::string_view op) {
  const FunctionDef* function = nullptr;
  for (const FunctionDef& f : library.function()) {
    if (f.signature().name() == op) {
      function = &f;
      break;
    }
  }
  if (function == nullptr) return nullptr;
  static absl::Mutex mu(absl::kConstInit);
  static auto* const interned =
      new absl::flat_hash_map<std::string, std::unique_ptr<OpDef>>;
  std::string key;
  function->signature().SerializeToString(&key);
  absl::MutexLock l(&mu);
  std::unique_ptr<OpDef>& slot = (*interned)[key];
  if (slot == nullptr) slot = std::make_unique<OpDef>(function->signature());
  return slot.get();
}

}  // namespace stepflow
