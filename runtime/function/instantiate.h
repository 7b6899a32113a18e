// Instantiation: a library function, given the attrs of one call, as a
// body of plain NodeDefs ready to splice into a GraphDef.
//
// The body's node inputs use GraphDef syntax ("node", "node:i", "^node"):
// FunctionDef references ("node:out:i", "arg") are mapped to flat output
// indices using each node's OpDef (or callee signature) and attrs. Attr
// placeholders ("$T", also inside func-valued attrs) are replaced by the
// call's attr of that name, or the signature's default. Each flat input
// argument becomes one "_Arg" node (attrs T, index) named after the
// argument ("arg", or "arg_<i>" for list arguments); the results are
// tensors of the body, listed in output-argument order.
//
// Errors, InvalidArgument naming the function (and node) unless noted:
// an attr the signature or a placeholder needs that the call lacks, or of
// the wrong kind; references or ret entries whose element counts disagree
// with the types; NotFound for an unknown function.
#ifndef STEPFLOW_RUNTIME_FUNCTION_INSTANTIATE_H_
#define STEPFLOW_RUNTIME_FUNCTION_INSTANTIATE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/map.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
#include "runtime/framework/types.h"
#include "runtime/function/function_library.h"

namespace stepflow {

using CallAttrs = google::protobuf::Map<std::string, AttrValue>;

struct FunctionBody {
  std::string function_name;
  DataTypeVector arg_types;                    // One per flat input argument.
  DataTypeVector ret_types;                    // One per flat result.
  std::vector<std::string> arg_nodes;          // The "_Arg" node per argument.
  std::vector<std::string> ret_tensors;        // "node:i" per result.
  std::vector<std::string> control_ret_nodes;  // In control-output order.
  // _Arg nodes first, then the FunctionDef's nodes in order.
  std::vector<NodeDef> nodes;
};

// Instantiates `name` for a call with `attrs`. `library` must have
// accepted CheckCallable(name).
absl::Status InstantiateFunction(const FunctionLibrary& library,
                                 const std::string& name,
                                 const CallAttrs& attrs, FunctionBody* body);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_INSTANTIATE_H_
