// Test-only NodeDef builders for executor-level tests, which build
// partition graphs by hand (with internal ops such as _Arg, _Retval).
// Each adds a node to `g` and returns it for further attrs.
#ifndef STEPFLOW_RUNTIME_COMMON_TEST_GRAPH_BUILDERS_H_
#define STEPFLOW_RUNTIME_COMMON_TEST_GRAPH_BUILDERS_H_

#include <string>
#include <vector>

#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace test_graph {

// `inputs` are "x", "x:i" or "^x".
NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs = {});
// As AddNode, with attr T = t.
NodeDef* AddTyped(GraphDef* g, const std::string& name, const std::string& op,
                  const std::vector<std::string>& inputs, DataType t);
NodeDef* AddConst(GraphDef* g, const std::string& name, const Tensor& value,
                  const std::vector<std::string>& inputs = {});
NodeDef* AddArg(GraphDef* g, const std::string& name, DataType t, int index);
NodeDef* AddRetval(GraphDef* g, const std::string& name,
                   const std::string& input, DataType t, int index);

}  // namespace test_graph
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_TEST_GRAPH_BUILDERS_H_
