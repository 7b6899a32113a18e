#include "fuzz/seed_specs.h"

#include <cstring>
#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/framework/versions.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow::fuzzing {
namespace {

// --- GraphDefs --------------------------------------------------------------

class GraphBuilder {
 public:
  GraphBuilder() { g_.mutable_versions()->set_producer(kGraphDefVersion); }

  NodeDef* Node(const std::string& name, const std::string& op,
                std::initializer_list<std::string> inputs = {},
                const std::string& device = "") {
    NodeDef* n = g_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    if (!device.empty()) n->set_device(device);
    return n;
  }
  NodeDef* Const(const std::string& name, DataType dtype, float value,
                 const std::string& device = "") {
    NodeDef* n = Node(name, "Const", {}, device);
    TensorProto t;
    t.set_dtype(dtype);
    t.mutable_tensor_shape();
    if (dtype == DT_FLOAT) t.add_float_val(value);
    if (dtype == DT_INT32) t.add_int_val(static_cast<int>(value));
    if (dtype == DT_BOOL) t.add_bool_val(value != 0);
    AddNodeAttr("dtype", dtype, n);
    AddNodeAttr("value", t, n);
    return n;
  }
  NodeDef* Placeholder(const std::string& name, DataType dtype) {
    NodeDef* n = Node(name, "Placeholder");
    AddNodeAttr("dtype", dtype, n);
    return n;
  }
  NodeDef* Typed(const std::string& name, const std::string& op, DataType dtype,
                 std::initializer_list<std::string> inputs,
                 const std::string& device = "") {
    NodeDef* n = Node(name, op, inputs, device);
    AddNodeAttr("T", dtype, n);
    return n;
  }
  GraphDef& graph() { return g_; }

