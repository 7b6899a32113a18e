// FuseConvEpilogues on imported graphs: which chains it folds, what the
// fused node holds, and every condition that keeps a node out.
#include "runtime/graph/conv_epilogue_fusion.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/conv_graph_test_util.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace {

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// The fusion's test graphs: ConvGraphDef plus the standard input and the
// import onto one device.
class Builder : public test::ConvGraphDef {
 public:
  // The standard input: x [1, 5, 5, 3] and a 3x3 filter to 4 channels.
  void Input() {
    Const("x", std::vector<int64_t>{1, 5, 5, 3});
    Const("w", std::vector<int64_t>{3, 3, 3, 4});
  }

  // Imports the graph and places every node on `device`.
  std::unique_ptr<Graph> Build(const std::string& device = kCpu) {
    auto g = std::make_unique<Graph>();
    GraphConstructorOptions opts;
    absl::Status s = ConvertGraphDefToGraph(opts, def(), g.get());
    EXPECT_TRUE(s.ok()) << s;
    for (Node* n : g->op_nodes()) n->set_assigned_device_name(device);
    return g;
  }
};

Node* Find(const Graph& g, const std::string& name) {
  for (Node* n : g.op_nodes()) {
    if (n->name() == name) return n;
  }
  return nullptr;
}

std::vector<std::string> Epilogue(const Node& n) {
  std::vector<std::string> steps;
  EXPECT_TRUE(GetNodeAttr(n.def(), "epilogue", &steps).ok());
  return steps;
}

// The producers of `n`'s data inputs, by name.
std::vector<std::string> Inputs(const Node& n) {
  std::vector<std::string> names(n.num_inputs());
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge()) names[e->dst_input()] = e->src()->name();
  }
  return names;
}

// Keras's inference batch norm and Relu6 after a convolution.
void KerasBlock(Builder* b, const std::string& conv_op = "Conv2D") {
  b->Input();
  b->Const("scale", std::vector<int64_t>{4});
  b->Const("shift", std::vector<int64_t>{4});
  b->Conv("conv", conv_op, "x", "w");
  b->Add("mul", "Mul", {"conv", "scale"});
  b->Add("add", "AddV2", {"mul", "shift"});
  b->Add("relu", "Relu6", {"add"});
  b->Add("out", "Identity", {"relu"});
}

TEST(ConvEpilogueFusionTest, FoldsKerasBatchNormAndRelu6IntoTheConvolution) {
  Builder b;
  KerasBlock(&b);
  auto g = b.Build();
  absl::StatusOr<int> fused = FuseConvEpilogues(g.get());
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 3);
  EXPECT_EQ(Find(*g, "conv"), nullptr);
  EXPECT_EQ(Find(*g, "mul"), nullptr);
  EXPECT_EQ(Find(*g, "add"), nullptr);
  Node* f = Find(*g, "relu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type_string(), "_Conv2DWithEpilogue");
  EXPECT_EQ(f->assigned_device_name(), kCpu);
  EXPECT_EQ(Epilogue(*f),
            (std::vector<std::string>{"Mul", "BiasAdd", "Relu6"}));
  int64_t num_args = -1;
  ASSERT_TRUE(GetNodeAttr(f->def(), "num_args", &num_args).ok());
  EXPECT_EQ(num_args, 2);
  EXPECT_EQ(Inputs(*f), (std::vector<std::string>{"x", "w", "scale", "shift"}));
  EXPECT_EQ(Inputs(*Find(*g, "out")), (std::vector<std::string>{"relu"}));
}

