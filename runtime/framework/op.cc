#include "runtime/framework/op.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

// Levenshtein distance capped at `cap + 1` (names are short).
int EditDistance(absl::string_view a, absl::string_view b, int cap) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  if (std::abs(n - m) > cap) return cap + 1;
  std::vector<int> prev(m + 1), cur(m + 1);
  for (int j = 0; j <= m; ++j) prev[j] = j;
  for (int i = 1; i <= n; ++i) {
    cur[0] = i;
    for (int j = 1; j <= m; ++j) {
      const int sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    prev.swap(cur);
  }
  return prev[m];
}

}  // namespace

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();
  return registry;
}

absl::Status OpRegistry::Register(const OpDef& op_def,
                                  ShapeInferenceFn shape_fn) {
  absl::MutexLock l(&mu_);
  if (op_def.name().empty()) {
    return absl::InvalidArgumentError("Cannot register an op with no name");
  }
  auto it = ops_.find(op_def.name());
  if (it != ops_.end()) {
    return absl::AlreadyExistsError(
        absl::StrCat("Op with name '", op_def.name(), "' already registered"));
  }
  ops_.emplace(op_def.name(), std::make_unique<Registration>(
                                  Registration{op_def, std::move(shape_fn)}));
  return absl::OkStatus();
}

const OpDef* OpRegistry::LookUpOrNull(absl::string_view op_type) const {
  absl::MutexLock l(&mu_);
  auto it = ops_.find(op_type);
  return it == ops_.end() ? nullptr : &it->second->op_def;
}

const ShapeInferenceFn* OpRegistry::LookUpShapeFn(
    absl::string_view op_type) const {
  absl::MutexLock l(&mu_);
  auto it = ops_.find(op_type);
  if (it == ops_.end() || !it->second->shape_fn) return nullptr;
  return &it->second->shape_fn;
}

absl::Status OpRegistry::LookUp(absl::string_view op_type,
                                const OpDef** op_def) const {
  const OpDef* found = LookUpOrNull(op_type);
  if (found != nullptr) {
    *op_def = found;
    return absl::OkStatus();
  }
  const std::string similar = SimilarOpName(op_type);
  const std::string hint =
      similar.empty() ? std::string()
                      : absl::StrCat(" (did you mean '", similar, "'?)");
  return absl::NotFoundError(absl::StrCat(
      "Op type not registered '", op_type, "' in this binary", hint,
      ". Make sure the Op and Kernel are registered in the binary running "
      "this process."));
}

std::string OpRegistry::SimilarOpName(absl::string_view op_type) const {
  absl::MutexLock l(&mu_);
  // Sorted iteration: the first close name is deterministic.
  for (const auto& [name, def] : ops_) {
    if (absl::AsciiStrToLower(name) == absl::AsciiStrToLower(op_type) ||
        (op_type.size() > 3 && EditDistance(name, op_type, 2) <= 2)) {
      return name;
    }
  }
  return "";
}

std::vector<std::string> OpRegistry::ListOps() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, def] : ops_) names.push_back(name);
  return names;
}

namespace register_op {

OpDefBuilderReceiver::OpDefBuilderReceiver(const OpDefBuilder& builder) {
  OpDef op_def;
  absl::Status s = builder.Finalize(&op_def);
  if (s.ok()) s = OpRegistry::Global()->Register(op_def, builder.shape_fn());
  if (!s.ok()) {
    std::fprintf(stderr, "Fatal error registering op: %s\n",
                 s.ToString().c_str());
    std::fflush(stderr);
    std::abort();
  }
}

}  // namespace register_op
}  // namespace stepflow