 private:
  GraphDef g_;
};

GraphDef AddInt32() {
  GraphBuilder b;
  b.Placeholder("x", DT_INT32);
  b.Placeholder("y", DT_INT32);
  b.Typed("z", "AddV2", DT_INT32, {"x", "y"});
  return b.graph();
}

GraphDef MulFloatOnTwoDevices() {
  GraphBuilder b;
  b.Placeholder("a", DT_FLOAT)->set_device("/cpu:0");
  b.Placeholder("b", DT_FLOAT)->set_device("/device:CPU:1");
  b.Typed("c", "Mul", DT_FLOAT, {"a", "b:0"},
          "/job:localhost/replica:0/task:0/device:CPU:1");
  return b.graph();
}

GraphDef ConstChainWithControl() {
  GraphBuilder b;
  b.Node("init", "NoOp");
  b.Const("c", DT_FLOAT, 2.5f);
  b.Typed("i1", "Identity", DT_FLOAT, {"c", "^init"});
  b.Typed("i2", "Identity", DT_FLOAT, {"i1"});
  b.Typed("sum", "Add", DT_FLOAT, {"i1", "i2", "^init"});
  b.Node("done", "NoOp", {"^sum", "^i2"});
  return b.graph();
}

GraphDef SwitchMerge() {
  GraphBuilder b;
  b.Placeholder("pred", DT_BOOL);
  b.Const("x", DT_FLOAT, 1.0f);
  b.Typed("sw", "Switch", DT_FLOAT, {"x", "pred"});
  b.Typed("t", "Identity", DT_FLOAT, {"sw:1"});
  b.Typed("f", "Mul", DT_FLOAT, {"sw:0", "sw"});
  NodeDef* m = b.Typed("m", "Merge", DT_FLOAT, {"t", "f"});
  AddNodeAttr("N", int64_t{2}, m);
  return b.graph();
}

// i = 0; while (i < 10) i = i + 1.
GraphDef WhileLoop() {
  GraphBuilder b;
  b.Const("i0", DT_INT32, 0);
  b.Const("limit", DT_INT32, 10);
  b.Const("one", DT_INT32, 1);
  NodeDef* enter = b.Typed("while/Enter", "Enter", DT_INT32, {"i0"});
  AddNodeAttr("frame_name", "while/", enter);
  NodeDef* enter_limit =
      b.Typed("while/Enter_limit", "Enter", DT_INT32, {"limit"});
  AddNodeAttr("frame_name", "while/", enter_limit);
  AddNodeAttr("is_constant", true, enter_limit);
  NodeDef* enter_one = b.Typed("while/Enter_one", "Enter", DT_INT32, {"one"});
  AddNodeAttr("frame_name", "while/", enter_one);
  AddNodeAttr("is_constant", true, enter_one);
  NodeDef* merge = b.Typed("while/Merge", "Merge", DT_INT32,
                           {"while/Enter", "while/NextIteration"});
  AddNodeAttr("N", int64_t{2}, merge);
  b.Typed("while/Less", "Less", DT_INT32, {"while/Merge", "while/Enter_limit"});
  b.Node("while/LoopCond", "LoopCond", {"while/Less"});
  b.Typed("while/Switch", "Switch", DT_INT32,
          {"while/Merge", "while/LoopCond"});
  b.Typed("while/Identity", "Identity", DT_INT32, {"while/Switch:1"});
  b.Typed("while/add", "AddV2", DT_INT32, {"while/Identity", "while/Enter_one"},
          "/cpu:1");
  b.Typed("while/NextIteration", "NextIteration", DT_INT32, {"while/add"});
  b.Typed("while/Exit", "Exit", DT_INT32, {"while/Switch"});
  return b.graph();
}

GraphDef VariableAssign() {
  GraphBuilder b;
  NodeDef* v = b.Node("w", "VariableV2");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", TensorShape({2}), v);
  b.Const("zero", DT_FLOAT, 0.0f);
  NodeDef* assign = b.Typed("w/Assign", "Assign", DT_FLOAT, {"w", "zero"});
  AddNodeAttr("_class", std::vector<std::string>{"loc:@w"}, assign);
  b.Typed("w/read", "Identity", DT_FLOAT, {"w"});
  b.Node("init", "NoOp", {"^w/Assign"});
  return b.graph();
}

// What Partition hands a device: internal ops only import with
// allow_internal_ops.
GraphDef PartitionLike() {
  GraphBuilder b;
  b.Const("c", DT_FLOAT, 3.0f);
  NodeDef* send = b.Typed("c/_0", "_Send", DT_FLOAT, {"c"});
  AddNodeAttr("tensor_name", "edge_3_c", send);
  AddNodeAttr("send_device", "/job:localhost/replica:0/task:0/device:CPU:0",
              send);
  AddNodeAttr("send_device_incarnation", int64_t{1}, send);
  AddNodeAttr("recv_device", "/job:localhost/replica:0/task:0/device:CPU:1",
              send);
  NodeDef* recv = b.Node("_recv_x_0", "_Recv");
  AddNodeAttr("tensor_type", DT_FLOAT, recv);
  AddNodeAttr("tensor_name", "x:0", recv);
  AddNodeAttr("send_device", "/job:localhost/replica:0/task:0/device:CPU:0",
              recv);
  AddNodeAttr("send_device_incarnation", int64_t{1}, recv);
  AddNodeAttr("recv_device", "/job:localhost/replica:0/task:0/device:CPU:0",
              recv);
  AddNodeAttr("client_terminated", true, recv);
  NodeDef* arg = b.Node("_arg_y_0_0", "_Arg");
  AddNodeAttr("T", DT_FLOAT, arg);
  AddNodeAttr("index", int64_t{0}, arg);
  b.Typed("sum", "AddV2", DT_FLOAT, {"_recv_x_0", "_arg_y_0_0"});
  NodeDef* ret = b.Typed("_retval_sum_0_0", "_Retval", DT_FLOAT, {"sum"});
  AddNodeAttr("index", int64_t{0}, ret);
  return b.graph();
}

GraphDef WithLibrary() {
  GraphDef g = AddInt32();
  FunctionDef* f = g.mutable_library()->add_function();
  f->mutable_signature()->set_name("Twice");
  OpDef::ArgDef* in = f->mutable_signature()->add_input_arg();
  in->set_name("x");
  in->set_type(DT_FLOAT);
  OpDef::ArgDef* out = f->mutable_signature()->add_output_arg();
  out->set_name("y");
  out->set_type(DT_FLOAT);
  (*f->mutable_ret())["y"] = "x";
  return g;
}

// Each of these breaks exactly one import rule.
std::vector<NamedGraphDef> InvalidGraphDefs() {
  std::vector<NamedGraphDef> out;
  {
    GraphDef g = AddInt32();
    *g.add_node() = g.node(0);
    out.push_back({"bad_duplicate_name", g});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_node(2)->set_input(1, "^y:1");
    out.push_back({"bad_control_input_index", g});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_node(2)->set_input(1, "nowhere");
    out.push_back({"bad_unknown_input", g});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_node(2)->set_op("NoSuchOp");
    out.push_back({"bad_unknown_op", g});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_node(2)->add_input("x");
    out.push_back({"bad_arity", g});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_node(2)->set_input(0, "^x");
    g.mutable_node(2)->add_input("x");
    out.push_back({"bad_control_before_data", g});
  }
  {
    GraphBuilder b;
    b.Typed("a", "Identity", DT_FLOAT, {"b"});
    b.Typed("b", "Identity", DT_FLOAT, {"a"});
    out.push_back({"bad_cycle", b.graph()});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_versions()->set_min_consumer(kGraphDefVersion + 1);
    out.push_back({"bad_min_consumer", g});
  }
  {
    GraphDef g = AddInt32();
    g.mutable_node(0)->set_name("_x");
    out.push_back({"bad_internal_name", g});
  }
  {
    GraphDef g = AddInt32();
    (*g.mutable_node(2)->mutable_attr())["T"].set_type(DT_FLOAT);
    out.push_back({"bad_input_type", g});
  }
  {
    GraphDef g = SwitchMerge();
    (*g.mutable_node(5)->mutable_attr())["N"].set_i(3);
    out.push_back({"bad_merge_n", g});
  }
  return out;
}

// --- Pipeline specs -------------------------------------------------------

NodeSpec Op(int op, int dtype = 0, std::vector<std::pair<int, int>> inputs = {},
            int device = 0, int device_index = 0) {
  NodeSpec n;
  n.op = op;
  n.dtype = dtype;
  n.merge_n = inputs.empty() ? 1 : static_cast<int>(inputs.size());
  for (size_t i = 0; i < inputs.size() && i < kMaxDataInputs; ++i) {
    n.inputs[i].node = inputs[i].first;
    n.inputs[i].output = inputs[i].second;
  }
  n.device = device;
  n.device_index = device_index;
  return n;
}

EndpointSpec Endpoint(int node, int output = 0, bool bare = false) {
  EndpointSpec e;
  e.node = node;
  e.output = output;
  e.bare = bare;
  return e;
}

constexpr int kFloat = 0, kInt32 = 1, kBool = 2;
// DeviceRequest spellings.
constexpr int kNone = 0, kShort = 1, kLocal = 2, kFull = 3, kJobOnly = 4,
              kAnyCpu = 5, kGpu = 6, kOtherJob = 7, kGarbage = 8;

}  // namespace

