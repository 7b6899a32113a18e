// FunctionDef validation and the FunctionDef reference syntax.
//
// Inside a FunctionDef, node inputs and `ret` values name tensors as
//   "arg"              every element of input argument `arg`,
//   "arg:i"            element i of input argument `arg`,
//   "node:out"         every tensor of output argument `out` of `node`,
//   "node:out:i"       element i of that output argument,
//   "^node" / "^arg"   a control input (node inputs only).
// ValidateFunctionDef checks what it can without the call's attrs, all
// InvalidArgument naming the function (and node) unless noted:
//   - the signature: a name that no registered op has, unique argument
//     names, each argument's type given by exactly one of type, type_attr
//     or type_list_attr, and every attr an argument names declared;
//   - the nodes: unique names distinct from the input arguments; ops that
//     are registered or library functions (NotFound otherwise); inputs in
//     the syntax above naming arguments and nodes of the function, data
//     inputs before control inputs; `$T` placeholders naming declared attrs;
//   - ret: exactly one entry per output argument, each a valid reference;
//     control_ret: exactly one node per declared control output.
#ifndef STEPFLOW_RUNTIME_FUNCTION_FUNCTION_DEF_VALIDATION_H_
#define STEPFLOW_RUNTIME_FUNCTION_FUNCTION_DEF_VALIDATION_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/function.pb.h"

namespace stepflow {

class FunctionLibrary;

// One parsed FunctionDef reference. `output_arg` is empty for a reference
// to an input argument (or a control input); `index` is -1 when the
// reference covers the whole argument.
struct FunctionRef {
  std::string name;  // node or input argument
  std::string output_arg;
  int index = -1;
  bool control = false;
};

// InvalidArgument for an empty or malformed reference.
absl::StatusOr<FunctionRef> ParseFunctionRef(absl::string_view text);

absl::Status ValidateFunctionDef(const FunctionDef& fdef,
                                 const FunctionLibrary& library);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_FUNCTION_DEF_VALIDATION_H_
