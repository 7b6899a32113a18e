// Test-only helpers for graph tests: a private OpRegistry with small
// TensorFlow-shaped ops (so tests do not depend on the global registry),
// NodeDef builders, text-format GraphDef fragments and their parsing, and
// accessors that turn nodes and inputs into names.
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

#include "proto/graph.pb.h"
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

// `text`, a text-format GraphDef, parsed. A parse error fails the current
// test (non-fatally, naming the error and the text) and returns what parsed.
GraphDef ParseGraphDefOrFail(const std::string& text);

// Text-format GraphDef fragments, one node each (concatenate, then parse).
// An empty `device` leaves the node's device unset.
std::string PlaceholderNode(const std::string& name,
                            const std::string& dtype = "DT_FLOAT",
                            const std::string& device = "");
std::string ConstFloatNode(const std::string& name, float value,
                           const std::string& device = "");
// A two-input op with attr T=`dtype`.
std::string BinaryNode(const std::string& op, const std::string& name,
                       const std::string& a, const std::string& b,
                       const std::string& dtype = "DT_FLOAT");

// The names of `nodes`, in order.
std::vector<std::string> Names(const std::vector<Node*>& nodes);
// The inputs of `def` ("x", "x:1", "^x"), in order.
std::vector<std::string> Inputs(const NodeDef& def);

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_GRAPH_TEST_UTIL_H_
