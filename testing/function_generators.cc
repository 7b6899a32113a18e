#include "testing/function_generators.h"

#include <utility>

#include <rapidcheck.h>

#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor.pb.h"

namespace stepflow::graph_testing {
namespace {

// Uniform in [lo, hi), independent of rapidcheck's size.
int Uniform(int lo, int hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi));
}

template <typename T>
const T& PickOne(const std::vector<T>& v) {
  return v[Uniform(0, static_cast<int>(v.size()))];
}

void SetType(NodeDef* n, const char* attr, DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

void SetTypeList(NodeDef* n, const char* attr, int count) {
  AttrValue::ListValue* list = (*n->mutable_attr())[attr].mutable_list();
  for (int i = 0; i < count; ++i) list->add_type(DT_FLOAT);
}

void SetFunc(NodeDef* n, const char* attr, const std::string& fn) {
  (*n->mutable_attr())[attr].mutable_func()->set_name(fn);
}

NodeDef ConstNode(const std::string& name, DataType dtype, float value) {
  NodeDef n;
  n.set_name(name);
  n.set_op("Const");
  SetType(&n, "dtype", dtype);
  TensorProto* t = (*n.mutable_attr())["value"].mutable_tensor();
  t->set_dtype(dtype);
  t->mutable_tensor_shape();
  if (dtype == DT_INT32) {
    t->add_int_val(static_cast<int32_t>(value));
  } else {
    t->add_float_val(value);
  }
  return n;
}

void AddArg(OpDef* sig, const std::string& name, DataType t, bool output) {
  OpDef::ArgDef* arg = output ? sig->add_output_arg() : sig->add_input_arg();
  arg->set_name(name);
  arg->set_type(t);
}

// A call, inside a function body, of element-wise function `fn` with
// `arity` arguments; returns the reference to its result.
std::string AddNestedCall(const std::string& node, const std::string& fn,
                          int arity, const std::vector<std::string>& args,
                          FunctionDef* f) {
  NodeDef* n = f->add_node_def();
  n->set_name(node);
  for (const std::string& a : args) n->add_input(a);
  if (*rc::gen::arbitrary<bool>()) {
    n->set_op(fn);
    return node + ":out:0";
  }
  n->set_op("PartitionedCall");
  SetTypeList(n, "Tin", arity);
  SetTypeList(n, "Tout", 1);
  SetFunc(n, "f", fn);
  return node + ":output:0";
}

// fn<k>: one to three nodes over the arguments and earlier results.
FunctionDef DrawElementwise(int k, int arity, const DrawnLibrary& lib) {
  FunctionDef f;
  OpDef* sig = f.mutable_signature();
  sig->set_name(absl::StrCat("fn", k));
  std::vector<std::string> values;  // references usable as inputs
  for (int a = 0; a < arity; ++a) {
    const std::string arg = a == 0 ? "x" : "y";
    AddArg(sig, arg, DT_FLOAT, false);
    values.push_back(arg);
  }
  AddArg(sig, "out", DT_FLOAT, true);
  const int num_nodes = Uniform(1, 4);
  for (int i = 0; i < num_nodes; ++i) {
    const std::string node = absl::StrCat("b", i);
    const bool can_nest = !lib.unary.empty();
    const int kind =
        *rc::gen::weightedElement<int>({{1, 0},  // Const
                                        {1, 1},  // Identity
                                        {4, 2},  // Add / AddV2 / Mul
                                        {can_nest ? 2 : 0, 3}});
    if (kind == 0) {
      *f.add_node_def() =
          ConstNode(node, DT_FLOAT, static_cast<float>(Uniform(-3, 4)) / 2);
      values.push_back(node + ":output:0");
    } else if (kind == 1) {
      NodeDef* n = f.add_node_def();
      n->set_name(node);
      n->set_op("Identity");
      n->add_input(PickOne(values));
      SetType(n, "T", DT_FLOAT);
      values.push_back(node + ":output:0");
    } else if (kind == 2) {
      NodeDef* n = f.add_node_def();
      n->set_name(node);
      n->set_op(*rc::gen::element<std::string>("Add", "AddV2", "Mul"));
      n->add_input(PickOne(values));
      n->add_input(PickOne(values));
      SetType(n, "T", DT_FLOAT);
      values.push_back(node + ":z:0");
    } else {
      const bool binary = !lib.binary.empty() && *rc::gen::arbitrary<bool>();
      const std::string& fn = binary ? PickOne(lib.binary) : PickOne(lib.unary);
      std::vector<std::string> args = {PickOne(values)};
      if (binary) args.push_back(PickOne(values));
      values.push_back(AddNestedCall(node, fn, binary ? 2 : 1, args, &f));
    }
  }
  (*f.mutable_ret())["out"] = values.back();
  return f;
}

// loop_cond<k>(v, c) = c < limit.
FunctionDef DrawLoopCond(int k) {
  FunctionDef f;
  OpDef* sig = f.mutable_signature();
  sig->set_name(absl::StrCat("loop_cond", k));
  AddArg(sig, "v", DT_FLOAT, false);
  AddArg(sig, "c", DT_FLOAT, false);
  AddArg(sig, "keep_going", DT_BOOL, true);
  *f.add_node_def() =
      ConstNode("limit", DT_FLOAT, static_cast<float>(Uniform(0, 4)));
  NodeDef* less = f.add_node_def();
  less->set_name("less");
  less->set_op("Less");
  less->add_input("c");
  less->add_input("limit:output:0");
  SetType(less, "T", DT_FLOAT);
  (*f.mutable_ret())["keep_going"] = "less:z:0";
  return f;
}

// loop_body<k>(v, c) = (fn(v), c + 1) for an element-wise fn of one
// argument.
FunctionDef DrawLoopBody(int k, const DrawnLibrary& lib) {
  FunctionDef f;
  OpDef* sig = f.mutable_signature();
  sig->set_name(absl::StrCat("loop_body", k));
  AddArg(sig, "v", DT_FLOAT, false);
  AddArg(sig, "c", DT_FLOAT, false);
  AddArg(sig, "v_next", DT_FLOAT, true);
  AddArg(sig, "c_next", DT_FLOAT, true);
  const std::string v_next =
      AddNestedCall("step", PickOne(lib.unary), 1, {"v"}, &f);
  *f.add_node_def() = ConstNode("one", DT_FLOAT, 1.0f);
  NodeDef* inc = f.add_node_def();
  inc->set_name("inc");
  inc->set_op("AddV2");
  inc->add_input("c");
  inc->add_input("one:output:0");
  SetType(inc, "T", DT_FLOAT);
  (*f.mutable_ret())["v_next"] = v_next;
  (*f.mutable_ret())["c_next"] = "inc:z:0";
  return f;
}

void MarkLowered(NodeDef* n) {
  (*n->mutable_attr())["_lower_using_switch_merge"].set_b(true);
}

}  // namespace

