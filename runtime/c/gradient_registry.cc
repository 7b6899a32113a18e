#include "runtime/c/gradient_registry.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace c_api {
namespace {

// Op type -> gradient function (null: no gradient). Filled before main.
std::map<std::string, GradFn>& Registry() {
  static auto* registry = new std::map<std::string, GradFn>;
  return *registry;
}

}  // namespace

bool RegisterGradient(const char* op_type, GradFn fn) {
  Registry()[op_type] = fn;
  return true;
}

absl::Status LookupGradient(const std::string& op_type, GradFn* fn) {
  auto it = Registry().find(op_type);
  if (it == Registry().end()) {
    return absl::NotFoundError(absl::StrCat(
        "No gradient defined for op: ", op_type,
        ". Please see "
        "https://www.tensorflow.org/code/tensorflow/cc/gradients/README.md "
        "for instructions on how to add C++ gradients."));
  }
  *fn = it->second;
  return absl::OkStatus();
}

}  // namespace c_api
}  // namespace stepflow