TEST(ConvEpilogueFusionTest, FoldsADepthwiseConvolutionWithBiasAddAndRelu) {
  Builder b;
  b.Const("x", std::vector<int64_t>{1, 5, 5, 3});
  b.Const("w",
          std::vector<int64_t>{3, 3, 3, 2});  // multiplier 2: 6 output channels
  b.Const("bias", std::vector<int64_t>{6});
  b.Conv("conv", "DepthwiseConv2dNative", "x", "w");
  b.Add("bias_add", "BiasAdd", {"conv", "bias"});
  b.Add("relu", "Relu", {"bias_add"});
  auto g = b.Build();
  absl::StatusOr<int> fused = FuseConvEpilogues(g.get());
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 2);
  Node* f = Find(*g, "relu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type_string(), "_DepthwiseConv2dNativeWithEpilogue");
  EXPECT_EQ(Epilogue(*f), (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_EQ(Inputs(*f), (std::vector<std::string>{"x", "w", "bias"}));
}

TEST(ConvEpilogueFusionTest, TakesTheChannelVectorAsEitherOperand) {
  Builder b;
  b.Input();
  b.Const("scale", std::vector<int64_t>{4});
  b.Const("shift", std::vector<int64_t>{4});
  b.Conv("conv", "Conv2D", "x", "w");
  b.Add("mul", "Mul", {"scale", "conv"});
  b.Add("add", "Add", {"shift", "mul"});
  auto g = b.Build();
  ASSERT_EQ(*FuseConvEpilogues(g.get()), 2);
  Node* f = Find(*g, "add");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Epilogue(*f), (std::vector<std::string>{"Mul", "BiasAdd"}));
  EXPECT_EQ(Inputs(*f), (std::vector<std::string>{"x", "w", "scale", "shift"}));
}

TEST(ConvEpilogueFusionTest, StopsAtANodeWithASecondConsumer) {
  Builder b;
  KerasBlock(&b);
  b.Add("also", "Identity", {"mul"});  // mul's value is read twice
  auto g = b.Build();
  ASSERT_EQ(*FuseConvEpilogues(g.get()), 1);
  Node* f = Find(*g, "mul");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Epilogue(*f), (std::vector<std::string>{"Mul"}));
  EXPECT_EQ(Find(*g, "add")->type_string(), "AddV2");
  EXPECT_EQ(Inputs(*Find(*g, "add"))[0], "mul");
  EXPECT_EQ(Inputs(*Find(*g, "also"))[0], "mul");
}

TEST(ConvEpilogueFusionTest, LeavesOperandsThatWouldBroadcastDifferently) {
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{1}, {}, {1, 1, 1, 1}, {5, 4}}) {
    Builder b;
    b.Input();
    b.Const("scale", dims);
    b.Conv("conv", "Conv2D", "x", "w");
    b.Add("mul", "Mul", {"conv", "scale"});
    b.Add("relu", "Relu", {"mul"});
    auto g = b.Build();
    EXPECT_EQ(*FuseConvEpilogues(g.get()), 0) << dims.size();
    EXPECT_EQ(Find(*g, "conv")->type_string(), "Conv2D");
  }
}

TEST(ConvEpilogueFusionTest, TakesKerasReshapedParameters) {
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{1, 4}, {1, 1, 4}, {1, 1, 1, 4}}) {
    Builder b;
    b.Input();
    b.Const("scale", dims);
    b.Conv("conv", "Conv2D", "x", "w");
    b.Add("mul", "Mul", {"conv", "scale"});
    auto g = b.Build();
    EXPECT_EQ(*FuseConvEpilogues(g.get()), 1) << dims.size();
  }
}

TEST(ConvEpilogueFusionTest, InfersOperandsThroughSharedSubgraphs) {
  // scale = a * (a + b): `a` feeds two nodes of the operand's subgraph, so
  // its shape must be known before either.
  Builder b;
  b.Input();
  b.Const("a", std::vector<int64_t>{4});
  b.Const("c", std::vector<int64_t>{4});
  b.Add("sum", "AddV2", {"a", "c"});
  b.Add("scale", "Mul", {"a", "sum"});
  b.Conv("conv", "Conv2D", "x", "w");
  b.Add("mul", "Mul", {"conv", "scale"});
  auto g = b.Build();
  EXPECT_EQ(*FuseConvEpilogues(g.get()), 1);
}

TEST(ConvEpilogueFusionTest, LeavesAConvolutionWithAControlEdgeOut) {
  Builder b;
  KerasBlock(&b);
  b.Add("after", "NoOp", {"^conv"}, /*typed=*/false);
  auto g = b.Build();
  EXPECT_EQ(*FuseConvEpilogues(g.get()), 0);
}