std::vector<NamedPipelineSpec> SeedPipelineSpecs() {
  std::vector<NamedPipelineSpec> out;
  {  // Const(cpu0) -> Identity(cpu1) -> AddV2(cpu0): one pair each way.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kConst, kFloat, {}, kShort, 0),
               Op(kIdentity, kFloat, {{0, 0}}, kShort, 1),
               Op(kAddV2, kFloat, {{0, 0}, {1, 0}}, kLocal, 0)};
    s.fetches = {Endpoint(2, 0, true)};
    out.push_back({"chain_two_devices", s, true});
  }
  {  // Fed Placeholder, send/recv convention, product on CPU:1.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kPlaceholder, kFloat),
               Op(kMul, kFloat, {{0, 0}, {0, 0}}, kFull, 1)};
    s.feeds = {Endpoint(0)};
    s.fetches = {Endpoint(1)};
    s.use_function_convention = false;
    out.push_back({"feed_mul_sendrecv", s, true});
  }
  {  // Switch/Merge over three devices.
    PipelineSpec s;
    s.num_devices = 3;
    s.nodes = {Op(kConst, kBool),
               Op(kConst, kFloat, {}, kShort, 2),
               Op(kSwitch, kFloat, {{1, 0}, {0, 0}}, kShort, 1),
               Op(kIdentity, kFloat, {{2, 1}}, kShort, 2),
               Op(kIdentity, kFloat, {{2, 0}}),
               Op(kMerge, kFloat, {{3, 0}, {4, 0}}, kAnyCpu)};
    s.fetches = {Endpoint(5), Endpoint(5, 1)};
    out.push_back({"switch_merge_three_devices", s, true});
  }
  {  // Cross-device control edges and a target.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kNoOp, kFloat, {}, kShort, 1), Op(kConst, kInt32), Op(kNoOp)};
    s.nodes[1].num_control = 1;
    s.nodes[1].control[0] = 0;
    s.nodes[2].num_control = 2;
    s.nodes[2].control[0] = 0;
    s.nodes[2].control[1] = 1;
    s.fetches = {Endpoint(1)};
    s.targets = {2};
    out.push_back({"control_edges_target", s, true});
  }
  {  // A while loop whose body runs on CPU:1.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {
        Op(kConst, kFloat),                          // 0
        Op(kConst, kBool),                           // 1
        Op(kEnter, kFloat, {{0, 0}}),                // 2
        Op(kMerge, kFloat, {{2, 0}, {7, 0}}),        // 3
        Op(kEnter, kBool, {{1, 0}}),                 // 4 (constant)
        Op(kLoopCond, kBool, {{4, 0}}),              // 5
        Op(kSwitch, kFloat, {{3, 0}, {5, 0}}),       // 6
        Op(kNextIteration, kFloat, {{8, 0}}),        // 7
        Op(kIdentity, kFloat, {{6, 1}}, kShort, 1),  // 8
        Op(kExit, kFloat, {{6, 0}}),                 // 9
    };
    s.nodes[4].frame = 2;
    s.fetches = {Endpoint(9)};
    out.push_back({"while_loop_split", s, true});
  }
  {  // A variable, its initializer (colocated) and a read on CPU:1.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kVariableV2, kFloat, {}, kShort, 1), Op(kConst, kFloat),
               Op(kAssign, kFloat, {{0, 0}, {1, 0}}),
               Op(kIdentity, kFloat, {{0, 0}}, kLocal, 0)};
    s.nodes[2].colocate = 1;
    s.fetches = {Endpoint(3)};
    s.targets = {2};
    out.push_back({"variable_assign", s, true});
  }
  {  // Four devices, pre-assigned nodes, fetch twice.
    PipelineSpec s;
    s.num_devices = 4;
    s.nodes = {Op(kConst, kInt32), Op(kConst, kInt32),
               Op(kMul, kInt32, {{0, 0}, {1, 0}}),
               Op(kAddV2, kInt32, {{2, 0}, {0, 0}}),
               Op(kIdentity, kInt32, {{3, 0}})};
    for (int i = 0; i < 4; ++i) s.nodes[i].assign = i + 1;
    s.fetches = {Endpoint(4), Endpoint(4, 0, true), Endpoint(2)};
    out.push_back({"four_devices_preassigned", s, true});
  }
  {  // GPU request, honoured only with soft placement.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kConst, kFloat, {}, kGpu, 0),
               Op(kIdentity, kFloat, {{0, 0}}, kShort, 1)};
    s.fetches = {Endpoint(1)};
    s.allow_soft_placement = true;
    out.push_back({"soft_placement_gpu", s, true});
    s.allow_soft_placement = false;
    out.push_back({"hard_placement_gpu", s, false});
  }
  {  // Colocation with a node on another requested device.
    PipelineSpec s;
    s.num_devices = 3;
    s.nodes = {Op(kConst, kFloat, {}, kShort, 2),
               Op(kIdentity, kFloat, {{0, 0}}, kJobOnly)};
    s.nodes[1].colocate = 1;
    s.fetches = {Endpoint(1)};
    out.push_back({"colocated_pair", s, true});
  }
  {  // Errors at each stage.
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kConst, kFloat), Op(kIdentity, kFloat, {{2, 0}})};
    s.fetches = {Endpoint(1)};
    out.push_back({"dangling_input", s, false});
  }
  {
    PipelineSpec s;
    s.nodes = {Op(kIdentity, kFloat, {{1, 0}}),
               Op(kIdentity, kFloat, {{0, 0}})};
    s.fetches = {Endpoint(0)};
    out.push_back({"cycle", s, false});
  }
  {
    PipelineSpec s;
    s.nodes = {Op(kPlaceholder, kFloat), Op(kIdentity, kFloat, {{0, 0}})};
    s.feeds = {Endpoint(0)};
    s.fetches = {Endpoint(0, 0, true)};
    out.push_back({"feed_and_fetch_same", s, false});
  }
  {
    PipelineSpec s;
    s.nodes = {Op(kConst, kFloat)};
    s.fetches = {Endpoint(0, 2)};
    s.targets = {1};
    out.push_back({"fetch_out_of_range", s, false});
  }
  {
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kConst, kFloat, {}, kOtherJob, 0),
               Op(kIdentity, kFloat, {{0, 0}}, kGarbage)};
    s.fetches = {Endpoint(1)};
    out.push_back({"bad_device_requests", s, false});
  }
  {
    PipelineSpec s;
    s.num_devices = 2;
    s.nodes = {Op(kConst, kFloat), Op(kIdentity, kFloat, {{0, 0}})};
    s.nodes[1].assign = kMaxDevices + 1;
    s.fetches = {Endpoint(1)};
    out.push_back({"assigned_unknown_device", s, false});
  }
  return out;
}

