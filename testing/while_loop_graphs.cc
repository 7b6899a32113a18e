#include "testing/while_loop_graphs.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace {

constexpr char kFrame[] = "while/while_context";
constexpr char kInnerFrame[] = "while/while/while_context";

class Builder {
 public:
  explicit Builder(const LoopPlacement& place) : place_(place) {}

  NodeDef* Node(const std::string& name, const std::string& op,
                const std::vector<std::string>& inputs) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    const std::string device = place_ ? place_(name, op) : "";
    if (!device.empty()) n->set_device(device);
    return n;
  }
  NodeDef* Typed(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, DataType t) {
    NodeDef* n = Node(name, op, inputs);
    AddNodeAttr("T", t, n);
    return n;
  }
  void Const(const std::string& name, const Tensor& value,
             const std::vector<std::string>& inputs = {}) {
    NodeDef* n = Node(name, "Const", inputs);
    TensorProto proto;
    TensorToProto(value, &proto);
    AddNodeAttr("value", proto, n);
    AddNodeAttr("dtype", value.dtype(), n);
  }
  void Placeholder(const std::string& name, DataType t,
                   const TensorShape& shape) {
    NodeDef* n = Node(name, "Placeholder", {});
    AddNodeAttr("dtype", t, n);
    AddNodeAttr("shape", shape, n);
  }
  // An Enter of a loop-invariant value (is_constant = true).
  void EnterConstant(const std::string& name, const std::string& frame,
                     const std::string& input, DataType t) {
    Enter(name, frame, input, t, true);
  }
  void Enter(const std::string& name, const std::string& frame,
             const std::string& input, DataType t, bool is_constant) {
    NodeDef* n = Typed(name, "Enter", {input}, t);
    AddNodeAttr("frame_name", frame, n);
    AddNodeAttr("is_constant", is_constant, n);
    AddNodeAttr("parallel_iterations", 10, n);
  }

  // Loop variable `k` ("", "_1", ...) of the loop at `scope`: Enter and
  // Merge (whose back edge names the NextIteration LoopVarTail adds).
  void LoopVarHead(const std::string& scope, const std::string& frame,
                   const std::string& k, const std::string& init, DataType t) {
    Enter(scope + "/Enter" + k, frame, init, t, false);
    NodeDef* merge =
        Typed(scope + "/Merge" + k, "Merge",
              {scope + "/Enter" + k, scope + "/NextIteration" + k}, t);
    AddNodeAttr("N", 2, merge);
  }
  // Switch on the loop's LoopCond, Identity (the body's input),
  // NextIteration of `next`, Exit.
  void LoopVarTail(const std::string& scope, const std::string& k,
                   const std::string& next, DataType t) {
    NodeDef* sw = Typed(scope + "/Switch" + k, "Switch",
                        {scope + "/Merge" + k, scope + "/LoopCond"}, t);
    AddNodeAttr("_class",
                std::vector<std::string>{"loc:@" + scope + "/Merge" + k}, sw);
    Typed(scope + "/Identity" + k, "Identity", {scope + "/Switch" + k + ":1"},
          t);
    Typed(scope + "/NextIteration" + k, "NextIteration", {next}, t);
    Typed(scope + "/Exit" + k, "Exit", {scope + "/Switch" + k}, t);
  }
  // cond: Less(Merge, entered bound) -> LoopCond.
  void Condition(const std::string& scope, const std::string& bound) {
    Typed(scope + "/Less", "Less", {scope + "/Merge", bound}, DT_INT32);
    Node(scope + "/LoopCond", "LoopCond", {scope + "/Less"});
  }
  // counter + 1 inside the body of `scope`, named scope + "/" + name.
  void Increment(const std::string& scope, const std::string& name,
                 const std::string& counter) {
    Const(scope + "/" + name + "/y", Tensor::Scalar<int32_t>(1),
          {"^" + scope + "/Identity"});
    Typed(scope + "/" + name, "AddV2", {counter, scope + "/" + name + "/y"},
          DT_INT32);
  }

  GraphDef Finish() {
    graph_.mutable_versions()->set_producer(27);
    return std::move(graph_);
  }

 private:
  const LoopPlacement& place_;
  GraphDef graph_;
};

const TensorShape kXShape({2, 3});

}  // namespace

GraphDef CounterLoopGraph(const LoopPlacement& place) {
  Builder b(place);
  b.Const("Const", Tensor::Scalar<int32_t>(0));
  b.Placeholder("n", DT_INT32, TensorShape({}));
  b.LoopVarHead("while", kFrame, "", "Const", DT_INT32);
  b.EnterConstant("while/Less/Enter", kFrame, "n", DT_INT32);
  b.Condition("while", "while/Less/Enter");
  b.LoopVarTail("while", "", "while/add", DT_INT32);
  b.Increment("while", "add", "while/Identity");
  return b.Finish();
}

