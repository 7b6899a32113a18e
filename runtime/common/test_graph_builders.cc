#include "runtime/common/test_graph_builders.h"

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace test_graph {

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

NodeDef* AddTyped(GraphDef* g, const std::string& name, const std::string& op,
                  const std::vector<std::string>& inputs, DataType t) {
  NodeDef* n = AddNode(g, name, op, inputs);
  AddNodeAttr("T", t, n);
  return n;
}

NodeDef* AddConst(GraphDef* g, const std::string& name, const Tensor& value,
                  const std::vector<std::string>& inputs) {
  NodeDef* n = AddNode(g, name, "Const", inputs);
  TensorProto proto;
  TensorToProto(value, &proto);
  AddNodeAttr("value", proto, n);
  AddNodeAttr("dtype", value.dtype(), n);
  return n;
}

NodeDef* AddArg(GraphDef* g, const std::string& name, DataType t, int index) {
  NodeDef* n = AddTyped(g, name, "_Arg", {}, t);
  AddNodeAttr("index", index, n);
  return n;
}

NodeDef* AddRetval(GraphDef* g, const std::string& name,
                   const std::string& input, DataType t, int index) {
  NodeDef* n = AddTyped(g, name, "_Retval", {input}, t);
  AddNodeAttr("index", index, n);
  return n;
}

}  // namespace test_graph
}  // namespace stepflow