std::vector<NamedGraphDef> SeedGraphDefs() {
  std::vector<NamedGraphDef> out = {
      {"add_int32", AddInt32()},
      {"mul_float_two_devices", MulFloatOnTwoDevices()},
      {"const_chain_control", ConstChainWithControl()},
      {"switch_merge", SwitchMerge()},
      {"while_loop", WhileLoop()},
      {"variable_assign", VariableAssign()},
      {"partition_like", PartitionLike()},
      {"with_library", WithLibrary()},
      {"empty", GraphDef()},
  };
  for (NamedGraphDef& g : InvalidGraphDefs()) out.push_back(std::move(g));
  for (const NamedPipelineSpec& p : SeedPipelineSpecs()) {
    out.push_back({"pipeline_" + p.name, BuildGraphDef(p.spec)});
  }
  return out;
}

std::vector<Seed> GraphDefBinarySeeds() {
  std::vector<Seed> out;
  for (const NamedGraphDef& g : SeedGraphDefs()) {
    out.push_back({g.name, g.graph.SerializeAsString()});
  }
  const std::string add = AddInt32().SerializeAsString();
  out.push_back({"truncated", add.substr(0, add.size() / 2)});
  return out;
}

std::vector<Seed> GraphDefTextSeeds() {
  std::vector<Seed> out;
  for (const NamedGraphDef& g : SeedGraphDefs()) {
    out.push_back({g.name, GraphDefToText(g.graph)});
  }
  out.push_back({"handwritten_comments",
                 "# Two float inputs and their product.\n"
                 "node { name: \"a\" op: \"Placeholder\" "
                 "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
                 "node { name: \"b\" op: \"Placeholder\" "
                 "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
                 "node { name: \"c\" op: \"Mul\" input: \"a\" input: \"b\" "
                 "device: \"/cpu:0\" "
                 "attr { key: \"T\" value { type: DT_FLOAT } } }\n"
                 "versions { producer: 27 }\n"});
  out.push_back({"bad_syntax", "node { name: \"a\" op: \"NoOp\" \n"});
  return out;
}

