#include "runtime/function/lower_cond.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/lowering_nodes.h"

namespace stepflow {
namespace {

// One branch of a lowered conditional.
struct Branch {
  NameAttrList f;
  std::string pred;  // bool tensor the branch's Switches use
  int port = 1;      // Switch output that feeds the branch
  std::string pivot;
};

absl::Status NodeError(const NodeDef& node, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(FormatNodeName(node.name()), ": ", message));
}

absl::Status GetListAttr(const NodeDef& node, const char* name,
                         AttrValue* value) {
  const AttrValue* v = FindNodeAttr(node, name);
  if (v == nullptr) {
    return NodeError(node, absl::StrCat("missing attr '", name, "'"));
  }
  *value = *v;
  return absl::OkStatus();
}

// Emits everything after the predicates: input Switches, branch calls,
// Merges and the node that takes `node`'s name.
absl::Status LowerBranches(const NodeDef& node,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& controls,
                           std::vector<Branch>* branches,
                           std::vector<NodeDef>* out) {
  const std::string prefix = absl::StrCat(node.name(), "/");
  const std::string& device = node.device();
  AttrValue tin, tout;
  absl::Status s = GetListAttr(node, "Tin", &tin);
  if (s.ok()) s = GetListAttr(node, "Tout", &tout);
  if (!s.ok()) return s;
  if (tin.list().type_size() != static_cast<int>(inputs.size())) {
    return NodeError(
        node,
        absl::StrCat("attr 'Tin' lists ", tin.list().type_size(),
                     " types but the node has ", inputs.size(), " inputs"));
  }
  const bool one_switch_per_input =
      branches->size() == 2 && (*branches)[0].pred == (*branches)[1].pred;
  std::vector<std::vector<std::string>> branch_inputs(branches->size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t b = 0; b < branches->size(); ++b) {
      const Branch& br = (*branches)[b];
      std::string sw = absl::StrCat(prefix, "input_", i);
      if (!one_switch_per_input) absl::StrAppend(&sw, "_", b);
      if (b == 0 || !one_switch_per_input) {
        std::vector<std::string> in = {inputs[i], br.pred};
        in.insert(in.end(), controls.begin(), controls.end());
        NodeDef n = LoweredNode(sw, "Switch", device, in);
        AddNodeAttr("T", static_cast<DataType>(tin.list().type(i)), &n);
        out->push_back(std::move(n));
      }
      branch_inputs[b].push_back(absl::StrCat(sw, ":", br.port));
    }
  }
  std::vector<std::string> calls, done;
  for (size_t b = 0; b < branches->size(); ++b) {
    const Branch& br = (*branches)[b];
    const std::string call =
        absl::StrCat(prefix, branches->size() == 2 && one_switch_per_input
                                 ? (b == 0 ? "then" : "else")
                                 : absl::StrCat("branch_", b));
    std::vector<std::string> in = branch_inputs[b];
    in.push_back(absl::StrCat("^", br.pivot));
    out->push_back(LoweredCall(call, device, br.f, in, tin, tout));
    calls.push_back(call);
    const std::string d = absl::StrCat(call, "_done");
    NodeDef n =
        LoweredNode(d, "Identity", device, {br.pivot, absl::StrCat("^", call)});
    AddNodeAttr("T", DT_BOOL, &n);
    out->push_back(std::move(n));
    done.push_back(d);
  }
  const int n_branches = static_cast<int>(branches->size());
  auto merge = [&](const std::string& name, const std::vector<std::string>& in,
                   DataType type) {
    NodeDef n = LoweredNode(name, "Merge", device, in);
    AddNodeAttr("T", type, &n);
    AddNodeAttr("N", n_branches, &n);
    out->push_back(std::move(n));
  };
  const std::string executed = absl::StrCat(prefix, "branch_executed");
  merge(executed, done, DT_BOOL);
  std::vector<std::string> outputs;
  for (int j = 0; j < tout.list().type_size(); ++j) {
    std::vector<std::string> in;
    for (const std::string& call : calls)
      in.push_back(absl::StrCat(call, ":", j));
    const std::string name = absl::StrCat(prefix, "output_", j);
    merge(name, in, static_cast<DataType>(tout.list().type(j)));
    outputs.push_back(name);
  }
  out->push_back(LoweredResult(node.name(), device, outputs, tout, {executed}));
  return absl::OkStatus();
}