TEST(ConvEpilogueFusionTest, MovesControlInputsToTheFusedNode) {
  Builder b;
  KerasBlock(&b);
  b.Add("first", "NoOp", {}, /*typed=*/false);
  b.Add("second", "NoOp", {}, /*typed=*/false);
  b.Add("then", "NoOp", {"^relu"}, /*typed=*/false);
  auto g = b.Build();
  g->AddControlEdge(Find(*g, "first"), Find(*g, "conv"));
  g->AddControlEdge(Find(*g, "second"), Find(*g, "add"));
  ASSERT_EQ(*FuseConvEpilogues(g.get()), 3);
  Node* f = Find(*g, "relu");
  std::vector<std::string> controls;
  for (const Edge* e : f->in_edges()) {
    if (e->IsControlEdge()) controls.push_back(e->src()->name());
  }
  EXPECT_EQ(controls, (std::vector<std::string>{"first", "second"}));
  bool waits = false;
  for (const Edge* e : Find(*g, "then")->in_edges()) {
    waits |= e->IsControlEdge() && e->src() == f;
  }
  EXPECT_TRUE(waits);
}

TEST(ConvEpilogueFusionTest, LeavesOtherDevicesLayoutsTypesAndUnknownShapes) {
  {  // Not a CPU.
    Builder b;
    KerasBlock(&b);
    auto g = b.Build("/job:localhost/replica:0/task:0/device:GPU:0");
    EXPECT_EQ(*FuseConvEpilogues(g.get()), 0);
  }
  {  // Channels first.
    Builder b;
    b.Const("x", std::vector<int64_t>{1, 3, 5, 5});
    b.Const("w", std::vector<int64_t>{3, 3, 3, 4});
    b.Const("bias", std::vector<int64_t>{4});
    b.Conv("conv", "Conv2D", "x", "w", 1, "SAME", "NCHW");
    b.Add("relu", "Relu", {"conv"});
    auto g = b.Build();
    EXPECT_EQ(*FuseConvEpilogues(g.get()), 0);
  }
  {  // The filter's shape is not known.
    Builder b;
    b.Const("x", std::vector<int64_t>{1, 5, 5, 3});
    NodeDef* w = b.Add("w", "Placeholder", {}, /*typed=*/false);
    (*w->mutable_attr())["dtype"].set_type(DT_FLOAT);
    b.Const("bias", std::vector<int64_t>{4});
    b.Conv("conv", "Conv2D", "x", "w");
    b.Add("bias_add", "BiasAdd", {"conv", "bias"});
    auto g = b.Build();
    EXPECT_EQ(*FuseConvEpilogues(g.get()), 0);
  }
  {  // A consumer on another device.
    Builder b;
    KerasBlock(&b);
    auto g = b.Build();
    Find(*g, "mul")->set_assigned_device_name(
        "/job:localhost/replica:0/task:0/device:CPU:1");
    EXPECT_EQ(*FuseConvEpilogues(g.get()), 0);
  }
}

TEST(ConvEpilogueFusionTest, FusesEveryBlockOfAStack) {
  Builder b;
  b.Const("x", std::vector<int64_t>{1, 5, 5, 4});
  std::string prev = "x";
  for (int i = 0; i < 3; ++i) {
    const std::string s = std::to_string(i);
    b.Const("w" + s, {3, 3, 4, 4});
    b.Const("scale" + s, {4});
    b.Conv("conv" + s, "Conv2D", prev, "w" + s);
    b.Add("mul" + s, "Mul", {"conv" + s, "scale" + s});
    b.Add("relu" + s, "Relu", {"mul" + s});
    prev = "relu" + s;
  }
  auto g = b.Build();
  ASSERT_EQ(*FuseConvEpilogues(g.get()), 6);
  EXPECT_EQ(Inputs(*Find(*g, "relu2"))[0], "relu1");
  EXPECT_EQ(Inputs(*Find(*g, "relu1"))[0], "relu0");
  EXPECT_EQ(Find(*g, "relu0")->type_string(), "_Conv2DWithEpilogue");
}

}  // namespace
}  // namespace stepflow