std::vector<Seed> PipelineSeeds() {
  std::vector<Seed> out;
  for (const NamedPipelineSpec& p : SeedPipelineSpecs()) {
    out.push_back({p.name, EncodePipelineSpec(p.spec)});
  }
  out.push_back({"empty", ""});
  return out;
}

std::vector<Seed> TensorProtoSeeds() {
  std::vector<Seed> out;
  const DataType types[] = {DT_FLOAT,      DT_DOUBLE, DT_INT32,    DT_UINT8,
                            DT_INT16,      DT_INT8,   DT_STRING,   DT_COMPLEX64,
                            DT_INT64,      DT_BOOL,   DT_BFLOAT16, DT_UINT16,
                            DT_COMPLEX128, DT_HALF,   DT_UINT32,   DT_UINT64};
  for (DataType dt : types) {
    Tensor t(dt, TensorShape({2, 3}));
    if (dt == DT_STRING) {
      for (int i = 0; i < 6; ++i)
        t.base<std::string>()[i] = absl::StrCat("s", i);
    } else if (dt == DT_BOOL) {
      for (int i = 0; i < 6; ++i) t.base<bool>()[i] = (i % 2) != 0;
    } else {
      unsigned char* bytes = static_cast<unsigned char*>(t.raw_data());
      for (size_t i = 0; i < t.TotalBytes(); ++i) {
        bytes[i] = static_cast<unsigned char>(i * 37 + 1);
      }
    }
    const std::string name = DataTypeString(dt);
    for (bool content : {true, false}) {
      TensorProto p;
      TensorToProto(t, &p, content);
      out.push_back({absl::StrCat(name, content ? "_content" : "_values"),
                     p.SerializeAsString()});
    }
  }
  {
    TensorProto p;  // Scalar resource handle.
    p.set_dtype(DT_RESOURCE);
    p.mutable_tensor_shape();
    ResourceHandleProto* h = p.add_resource_handle_val();
    h->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
    h->set_name("v");
    out.push_back({"resource", p.SerializeAsString()});
  }
  {
    TensorProto p;  // Last value repeats.
    p.set_dtype(DT_FLOAT);
    p.mutable_tensor_shape()->add_dim()->set_size(5);
    p.add_float_val(1.5f);
    out.push_back({"float_repeat", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_INT32);
    p.mutable_tensor_shape()->add_dim()->set_size(1);
    p.add_int_val(1);
    p.add_int_val(2);
    out.push_back({"bad_too_many_values", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_FLOAT);
    p.mutable_tensor_shape()->add_dim()->set_size(2);
    p.set_tensor_content("abc");
    out.push_back({"bad_content_size", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_FLOAT);
    p.mutable_tensor_shape()->add_dim()->set_size(-1);
    out.push_back({"bad_negative_dim", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_FLOAT);
    p.mutable_tensor_shape()->set_unknown_rank(true);
    out.push_back({"bad_unknown_rank", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_COMPLEX64);
    p.add_scomplex_val(1.0f);
    out.push_back({"bad_odd_complex", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_BOOL);
    p.set_tensor_content(std::string(1, '\x02'));
    out.push_back({"bad_bool_content", p.SerializeAsString()});
  }
  {
    TensorProto p;
    p.set_dtype(DT_FLOAT_REF);
    out.push_back({"bad_ref_dtype", p.SerializeAsString()});
  }
  {
    TensorProto p;  // Overflowing element count.
    p.set_dtype(DT_INT8);
    for (int i = 0; i < 3; ++i) {
      p.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 30);
    }
    out.push_back({"bad_huge_shape", p.SerializeAsString()});
  }
  return out;
}

std::vector<Seed> RendezvousKeySeeds() {
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  std::vector<Seed> out = {
      {"key_local", Rendezvous::CreateKey(cpu0, 1, cpu1, "edge_5_c", {})},
      {"key_frame", Rendezvous::CreateKey(cpu1, 0xfedcba9876543210ull, cpu0,
                                          "edge_12_while/add", {7, 42})},
      {"key_worker",
       Rendezvous::CreateKey("/job:worker/replica:0/task:3/device:CPU:0", 9,
                             "/job:ps/replica:0/task:0/device:CPU:0", "x:0",
                             {0, 0})},
      {"key_short_devices", "/cpu:0;00000000000000ff;/cpu:1;t;0:0"},
      {"key_bad_parts", "/cpu:0;1;/cpu:1;t"},
      {"key_bad_hex", "/cpu:0;xyz;/cpu:1;t;0:0"},
      {"key_bad_frame", "/cpu:0;1;/cpu:1;t;0"},
      {"key_empty_name", "/cpu:0;1;/cpu:1;;0:0"},
      {"name_full", cpu0},
      {"name_partial", "/job:w/task:1"},
      {"name_any_id", "/device:CPU:*"},
      {"name_legacy", "/job:localhost/gpu:1"},
      {"name_replica", "/job:a_1/replica:2/task:3/device:XLA_CPU:4"},
      {"name_bad_job", "/job:Worker"},
      {"name_bad_repeat", "/job:a/job:b"},
      {"name_empty", ""},
  };
  return out;
}

}  // namespace stepflow::fuzzing
