#include "runtime/function/function_library.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/function_def_validation.h"

namespace stepflow {

FunctionLibrary::FunctionLibrary(const FunctionDefLibrary& library,
                                 const OpRegistry* ops)
    : ops_(ops) {
  for (const FunctionDef& f : library.function()) {
    functions_.emplace(f.signature().name(), &f);
  }
}

const FunctionDef* FunctionLibrary::Find(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

const OpDef* FunctionLibrary::LookUpSignature(const std::string& op) const {
  const OpDef* def = ops_->LookUpOrNull(op);
  if (def != nullptr) return def;
  const FunctionDef* f = Find(op);
  return f == nullptr ? nullptr : &f->signature();
}

std::vector<std::string> FunctionLibrary::CalledFunctions(
    const NodeDef& node) const {
  std::vector<std::string> called;
  if (ops_->LookUpOrNull(node.op()) == nullptr && Find(node.op()) != nullptr) {
    called.push_back(node.op());
  }
  std::vector<std::string> attr_names;
  for (const auto& [name, value] : node.attr()) attr_names.push_back(name);
  std::sort(attr_names.begin(), attr_names.end());
  for (const std::string& name : attr_names) {
    const AttrValue& value = node.attr().at(name);
    if (value.has_func() && !value.func().name().empty()) {
      called.push_back(value.func().name());
    }
    for (const NameAttrList& f : value.list().func()) {
      if (!f.name().empty()) called.push_back(f.name());
    }
  }
  return called;
}

absl::Status FunctionLibrary::CheckCallable(const std::string& name) {
  std::vector<std::string> chain;
  return Visit(name, &chain);
}

absl::Status FunctionLibrary::Visit(const std::string& name,
                                    std::vector<std::string>* chain) {
  auto on_chain = std::find(chain->begin(), chain->end(), name);
  if (on_chain != chain->end()) {
    std::vector<std::string> cycle(on_chain, chain->end());
    cycle.push_back(name);
    return absl::InvalidArgumentError(absl::StrCat(
        "Function '", name,
        "' calls itself recursively: ", absl::StrJoin(cycle, " -> "),
        ". Recursive functions are not supported"));
  }
  if (checked_.count(name) > 0) return absl::OkStatus();
  if (static_cast<int>(chain->size()) >= kMaxCallDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Function calls nest deeper than ", kMaxCallDepth, ": ", chain->front(),
        " -> ... -> ", chain->back(), " -> ", name));
  }
  const FunctionDef* f = Find(name);
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "Function '", name, "' is not defined in the graph's library"));
  }
  absl::Status s = ValidateFunctionDef(*f, *this);
  if (!s.ok()) return s;
  chain->push_back(name);
  for (const NodeDef& node : f->node_def()) {
    for (const std::string& callee : CalledFunctions(node)) {
      if (Find(callee) == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("Function '", name, "': ", FormatNodeName(node.name()),
                         " calls function '", callee,
                         "', which is not defined in the graph's library"));
      }
      s = Visit(callee, chain);
      if (!s.ok()) return s;
    }
  }
  chain->pop_back();
  checked_.insert(name);
  return absl::OkStatus();
}

}  // namespace stepflow
