// FunctionCallOpDef: the OpDef of a node that calls a library function
// directly (its op is the function's name), as TensorFlow's graphs use the
// function library as an op registry: the function's signature.
//
// Signatures are interned process-wide by their serialized bytes, so the
// returned pointer stays valid forever and is shared by every graph whose
// function has the same signature (two functions of one name but different
// signatures get different OpDefs). Such nodes have no kernel: sessions
// inline them or rewrite them into StatefulPartitionedCall before running
// (runtime/function/lower_functional_ops.h).
//
// Thread-safe.
#ifndef STEPFLOW_RUNTIME_GRAPH_FUNCTION_CALL_OP_H_
#define STEPFLOW_RUNTIME_GRAPH_FUNCTION_CALL_OP_H_

#include "absl/strings/string_view.h"
#include "proto/function.pb.h"
#include "proto/op_def.pb.h"

namespace stepflow {

// The signature of `op`'s function in `library`, or null when `library`
// has no function of that name.
const OpDef* FunctionCallOpDef(const FunctionDefLibrary& library,
                               absl::string_view op);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_FUNCTION_CALL_OP_H_
