#include "runtime/graph/graph_test_util.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace test {
namespace {

void RegisterOrDie(OpRegistry* r, const OpDefBuilder& b) {
  OpDef def;
  absl::Status s = b.Finalize(&def);
  if (s.ok()) s = r->Register(def);
  if (!s.ok()) {
    std::fprintf(stderr, "test op registration failed: %s\n",
                 s.ToString().c_str());
    std::abort();
  }
}

OpRegistry* BuildRegistry() {
  auto* r = new OpRegistry;
  RegisterOrDie(r, OpDefBuilder("NoOp"));
  RegisterOrDie(r, OpDefBuilder("ControlTrigger"));
  RegisterOrDie(
      r, OpDefBuilder("Const").Output("output: dtype").Attr("dtype: type"));
  RegisterOrDie(r, OpDefBuilder("Placeholder")
                       .Output("output: dtype")
                       .Attr("dtype: type")
                       .Attr("shape: shape = { unknown_rank: true }"));
  RegisterOrDie(
      r, OpDefBuilder("Add").Input("x: T").Input("y: T").Output("z: T").Attr(
             "T: {float, double, int32, int64}"));
  RegisterOrDie(
      r,
      OpDefBuilder("Less").Input("x: T").Input("y: T").Output("z: bool").Attr(
          "T: {float, double, int32, int64}"));
  RegisterOrDie(r, OpDefBuilder("Identity")
                       .Input("input: T")
                       .Output("output: T")
                       .Attr("T: type"));
  RegisterOrDie(r, OpDefBuilder("Switch")
                       .Input("data: T")
                       .Input("pred: bool")
                       .Output("output_false: T")
                       .Output("output_true: T")
                       .Attr("T: type"));
  RegisterOrDie(r, OpDefBuilder("Merge")
                       .Input("inputs: N * T")
                       .Output("output: T")
                       .Output("value_index: int32")
                       .Attr("T: type")
                       .Attr("N: int >= 1"));
  RegisterOrDie(r, OpDefBuilder("Enter")
                       .Input("data: T")
                       .Output("output: T")
                       .Attr("T: type")
                       .Attr("frame_name: string")
                       .Attr("is_constant: bool = false")
                       .Attr("parallel_iterations: int = 10"));
  RegisterOrDie(r, OpDefBuilder("Exit")
                       .Input("data: T")
                       .Output("output: T")
                       .Attr("T: type"));
  RegisterOrDie(r, OpDefBuilder("NextIteration")
                       .Input("data: T")
                       .Output("output: T")
                       .Attr("T: type"));
  RegisterOrDie(
      r, OpDefBuilder("LoopCond").Input("input: bool").Output("output: bool"));
  RegisterOrDie(r, OpDefBuilder("VariableV2")
                       .Output("ref: Ref(dtype)")
                       .Attr("shape: shape = { unknown_rank: true }")
                       .Attr("dtype: type")
                       .Attr("container: string = ''")
                       .Attr("shared_name: string = ''")
                       .SetIsStateful());
  RegisterOrDie(r, OpDefBuilder("Assign")
                       .Input("ref: Ref(T)")
                       .Input("value: T")
                       .Output("output_ref: Ref(T)")
                       .Attr("T: type")
                       .Attr("validate_shape: bool = true")
                       .Attr("use_locking: bool = true"));
  RegisterOrDie(r, OpDefBuilder("_Send")
                       .Input("tensor: T")
                       .Attr("T: type")
                       .Attr("tensor_name: string = ''")
                       .SetIsStateful());
  RegisterOrDie(r, OpDefBuilder("_Recv")
                       .Output("tensor: tensor_type")
                       .Attr("tensor_type: type")
                       .Attr("tensor_name: string = ''")
                       .SetIsStateful());
  RegisterOrDie(
      r, OpDefBuilder("WithDefault").Output("out: float").Attr("a: int = 7"));
  return r;
}

}  // namespace

const OpRegistry* TestOpRegistry() {
  static const OpRegistry* const registry = BuildRegistry();
  return registry;
}

NodeDef MakeNodeDef(const std::string& name, const std::string& op,
                    const std::vector<std::string>& inputs, DataType type) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  for (const std::string& in : inputs) def.add_input(in);
  if (type != DT_INVALID) {
    const OpDef* op_def = TestOpRegistry()->LookUpOrNull(op);
    if (op_def != nullptr) {
      for (const OpDef::AttrDef& attr : op_def->attr()) {
        if (attr.type() == "type" &&
            (attr.name() == "T" || attr.name() == "dtype" ||
             attr.name() == "tensor_type")) {
          AddNodeAttr(attr.name(), type, &def);
        }
      }
    }
  }
  if (op == "Merge") {
    int n = 0;
    for (const std::string& in : inputs) n += (in.empty() || in[0] != '^');
    AddNodeAttr("N", n, &def);
  }
  if (op == "Enter") AddNodeAttr("frame_name", "loop", &def);
  return def;
}

Node* AddNodeOrDie(Graph* g, NodeDef def) {
  const OpDef* op_def = g->op_registry()->LookUpOrNull(def.op());
  if (op_def != nullptr) AddDefaultsToNodeDef(*op_def, &def);
  const std::string name = def.name();
  absl::StatusOr<Node*> n = g->AddNode(std::move(def));
  if (!n.ok()) {
    std::fprintf(stderr, "AddNode(%s) failed: %s\n", name.c_str(),
                 n.status().ToString().c_str());
    std::abort();
  }
  return *n;
}

Node* AddNodeOrDie(Graph* g, const std::string& name, const std::string& op,
                   DataType type) {
  return AddNodeOrDie(g, MakeNodeDef(name, op, {}, type));
}

NodeDef MakeBoolConst(const std::string& name) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  AddNodeAttr("dtype", DT_BOOL, &def);
  TensorProto t;
  t.set_dtype(DT_BOOL);
  t.mutable_tensor_shape();
  t.add_bool_val(true);
  AddNodeAttr("value", t, &def);
  return def;
}

std::vector<std::string> Names(const std::vector<Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name());
  return out;
}

std::vector<std::string> Inputs(const NodeDef& def) {
  return std::vector<std::string>(def.input().begin(), def.input().end());
}

GraphDef ParseGraphDefOrFail(const std::string& text) {
  GraphDef g;
  absl::Status s = ParseGraphDefFromText(text, &g);
  if (!s.ok()) ADD_FAILURE() << s << "\n" << text;
  return g;
}

namespace {

std::string DeviceField(const std::string& device) {
  return device.empty() ? "" : absl::StrCat(" device: '", device, "'");
}

}  // namespace

std::string PlaceholderNode(const std::string& name, const std::string& dtype,
                            const std::string& device) {
  return absl::StrCat("node { name: '", name, "' op: 'Placeholder'",
                      DeviceField(device),
                      " attr { key: 'dtype' value { type: ", dtype, " } } }\n");
}

std::string ConstFloatNode(const std::string& name, float value,
                           const std::string& device) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const'", DeviceField(device),
      " attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
      "value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: ",
      value, " } } } }\n");
}

std::string BinaryNode(const std::string& op, const std::string& name,
                       const std::string& a, const std::string& b,
                       const std::string& dtype) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b,
                      "' attr { key: 'T' value { type: ", dtype, " } } }\n");
}

}  // namespace test
}  // namespace stepflow
