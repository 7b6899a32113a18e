#include "sim/workloads/multi_client_graphs.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor.pb.h"
#include "sim/workloads/sim_ops.h"

namespace stepflow {
namespace multi_client {
namespace {

std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

// A NodeDef under construction; attrs by name.
class NodeBuilder {
 public:
  NodeBuilder(GraphDef* g, const std::string& name, const std::string& op)
      : n_(g->add_node()) {
    n_->set_name(name);
    n_->set_op(op);
  }
  NodeBuilder& Input(const std::string& in) {
    n_->add_input(in);
    return *this;
  }
  NodeBuilder& Type(const std::string& attr, DataType t) {
    (*n_->mutable_attr())[attr].set_type(t);
    return *this;
  }
  NodeBuilder& Int(const std::string& attr, int64_t v) {
    (*n_->mutable_attr())[attr].set_i(v);
    return *this;
  }
  NodeBuilder& Bool(const std::string& attr, bool v) {
    (*n_->mutable_attr())[attr].set_b(v);
    return *this;
  }
  NodeBuilder& Str(const std::string& attr, const std::string& v) {
    (*n_->mutable_attr())[attr].set_s(v);
    return *this;
  }
  NodeBuilder& StrList(const std::string& attr, const std::string& v) {
    (*n_->mutable_attr())[attr].mutable_list()->add_s(v);
    return *this;
  }
  NodeBuilder& Shape(const std::string& attr,
                     const std::vector<int64_t>& dims) {
    TensorShapeProto* s = (*n_->mutable_attr())[attr].mutable_shape();
    for (int64_t d : dims) s->add_dim()->set_size(d);
    return *this;
  }
  NodeBuilder& IntValue(int32_t v) {
    Type("dtype", DT_INT32);
    TensorProto* t = (*n_->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_INT32);
    t->mutable_tensor_shape();
    t->add_int_val(v);
    return *this;
  }
  NodeBuilder& IntVectorValue(const std::vector<int32_t>& v) {
    Type("dtype", DT_INT32);
    TensorProto* t = (*n_->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_INT32);
    t->mutable_tensor_shape()->add_dim()->set_size(
        static_cast<int64_t>(v.size()));
    for (int32_t x : v) t->add_int_val(x);
    return *this;
  }
  NodeBuilder& FloatValue(const std::vector<float>& v, bool scalar) {
    Type("dtype", DT_FLOAT);
    TensorProto* t = (*n_->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_FLOAT);
    TensorShapeProto* shape = t->mutable_tensor_shape();
    if (!scalar) shape->add_dim()->set_size(static_cast<int64_t>(v.size()));
    for (float x : v) t->add_float_val(x);
    return *this;
  }
  NodeBuilder& Device(const std::string& d) {
    n_->set_device(d);
    return *this;
  }

 private:
  NodeDef* n_;
};

// Loop plumbing as tf.while_loop emits it.
class LoopWriter {
 public:
  LoopWriter(GraphDef* g) : g_(g) {}

  NodeBuilder Node(const std::string& name, const std::string& op) {
    return NodeBuilder(g_, name, op);
  }
  void Enter(const std::string& name, const std::string& input,
             const std::string& frame, bool is_constant) {
    Node(name, "Enter")
        .Input(input)
        .Type("T", DT_INT32)
        .Str("frame_name", frame)
        .Bool("is_constant", is_constant)
        .Int("parallel_iterations", 10);
  }
  void VarHead(const std::string& scope, const std::string& frame,
               const std::string& k, const std::string& init) {
    Enter(scope + "/Enter" + k, init, frame, false);
    Node(scope + "/Merge" + k, "Merge")
        .Input(scope + "/Enter" + k)
        .Input(scope + "/NextIteration" + k)
        .Int("N", 2)
        .Type("T", DT_INT32);
  }
  void VarTail(const std::string& scope, const std::string& k,
               const std::string& next_value) {
    Node(scope + "/Switch" + k, "Switch")
        .Input(scope + "/Merge" + k)
        .Input(scope + "/LoopCond")
        .Type("T", DT_INT32)
        .StrList("_class", "loc:@" + scope + "/Merge" + k);
    Node(scope + "/Identity" + k, "Identity")
        .Input(scope + "/Switch" + k + ":1")
        .Type("T", DT_INT32);
    Node(scope + "/NextIteration" + k, "NextIteration")
        .Input(next_value)
        .Type("T", DT_INT32);
    Node(scope + "/Exit" + k, "Exit")
        .Input(scope + "/Switch" + k)
        .Type("T", DT_INT32);
  }
  void IntConst(const std::string& name, int32_t v,
                const std::string& control = "") {
    NodeBuilder b = Node(name, "Const");
    if (!control.empty()) b.Input("^" + control);
    b.IntValue(v);
  }
  void Add(const std::string& name, const std::string& a,
           const std::string& b) {
    Node(name, "Add").Input(a).Input(b).Type("T", DT_INT32);
  }
  void Less(const std::string& name, const std::string& a,
            const std::string& b) {
    Node(name, "Less").Input(a).Input(b).Type("T", DT_INT32);
  }
  void LoopCond(const std::string& name, const std::string& pred) {
    Node(name, "LoopCond").Input(pred);
  }

