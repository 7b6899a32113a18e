// Test-only drawing of function libraries and function calls for the random
// graphs of testing/graph_generators.h.
//
// DrawFunctionLibrary draws a FunctionDefLibrary of small float functions:
//   - element-wise functions "fn<k>" of one argument (x) or two (x, y) and
//     one result "out": one to three body nodes among Identity, Add, AddV2,
//     Mul and scalar float Const, and calls of earlier functions (nested
//     calls, by function name as the op or through PartitionedCall). fn0
//     has one argument and fn1 two, so both arities always exist;
//   - loops: a pair "loop_cond<k>(v, c) -> bool" (c < limit, limit a
//     small whole number) and "loop_body<k>(v, c) -> (v, c)" (v through an
//     element-wise function of one argument, c + 1), for While.
// Every function reads only its arguments and constants (no state), so a
// call's value is a function of its inputs.
//
// DrawCallNodes draws one call site over float inputs: the function by name
// as the op (unless !by_name: a graph built through the C API's
// TF_GraphImportGraphDef cannot hold such a node), PartitionedCall,
// StatefulPartitionedCall, If / StatelessIf (a float cond: true when non-zero),
// Case / StatelessCase (an int32 Const index "<name>_index", sometimes out of
// range, which runs the last branch) or While / StatelessWhile (loop variables
// (v, c), c from a float Const "<name>_counter" of 0; output 0 is v).
// Functional control flow is marked _lower_using_switch_merge. Every call
// site's output 0 is a float scalar; the helper Consts come first in the
// returned nodes, the call itself last, named `name`.
//
// Both must run inside rc::gen::exec (they draw with operator*); everything
// is deterministic given rapidcheck's seed. Not for production code
// (testonly).
#ifndef STEPFLOW_TESTING_FUNCTION_GENERATORS_H_
#define STEPFLOW_TESTING_FUNCTION_GENERATORS_H_

#include <string>
#include <vector>

#include "proto/function.pb.h"
#include "proto/graph.pb.h"

namespace stepflow::graph_testing {

// What DrawCallNodes may call.
struct DrawnLibrary {
  FunctionDefLibrary library;
  std::vector<std::string> unary;   // element-wise, one argument
  std::vector<std::string> binary;  // element-wise, two arguments
  // loop_cond<k> / loop_body<k>, index for index.
  std::vector<std::string> loop_conds;
  std::vector<std::string> loop_bodies;
};

DrawnLibrary DrawFunctionLibrary();

// `sources` are endpoints with a float scalar output ("x" or "x:0"); at
// least one. Each node gets `device`.
std::vector<NodeDef> DrawCallNodes(const DrawnLibrary& lib,
                                   const std::string& name,
                                   const std::vector<std::string>& sources,
                                   const std::string& device, bool by_name);

}  // namespace stepflow::graph_testing

#endif  // STEPFLOW_TESTING_FUNCTION_GENERATORS_H_
