// Test-only helpers for graph tests: a private OpRegistry with small
// TensorFlow-shaped ops (so tests do not depend on the global registry),
// NodeDef builders and accessors that turn nodes and inputs into names.
//
// Ops in TestOpRegistry(): NoOp, Const, Placeholder, Add, Identity, Less,
// Switch, Merge, Enter, Exit, NextIteration, LoopCond, VariableV2, Assign,
// _Send, _Recv, WithDefault (attr `a: int = 7`, one float output),
// ControlTrigger. Thread-safe after first use.
#ifndef STEPFLOW_RUNTIME_GRAPH_GRAPH_TEST_UTIL_H_
#define STEPFLOW_RUNTIME_GRAPH_GRAPH_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "proto/node_def.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace test {

const OpRegistry* TestOpRegistry();

// NodeDef{name, op, inputs} plus `T`/`dtype` attrs when `type` is set:
// ops with a "T" attr get T=type, ops with "dtype" get dtype=type.
NodeDef MakeNodeDef(const std::string& name, const std::string& op,
                    const std::vector<std::string>& inputs = {},
                    DataType type = DT_INVALID);

// Adds a node to `g` (which must use TestOpRegistry()); aborts the test
// binary on failure, which is acceptable in tests only.
Node* AddNodeOrDie(Graph* g, const std::string& name, const std::string& op,
                   DataType type = DT_INVALID);
// Same for a prepared NodeDef (defaults are filled; inputs are ignored by
// Graph::AddNode, so add edges yourself).
Node* AddNodeOrDie(Graph* g, NodeDef def);

// A scalar bool Const `name` holding true (a Switch predicate).
NodeDef MakeBoolConst(const std::string& name);

// The names of `nodes`, in order.
std::vector<std::string> Names(const std::vector<Node*>& nodes);
// The inputs of `def` ("x", "x:1", "^x"), in order.
std::vector<std::string> Inputs(const NodeDef& def);

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_GRAPH_TEST_UTIL_H_