// Switch(pred, pred) and the Identity of output `port` that guards a
// branch; returns the Identity's name.
std::string Pivot(const NodeDef& node, const std::string& switch_name,
                  const std::string& pred,
                  const std::vector<std::string>& controls, int port,
                  const std::string& pivot_name, bool emit_switch,
                  std::vector<NodeDef>* out) {
  if (emit_switch) {
    std::vector<std::string> in = {pred, pred};
    in.insert(in.end(), controls.begin(), controls.end());
    NodeDef sw = LoweredNode(switch_name, "Switch", node.device(), in);
    AddNodeAttr("T", DT_BOOL, &sw);
    out->push_back(std::move(sw));
  }
  NodeDef id = LoweredNode(pivot_name, "Identity", node.device(),
                           {absl::StrCat(switch_name, ":", port)});
  AddNodeAttr("T", DT_BOOL, &id);
  out->push_back(std::move(id));
  return pivot_name;
}

// TensorFlow's If kernel (which runs an If that is not marked
// _lower_using_switch_merge) reads its cond as: a scalar is true when it is
// non-zero, any other tensor when it has elements. Emits that test as nodes
// and returns the scalar bool tensor.
std::string CondToBool(const NodeDef& node, const std::string& cond,
                       DataType type, std::vector<NodeDef>* out) {
  const std::string p = absl::StrCat(node.name(), "/cond_to_bool/");
  const std::string& device = node.device();
  auto add = [&](const std::string& name, const std::string& op,
                 const std::vector<std::string>& in, DataType t) {
    NodeDef n = LoweredNode(absl::StrCat(p, name), op, device, in);
    if (t != DT_INVALID) AddNodeAttr("T", t, &n);
    out->push_back(std::move(n));
    return absl::StrCat(p, name);
  };
  const std::string zeros = add("zeros", "ZerosLike", {cond}, type);
  const std::string nonzero = add("nonzero", "NotEqual", {cond, zeros}, type);
  const std::string rank = add("rank", "Rank", {cond}, type);
  out->push_back(Int32Const(absl::StrCat(p, "zero"), device, 0, rank));
  out->push_back(Int32Const(absl::StrCat(p, "one"), device, 1, rank));
  const std::string zero = absl::StrCat(p, "zero");
  NodeDef axes = LoweredNode(absl::StrCat(p, "axes"), "Range", device,
                             {zero, rank, absl::StrCat(p, "one")});
  AddNodeAttr("Tidx", DT_INT32, &axes);
  out->push_back(std::move(axes));
  NodeDef any = LoweredNode(absl::StrCat(p, "any"), "Any", device,
                            {nonzero, absl::StrCat(p, "axes")});
  AddNodeAttr("Tidx", DT_INT32, &any);
  out->push_back(std::move(any));
  const std::string size = add("size", "Size", {cond}, type);
  const std::string nonempty =
      add("nonempty", "Greater", {size, zero}, DT_INT32);
  const std::string scalar = add("is_scalar", "Equal", {rank, zero}, DT_INT32);
  return add("pred", "SelectV2", {scalar, absl::StrCat(p, "any"), nonempty},
             DT_BOOL);
}

}  // namespace