 private:
  GraphDef* g_;
};

// A device per node, a Switch following its Merge.
void PlaceRandomly(int num_devices, Random* random, GraphDef* g) {
  std::map<std::string, int> chosen;
  for (NodeDef& n : *g->mutable_node()) {
    std::string key = n.name();
    const size_t at = key.rfind("/Switch");
    if (at != std::string::npos) key.replace(at, 7, "/Merge");
    auto it = chosen.find(key);
    if (it == chosen.end()) {
      it = chosen
               .emplace(key, static_cast<int>(random->Uniform(
                                 static_cast<uint64_t>(num_devices))))
               .first;
    }
    n.set_device(Cpu(it->second));
  }
}

std::string StripIndex(const std::string& fetch) {
  return absl::EndsWith(fetch, ":0") ? fetch.substr(0, fetch.size() - 2)
                                     : fetch;
}

}  // namespace

GraphDef BuildLoopGraph(const SimGraph& spec, Random* random) {
  GraphDef g;
  LoopWriter t(&g);
  const std::string f = "while/while_context";
  switch (spec.kind()) {
    case SimGraph::COUNTER_LOOP: {
      t.IntConst("Const", 0);
      t.Node("n", "Placeholder").Type("dtype", DT_INT32);
      t.VarHead("while", f, "", "Const");
      t.Enter("while/Less/Enter", "n", f, true);
      t.Less("while/Less", "while/Merge", "while/Less/Enter");
      t.LoopCond("while/LoopCond", "while/Less");
      t.VarTail("while", "", "while/Add");
      t.IntConst("while/Add/y", 1, "while/Identity");
      t.Add("while/Add", "while/Identity", "while/Add/y");
      break;
    }
    case SimGraph::SUM_LOOP: {
      t.IntConst("Const", 0);
      t.IntConst("Const_1", 0);
      t.Node("n", "Placeholder").Type("dtype", DT_INT32);
      t.VarHead("while", f, "", "Const");
      t.VarHead("while", f, "_1", "Const_1");
      t.Enter("while/Less/Enter", "n", f, true);
      t.Less("while/Less", "while/Merge", "while/Less/Enter");
      t.LoopCond("while/LoopCond", "while/Less");
      t.VarTail("while", "", "while/add");
      t.VarTail("while", "_1", "while/add_1");
      t.IntConst("while/add/y", 1, "while/Identity");
      t.Add("while/add", "while/Identity", "while/add/y");
      t.Add("while/add_1", "while/Identity_1", "while/Identity");
      break;
    }
    default: {  // NESTED_LOOP
      const std::string inner = "while/while/while_context";
      t.IntConst("Const", 0);
      t.IntConst("Const_1", 0);
      t.VarHead("while", f, "", "Const");
      t.VarHead("while", f, "_1", "Const_1");
      t.IntConst("while/Less/y", spec.outer_trips(), "while/Merge");
      t.Less("while/Less", "while/Merge", "while/Less/y");
      t.LoopCond("while/LoopCond", "while/Less");
      t.VarTail("while", "", "while/add");
      t.VarTail("while", "_1", "while/while/Exit_1");
      t.IntConst("while/Const", 0, "while/Identity");
      t.VarHead("while/while", inner, "", "while/Const");
      t.VarHead("while/while", inner, "_1", "while/Identity_1");
      t.IntConst("while/while/Less/y", spec.inner_trips(), "while/while/Merge");
      t.Less("while/while/Less", "while/while/Merge", "while/while/Less/y");
      t.LoopCond("while/while/LoopCond", "while/while/Less");
      t.VarTail("while/while", "", "while/while/add");
      t.VarTail("while/while", "_1", "while/while/add_1");
      t.IntConst("while/while/add/y", 1, "while/while/Identity");
      t.Add("while/while/add", "while/while/Identity", "while/while/add/y");
      t.IntConst("while/while/add_1/y", 1, "while/while/Identity");
      t.Add("while/while/add_1", "while/while/Identity_1",
            "while/while/add_1/y");
      t.IntConst("while/add/y", 1, "while/Identity");
      t.Add("while/add", "while/Identity", "while/add/y");
      break;
    }
  }
  PlaceRandomly(spec.num_devices(), random, &g);
  g.mutable_versions()->set_producer(kGraphProducer);
  return g;
}

// A function of the training graph's library: (handle) -> float, whose
// body reads the variable, after adding one to it when `add`.
FunctionDef StepCounterFunction(const std::string& name, bool add) {
  FunctionDef f;
  OpDef* sig = f.mutable_signature();
  sig->set_name(name);
  sig->set_is_stateful(true);
  OpDef::ArgDef* in = sig->add_input_arg();
  in->set_name("handle");
  in->set_type(DT_RESOURCE);
  OpDef::ArgDef* out = sig->add_output_arg();
  out->set_name("count");
  out->set_type(DT_FLOAT);
  GraphDef body;
  if (add) {
    NodeBuilder(&body, "one", "Const").FloatValue({1.0f}, true);
    NodeBuilder(&body, "add", "AssignAddVariableOp")
        .Input("handle")
        .Input("one:output:0")
        .Type("dtype", DT_FLOAT);
  }
  NodeBuilder read(&body, "read", "ReadVariableOp");
  read.Input("handle").Type("dtype", DT_FLOAT);
  if (add) read.Input("^add");
  for (const NodeDef& n : body.node()) *f.add_node_def() = n;
  (*f.mutable_ret())["count"] = "read:value:0";
  return f;
}

// Library functions count_step / read_steps and their calls: "count_step"
// (StatefulPartitionedCall, the train target waits for it) adds one to
// "steps"; "read_steps" (StatefulPartitionedCall) reads it.
void AddStepCounter(GraphDef* g, const std::string& device) {
  *g->mutable_library()->add_function() =
      StepCounterFunction("count_step", true);
  *g->mutable_library()->add_function() =
      StepCounterFunction("read_steps", false);
  for (const char* fn : {"count_step", "read_steps"}) {
    NodeDef* call = g->add_node();
    call->set_name(fn);
    call->set_op("StatefulPartitionedCall");
    call->add_input("steps");
    call->set_device(device);
    (*call->mutable_attr())["Tin"].mutable_list()->add_type(DT_RESOURCE);
    (*call->mutable_attr())["Tout"].mutable_list()->add_type(DT_FLOAT);
    (*call->mutable_attr())["f"].mutable_func()->set_name(fn);
  }
}

GraphDef BuildTrainingGraph(const SimGraph& spec, Random* random) {
  GraphDef g;
  const std::vector<float> xs(spec.batch_x().begin(), spec.batch_x().end());
  const std::vector<float> ys(spec.batch_y().begin(), spec.batch_y().end());
  auto any = [&] {
    return Cpu(static_cast<int>(
        random->Uniform(static_cast<uint64_t>(spec.num_devices()))));
  };
  const std::string home = Cpu(0);
  NodeBuilder(&g, "x", "Const").FloatValue(xs, false).Device(any());
  NodeBuilder(&g, "y", "Const").FloatValue(ys, false).Device(any());
  for (const char* v : {"w", "b"}) {
    NodeBuilder(&g, v, "VariableV2")
        .Type("dtype", DT_FLOAT)
        .Shape("shape", {})
        .Device(home);
    NodeBuilder(&g, absl::StrCat(v, "_init"), "Const")
        .FloatValue({0.0f}, true)
        .Device(home);
    NodeBuilder(&g, absl::StrCat(v, "_assign"), "Assign")
        .Input(v)
        .Input(absl::StrCat(v, "_init"))
        .Type("T", DT_FLOAT)
        .Device(home);
  }
  // A resource variable counting the training steps, assigned and read by
  // stateful function bodies.
  NodeBuilder(&g, "steps", "VarHandleOp")
      .Type("dtype", DT_FLOAT)
      .Shape("shape", {})
      .Str("shared_name", "steps")
      .Device(home);
  NodeBuilder(&g, "steps_init", "Const").FloatValue({0.0f}, true).Device(home);
  NodeBuilder(&g, "steps_assign", "AssignVariableOp")
      .Input("steps")
      .Input("steps_init")
      .Type("dtype", DT_FLOAT)
      .Device(home);
  AddStepCounter(&g, home);
  NodeBuilder(&g, "init", "NoOp")
      .Input("^w_assign")
      .Input("^b_assign")
      .Input("^steps_assign")
      .Device(home);
  NodeBuilder(&g, "wx", "Mul")
      .Input("w")
      .Input("x")
      .Type("T", DT_FLOAT)
      .Device(any());
  NodeBuilder(&g, "pred", "AddV2")
      .Input("wx")
      .Input("b")
      .Type("T", DT_FLOAT)
      .Device(any());
  NodeBuilder(&g, "err", "Sub")
      .Input("pred")
      .Input("y")
      .Type("T", DT_FLOAT)
      .Device(any());
  NodeBuilder(&g, "axis", "Const").IntVectorValue({0}).Device(any());
  NodeBuilder(&g, "two", "Const").FloatValue({2.0f}, true).Device(any());
  NodeBuilder(&g, "err2", "Mul")
      .Input("err")
      .Input("two")
      .Type("T", DT_FLOAT)
      .Device(any());
  NodeBuilder(&g, "err2x", "Mul")
      .Input("err2")
      .Input("x")
      .Type("T", DT_FLOAT)
      .Device(any());
  NodeBuilder(&g, "grad_w", "Mean")
      .Input("err2x")
      .Input("axis")
      .Type("T", DT_FLOAT)
      .Type("Tidx", DT_INT32)
      .Device(any());
  NodeBuilder(&g, "grad_b", "Mean")
      .Input("err2")
      .Input("axis")
      .Type("T", DT_FLOAT)
      .Type("Tidx", DT_INT32)
      .Device(any());
  NodeBuilder(&g, "learning_rate", "Const")
      .FloatValue({spec.learning_rate()}, true)
      .Device(home);
  NodeBuilder(&g, "update_w", "ApplyGradientDescent")
      .Input("w")
      .Input("learning_rate")
      .Input("grad_w")
      .Type("T", DT_FLOAT)
      .Device(home);
  NodeBuilder(&g, "update_b", "ApplyGradientDescent")
      .Input("b")
      .Input("learning_rate")
      .Input("grad_b")
      .Type("T", DT_FLOAT)
      .Device(home);
  NodeBuilder(&g, "train", "NoOp")
      .Input("^update_w")
      .Input("^update_b")
      .Input("^count_step")
      .Device(home);
  g.mutable_versions()->set_producer(kGraphProducer);
  return g;
}

GraphDef BuildDagExtension(const GraphDef& existing, int num_devices,
                           const std::string& prefix, int num_nodes,
                           Random* random) {
  std::vector<std::string> sources;  // Nodes with a float output 0.
  for (const NodeDef& n : existing.node()) {
    auto dtype = n.attr().find("dtype");
    const bool int_const = n.op() == "Const" && dtype != n.attr().end() &&
                           dtype->second.type() != DT_FLOAT;
    if (n.op() != "NoOp" && !int_const) sources.push_back(n.name());
  }
  GraphDef g;
  auto pick = [&]() -> std::string {
    return sources[random->Uniform(sources.size())];
  };
  for (int i = 0; i < num_nodes; ++i) {
    const std::string name = absl::StrCat(prefix, i);
    const std::string device = Cpu(
        static_cast<int>(random->Uniform(static_cast<uint64_t>(num_devices))));
    int choice = static_cast<int>(random->Uniform(10));
    if (sources.empty()) choice = 0;
    if (choice == 0) {
      NodeBuilder(&g, name, "Const")
          .FloatValue({static_cast<float>(random->Uniform(9)) - 4.0f}, true)
          .Device(device);
    } else if (choice == 1) {
      NodeBuilder(&g, name, "Placeholder")
          .Type("dtype", DT_FLOAT)
          .Device(device);
    } else if (choice == 2) {
      NodeBuilder(&g, name, "Identity")
          .Input(pick())
          .Type("T", DT_FLOAT)
          .Device(device);
    } else if (choice <= 8) {
      static const char* const kOps[] = {"Add", "AddV2", "Mul"};
      NodeBuilder(&g, name, kOps[random->Uniform(3)])
          .Input(pick())
          .Input(pick())
          .Type("T", DT_FLOAT)
          .Device(device);
    } else {
      NodeBuilder(&g, name, "NoOp").Input("^" + pick()).Device(device);
    }
    if (g.node(g.node_size() - 1).op() != "NoOp") sources.push_back(name);
  }
  g.mutable_versions()->set_producer(kGraphProducer);
  return g;
}

absl::Status ApplyFaults(
    const google::protobuf::RepeatedPtrField<SimFault>& faults,
    GraphDef* graph) {
  for (const SimFault& f : faults) {
    NodeDef* target = nullptr;
    for (NodeDef& n : *graph->mutable_node()) {
      if (n.name() == f.node()) target = &n;
    }
    if (target == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("fault on unknown node ", f.node()));
    }
    const std::string inner = f.node() + "/sim_inner";
    const std::string device = target->device();
    target->set_name(inner);
    NodeBuilder b(graph, f.node(),
                  f.kind() == SimFault::SLOW_KERNEL ? kSimDelayOp : kSimFailOp);
    b.Input(inner).Type("T", DT_FLOAT).Device(device);
    if (f.kind() == SimFault::SLOW_KERNEL) {
      b.Int("delay_ns", f.delay_nanos());
    } else if (f.kind() == SimFault::FAILING_KERNEL) {
      b.Int("code", f.code());
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("fault of unknown kind on ", f.node()));
    }
  }
  return absl::OkStatus();
}