GraphDef AccumulateLoopGraph(const LoopPlacement& place) {
  Builder b(place);
  b.Const("Const", Tensor::Scalar<int32_t>(0));
  b.Const("zeros", Tensor(DT_FLOAT, kXShape));
  b.Const("Const_1", Tensor(DT_FLOAT, TensorShape({0})));
  b.Placeholder("n", DT_INT32, TensorShape({}));
  b.Placeholder("x", DT_FLOAT, kXShape);
  b.LoopVarHead("while", kFrame, "", "Const", DT_INT32);
  b.LoopVarHead("while", kFrame, "_1", "zeros", DT_FLOAT);
  b.LoopVarHead("while", kFrame, "_2", "Const_1", DT_FLOAT);
  b.EnterConstant("while/Less/Enter", kFrame, "n", DT_INT32);
  b.Condition("while", "while/Less/Enter");
  b.LoopVarTail("while", "", "while/add", DT_INT32);
  b.LoopVarTail("while", "_1", "while/add_1", DT_FLOAT);
  b.LoopVarTail("while", "_2", "while/concat", DT_FLOAT);
  // float(i).
  NodeDef* cast = b.Node("while/Cast", "Cast", {"while/Identity"});
  AddNodeAttr("SrcT", DT_INT32, cast);
  AddNodeAttr("DstT", DT_FLOAT, cast);
  // acc + x * float(i), x entered as a loop invariant.
  b.EnterConstant("while/mul/Enter", kFrame, "x", DT_FLOAT);
  b.Typed("while/mul", "Mul", {"while/mul/Enter", "while/Cast"}, DT_FLOAT);
  b.Typed("while/add_1", "AddV2", {"while/Identity_1", "while/mul"}, DT_FLOAT);
  // concat([seq, [float(i)]], 0).
  b.Const("while/ExpandDims/dim", Tensor::Scalar<int32_t>(0),
          {"^while/Identity"});
  NodeDef* expand = b.Typed("while/ExpandDims", "ExpandDims",
                            {"while/Cast", "while/ExpandDims/dim"}, DT_FLOAT);
  AddNodeAttr("Tdim", DT_INT32, expand);
  b.Const("while/concat/axis", Tensor::Scalar<int32_t>(0), {"^while/Identity"});
  NodeDef* concat = b.Typed(
      "while/concat", "ConcatV2",
      {"while/Identity_2", "while/ExpandDims", "while/concat/axis"}, DT_FLOAT);
  AddNodeAttr("N", 2, concat);
  AddNodeAttr("Tidx", DT_INT32, concat);
  b.Increment("while", "add", "while/Identity");
  return b.Finish();
}

GraphDef NestedLoopGraph(const LoopPlacement& place) {
  Builder b(place);
  b.Const("Const", Tensor::Scalar<int32_t>(0));
  b.Const("zeros", Tensor(DT_FLOAT, kXShape));
  b.Placeholder("n", DT_INT32, TensorShape({}));
  b.Placeholder("m", DT_INT32, TensorShape({}));
  b.Placeholder("x", DT_FLOAT, kXShape);
  // Outer loop over i, carrying c.
  b.LoopVarHead("while", kFrame, "", "Const", DT_INT32);
  b.LoopVarHead("while", kFrame, "_1", "zeros", DT_FLOAT);
  b.EnterConstant("while/Less/Enter", kFrame, "n", DT_INT32);
  b.Condition("while", "while/Less/Enter");
  b.LoopVarTail("while", "", "while/add", DT_INT32);
  b.LoopVarTail("while", "_1", "while/while/Exit_1", DT_FLOAT);
  // Inner loop over j, carrying c; m and x reach it through both frames.
  b.Const("while/Const", Tensor::Scalar<int32_t>(0), {"^while/Identity"});
  b.LoopVarHead("while/while", kInnerFrame, "", "while/Const", DT_INT32);
  b.LoopVarHead("while/while", kInnerFrame, "_1", "while/Identity_1", DT_FLOAT);
  b.EnterConstant("while/while/Less/Enter/Enter", kFrame, "m", DT_INT32);
  b.EnterConstant("while/while/Less/Enter", kInnerFrame,
                  "while/while/Less/Enter/Enter", DT_INT32);
  b.Condition("while/while", "while/while/Less/Enter");
  b.LoopVarTail("while/while", "", "while/while/add", DT_INT32);
  b.LoopVarTail("while/while", "_1", "while/while/add_1", DT_FLOAT);
  b.Increment("while/while", "add", "while/while/Identity");
  b.EnterConstant("while/while/add_1/Enter/Enter", kFrame, "x", DT_FLOAT);
  b.EnterConstant("while/while/add_1/Enter", kInnerFrame,
                  "while/while/add_1/Enter/Enter", DT_FLOAT);
  b.Typed("while/while/add_1", "AddV2",
          {"while/while/Identity_1", "while/while/add_1/Enter"}, DT_FLOAT);
  // Back in the outer body.
  b.Increment("while", "add", "while/Identity");
  return b.Finish();
}

LoopPlacement AllOnDevice(const std::string& device) {
  return [device](const std::string&, const std::string&) { return device; };
}

LoopPlacement SplitBodyFromControl(const std::string& control,
                                   const std::string& body) {
  return [control, body](const std::string& node, const std::string& op) {
    static const char* const kMachinery[] = {
        "Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"};
    for (const char* m : kMachinery) {
      if (op == m) return control;
    }
    if (!absl::StartsWith(node, "while/")) return control;  // Outside.
    if (absl::StrContains(node, "/Less")) return control;   // Condition.
    return body;
  };
}

LoopPlacement RandomLoopPlacement(std::function<uint64_t()> draw) {
  auto chosen = std::make_shared<std::map<std::string, std::string>>();
  return [chosen, draw = std::move(draw)](const std::string& node,
                                          const std::string&) {
    std::string key = node;
    const size_t at = key.rfind("/Switch");
    if (at != std::string::npos) key.replace(at, 7, "/Merge");
    auto it = chosen->find(key);
    if (it == chosen->end()) {
      it = chosen->emplace(key, (draw() & 1) ? "/cpu:1" : "/cpu:0").first;
    }
    return it->second;
  };
}

}  // namespace stepflow