DrawnLibrary DrawFunctionLibrary() {
  DrawnLibrary lib;
  const int num_elementwise = Uniform(2, 5);
  for (int k = 0; k < num_elementwise; ++k) {
    const int arity = k == 0 ? 1 : k == 1 ? 2 : Uniform(1, 3);
    *lib.library.add_function() = DrawElementwise(k, arity, lib);
    (arity == 1 ? lib.unary : lib.binary).push_back(absl::StrCat("fn", k));
  }
  const int num_loops = Uniform(1, 3);
  for (int k = 0; k < num_loops; ++k) {
    *lib.library.add_function() = DrawLoopCond(k);
    *lib.library.add_function() = DrawLoopBody(k, lib);
    lib.loop_conds.push_back(absl::StrCat("loop_cond", k));
    lib.loop_bodies.push_back(absl::StrCat("loop_body", k));
  }
  return lib;
}

std::vector<NodeDef> DrawCallNodes(const DrawnLibrary& lib,
                                   const std::string& name,
                                   const std::vector<std::string>& sources,
                                   const std::string& device, bool by_name) {
  std::vector<NodeDef> out;
  NodeDef call;
  call.set_name(name);
  const std::string kind =
      *rc::gen::weightedElement<std::string>({{by_name ? 3 : 0, "by_name"},
                                              {2, "PartitionedCall"},
                                              {2, "StatefulPartitionedCall"},
                                              {2, "If"},
                                              {1, "StatelessIf"},
                                              {2, "Case"},
                                              {1, "StatelessCase"},
                                              {2, "While"},
                                              {1, "StatelessWhile"}});
  const bool binary = *rc::gen::arbitrary<bool>();
  const int arity = binary ? 2 : 1;
  const std::vector<std::string>& fns = binary ? lib.binary : lib.unary;
  auto add_args = [&](NodeDef* n) {
    for (int a = 0; a < arity; ++a) n->add_input(PickOne(sources));
  };
  if (kind == "by_name") {
    call.set_op(PickOne(fns));
    add_args(&call);
  } else if (kind == "PartitionedCall" || kind == "StatefulPartitionedCall") {
    call.set_op(kind);
    add_args(&call);
    SetTypeList(&call, "Tin", arity);
    SetTypeList(&call, "Tout", 1);
    SetFunc(&call, "f", PickOne(fns));
  } else if (kind == "If" || kind == "StatelessIf") {
    call.set_op(kind);
    call.add_input(PickOne(sources));
    add_args(&call);
    SetType(&call, "Tcond", DT_FLOAT);
    SetTypeList(&call, "Tin", arity);
    SetTypeList(&call, "Tout", 1);
    SetFunc(&call, "then_branch", PickOne(fns));
    SetFunc(&call, "else_branch", PickOne(fns));
    MarkLowered(&call);
  } else if (kind == "Case" || kind == "StatelessCase") {
    const int num_branches = Uniform(1, 4);
    const std::string index = name + "_index";
    out.push_back(ConstNode(index, DT_INT32,
                            static_cast<float>(Uniform(-1, num_branches + 1))));
    call.set_op(kind);
    call.add_input(index);
    add_args(&call);
    SetTypeList(&call, "Tin", arity);
    SetTypeList(&call, "Tout", 1);
    AttrValue::ListValue* branches =
        (*call.mutable_attr())["branches"].mutable_list();
    for (int b = 0; b < num_branches; ++b) {
      branches->add_func()->set_name(PickOne(fns));
    }
    MarkLowered(&call);
  } else {
    const std::string counter = name + "_counter";
    out.push_back(ConstNode(counter, DT_FLOAT, 0.0f));
    const int loop = Uniform(0, static_cast<int>(lib.loop_conds.size()));
    call.set_op(kind);
    call.add_input(PickOne(sources));
    call.add_input(counter);
    SetTypeList(&call, "T", 2);
    SetFunc(&call, "cond", lib.loop_conds[loop]);
    SetFunc(&call, "body", lib.loop_bodies[loop]);
    (*call.mutable_attr())["parallel_iterations"].set_i(Uniform(1, 11));
    MarkLowered(&call);
  }
  for (NodeDef& n : out) n.set_device(device);
  call.set_device(device);
  out.push_back(std::move(call));
  return out;
}

}  // namespace stepflow::graph_testing