bool LoopReference(const SimGraph& spec, int32_t n, const std::string& fetch,
                   int64_t* value) {
  const std::string f = StripIndex(fetch);
  switch (spec.kind()) {
    case SimGraph::COUNTER_LOOP:
      if (f != "while/Exit") return false;
      *value = n < 0 ? 0 : n;
      return true;
    case SimGraph::SUM_LOOP:
      if (f == "while/Exit") {
        *value = n < 0 ? 0 : n;
      } else if (f == "while/Exit_1") {
        *value = n <= 0 ? 0 : int64_t{n} * (n - 1) / 2;
      } else {
        return false;
      }
      return true;
    case SimGraph::NESTED_LOOP:
      if (f == "while/Exit") {
        *value = spec.outer_trips();
      } else if (f == "while/Exit_1") {
        *value = int64_t{spec.outer_trips()} * spec.inner_trips();
      } else {
        return false;
      }
      return true;
    default:
      return false;
  }
}

void SgdStep(const SimGraph& spec, SgdState* s) {
  const int n = spec.batch_x_size();
  if (n == 0) return;
  double gw = 0, gb = 0;
  for (int i = 0; i < n; ++i) {
    const double err = s->w * spec.batch_x(i) + s->b - spec.batch_y(i);
    gw += 2 * err * spec.batch_x(i);
    gb += 2 * err;
  }
  gw /= n;
  gb /= n;
  s->w -= spec.learning_rate() * gw;
  s->b -= spec.learning_rate() * gb;
  s->steps += 1;
}

}  // namespace multi_client
}  // namespace stepflow