absl::Status LowerIf(const NodeDef& node, std::vector<NodeDef>* out) {
  std::vector<std::string> data, controls;
  SplitInputs(node, &data, &controls);
  if (data.empty()) return NodeError(node, "If has no cond input");
  const AttrValue* tcond = FindNodeAttr(node, "Tcond");
  if (tcond == nullptr) return NodeError(node, "missing attr 'Tcond'");
  if (tcond->type() == DT_STRING) {
    return absl::UnimplementedError(
        absl::StrCat(FormatNodeName(node.name()),
                     ": If with a string cond cannot be lowered yet"));
  }
  const AttrValue* lower = FindNodeAttr(node, "_lower_using_switch_merge");
  if (tcond->type() != DT_BOOL || lower == nullptr || !lower->b()) {
    data[0] = CondToBool(node, data[0], tcond->type(), out);
  }
  const AttrValue* then_f = FindNodeAttr(node, "then_branch");
  const AttrValue* else_f = FindNodeAttr(node, "else_branch");
  if (then_f == nullptr || else_f == nullptr) {
    return NodeError(node, "missing attr 'then_branch' or 'else_branch'");
  }
  const std::string prefix = absl::StrCat(node.name(), "/");
  const std::string sw = absl::StrCat(prefix, "switch_pred");
  std::vector<Branch> branches(2);
  branches[0].f = then_f->func();
  branches[1].f = else_f->func();
  branches[0].pred = branches[1].pred = data[0];
  branches[0].port = 1;
  branches[1].port = 0;
  branches[0].pivot = Pivot(node, sw, data[0], controls, 1,
                            absl::StrCat(prefix, "pivot_t"), true, out);
  branches[1].pivot = Pivot(node, sw, data[0], controls, 0,
                            absl::StrCat(prefix, "pivot_f"), false, out);
  std::vector<std::string> inputs(data.begin() + 1, data.end());
  return LowerBranches(node, inputs, controls, &branches, out);
}

absl::Status LowerCase(const NodeDef& node, std::vector<NodeDef>* out) {
  std::vector<std::string> data, controls;
  SplitInputs(node, &data, &controls);
  if (data.empty()) return NodeError(node, "Case has no branch_index input");
  const AttrValue* fs = FindNodeAttr(node, "branches");
  if (fs == nullptr || fs->list().func_size() == 0) {
    return NodeError(node, "attr 'branches' must list at least one function");
  }
  const std::string prefix = absl::StrCat(node.name(), "/");
  const std::string& device = node.device();
  const int n = fs->list().func_size();
  const std::string index = absl::StrCat(prefix, "branch_index");
  {
    std::vector<std::string> in = {data[0]};
    in.insert(in.end(), controls.begin(), controls.end());
    NodeDef id = LoweredNode(index, "Identity", device, in);
    AddNodeAttr("T", DT_INT32, &id);
    out->push_back(std::move(id));
  }
  auto compare = [&](const std::string& name, const char* op, int value) {
    const std::string k = absl::StrCat(name, "/y");
    out->push_back(Int32Const(k, device, value, index));
    NodeDef c = LoweredNode(name, op, device, {index, k});
    AddNodeAttr("T", DT_INT32, &c);
    out->push_back(std::move(c));
  };
  std::vector<Branch> branches(n);
  for (int b = 0; b < n; ++b) {
    Branch& br = branches[b];
    br.f = fs->list().func(b);
    br.pred = absl::StrCat(prefix, "pred_", b);
    if (b < n - 1) {
      compare(br.pred, "Equal", b);
    } else {
      // The last branch also takes every index outside [0, n - 1).
      const std::string below = absl::StrCat(prefix, "index_below_range");
      const std::string above = absl::StrCat(prefix, "index_at_or_above_last");
      compare(below, "Less", 0);
      compare(above, "GreaterEqual", n - 1);
      out->push_back(LoweredNode(br.pred, "LogicalOr", device, {below, above}));
    }
    br.pivot = Pivot(node, absl::StrCat(prefix, "switch_pred_", b), br.pred, {},
                     1, absl::StrCat(prefix, "pivot_", b), true, out);
  }
  std::vector<std::string> inputs(data.begin() + 1, data.end());
  return LowerBranches(node, inputs, controls, &branches, out);
}

}  // namespace stepflow
