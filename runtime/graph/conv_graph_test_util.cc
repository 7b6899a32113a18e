#include "runtime/graph/conv_graph_test_util.h"

#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace test {

NodeDef* ConvGraphDef::Add(const std::string& name, const std::string& op,
                           const std::vector<std::string>& inputs, bool typed) {
  NodeDef* n = def_.add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  if (typed) (*n->mutable_attr())["T"].set_type(DT_FLOAT);
  return n;
}

void ConvGraphDef::Const(const std::string& name, const Tensor& value) {
  NodeDef* n = Add(name, "Const", {}, /*typed=*/false);
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorToProto(value, (*n->mutable_attr())["value"].mutable_tensor());
}

void ConvGraphDef::Const(const std::string& name,
                         const std::vector<int64_t>& dims) {
  Const(name, Tensor(DT_FLOAT, TensorShape(dims)));
}

void ConvGraphDef::Placeholder(const std::string& name) {
  NodeDef* n = Add(name, "Placeholder", {}, /*typed=*/false);
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
}

void ConvGraphDef::Conv(const std::string& name, const std::string& op,
                        const std::string& input, const std::string& filter,
                        int stride, const std::string& padding,
                        const std::string& data_format) {
  NodeDef* n = Add(name, op, {input, filter});
  AttrValue strides;
  for (int s : {1, stride, stride, 1}) strides.mutable_list()->add_i(s);
  (*n->mutable_attr())["strides"] = strides;
  (*n->mutable_attr())["padding"].set_s(padding);
  (*n->mutable_attr())["data_format"].set_s(data_format);
}

}  // namespace test
}  // namespace stepflow
