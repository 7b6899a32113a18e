// FunctionLibrary: the functions of a GraphDef's FunctionDefLibrary, looked
// up by name, and the checks that make them callable.
//
// A function is validated (function_def_validation.h) the first time a
// graph's call reaches it, so functions no call uses (for instance the
// gradient functions an exporter keeps) may use ops this binary lacks.
// Calls are recursive when a function reaches itself through its nodes'
// ops or function-valued attrs; CheckCallable refuses that with
// InvalidArgument naming the chain ("f -> g -> f"), and so are chains of
// calls nesting deeper than kMaxCallDepth functions.
//
// Ownership: borrows the FunctionDefLibrary and the OpRegistry, which must
// outlive it. Thread-compatible (validation results are cached).
#ifndef STEPFLOW_RUNTIME_FUNCTION_FUNCTION_LIBRARY_H_
#define STEPFLOW_RUNTIME_FUNCTION_FUNCTION_LIBRARY_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/function.pb.h"
#include "proto/node_def.pb.h"
#include "runtime/framework/op.h"

namespace stepflow {

class FunctionLibrary {
 public:
  static constexpr int kMaxCallDepth = 100;

  FunctionLibrary(const FunctionDefLibrary& library, const OpRegistry* ops);

  // nullptr when the library has no function of that name.
  const FunctionDef* Find(const std::string& name) const;
  const OpRegistry* op_registry() const { return ops_; }

  // The signature of `op`: the registered OpDef, else the signature of the
  // library function of that name. nullptr when neither exists.
  const OpDef* LookUpSignature(const std::string& op) const;

  // Validates `name` and every function it reaches, and refuses recursion.
  // NotFound if `name` or a function it calls is not in the library.
  absl::Status CheckCallable(const std::string& name);

  // The functions `node` calls, in attr-name order: its op when that names
  // a library function, then its func / list(func) attr values.
  std::vector<std::string> CalledFunctions(const NodeDef& node) const;

 private:
  absl::Status Visit(const std::string& name, std::vector<std::string>* chain);

  const OpRegistry* const ops_;
  std::map<std::string, const FunctionDef*> functions_;
  std::set<std::string> checked_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_FUNCTION_LIBRARY_H_
