#include "runtime/function/lowering_nodes.h"

#include "absl/strings/str_cat.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {

NodeDef LoweredNode(const std::string& name, const std::string& op,
                    const std::string& device,
                    const std::vector<std::string>& inputs) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  n.set_device(device);
  for (const std::string& in : inputs) n.add_input(in);
  return n;
}

NodeDef Int32Const(const std::string& name, const std::string& device,
                   int value, const std::string& control) {
  NodeDef n = LoweredNode(name, "Const", device, {absl::StrCat("^", control)});
  TensorProto t;
  t.set_dtype(DT_INT32);
  t.mutable_tensor_shape();
  t.add_int_val(value);
  AddNodeAttr("dtype", DT_INT32, &n);
  AddNodeAttr("value", t, &n);
  return n;
}

NodeDef LoweredCall(const std::string& name, const std::string& device,
                    const NameAttrList& f,
                    const std::vector<std::string>& inputs,
                    const AttrValue& tin, const AttrValue& tout) {
  NodeDef n = LoweredNode(name, "PartitionedCall", device, inputs);
  AttrValue func;
  *func.mutable_func() = f;
  AddNodeAttr("f", func, &n);
  AddNodeAttr("Tin", tin, &n);
  AddNodeAttr("Tout", tout, &n);
  // Calls made by lowering are always inlined (lower_functional_ops.h).
  AddNodeAttr("_lower_as_multi_device_function", true, &n);
  return n;
}

NodeDef LoweredResult(const std::string& name, const std::string& device,
                      const std::vector<std::string>& outputs,
                      const AttrValue& types,
                      const std::vector<std::string>& controls) {
  NodeDef n = LoweredNode(name, outputs.empty() ? "NoOp" : "IdentityN", device,
                          outputs);
  if (!outputs.empty()) AddNodeAttr("T", types, &n);
  for (const std::string& c : controls) n.add_input(absl::StrCat("^", c));
  return n;
}

void SplitInputs(const NodeDef& node, std::vector<std::string>* data,
                 std::vector<std::string>* controls) {
  for (const std::string& in : node.input()) {
    (!in.empty() && in[0] == '^' ? controls : data)->push_back(in);
  }
}

}  // namespace stepflow
