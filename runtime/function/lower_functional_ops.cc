#include "runtime/function/lower_functional_ops.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/function_library.h"
#include "runtime/function/inline_function.h"
#include "runtime/function/instantiate.h"
#include "runtime/function/lower_cond.h"
#include "runtime/function/lower_while.h"

namespace stepflow {
namespace {

constexpr char kLowerUsingSwitchMergeAttr[] = "_lower_using_switch_merge";
constexpr char kLowerAsMultiDeviceFunctionAttr[] =
    "_lower_as_multi_device_function";
constexpr char kNoInlineAttr[] = "_noinline";

enum class Kind { kNone, kCall, kPartitionedCall, kIf, kCase, kWhile };

// The names of `library`'s functions.
absl::flat_hash_set<std::string> FunctionNames(
    const FunctionDefLibrary& library) {
  absl::flat_hash_set<std::string> names;
  for (const FunctionDef& f : library.function()) {
    names.insert(f.signature().name());
  }
  return names;
}

Kind Classify(const NodeDef& node, const OpRegistry* ops,
              const absl::flat_hash_set<std::string>& functions) {
  const std::string& op = node.op();
  if (op == "PartitionedCall" || op == "StatefulPartitionedCall") {
    return Kind::kPartitionedCall;
  }
  if (op == "If" || op == "StatelessIf") return Kind::kIf;
  if (op == "Case" || op == "StatelessCase") return Kind::kCase;
  if (op == "While" || op == "StatelessWhile") return Kind::kWhile;
  if (functions.contains(op) && ops->LookUpOrNull(op) == nullptr) {
    return Kind::kCall;
  }
  return Kind::kNone;
}

// Prefixes `s` with the node's name unless it already names it.
absl::Status AtNode(const NodeDef& node, const absl::Status& s) {
  if (s.ok()) return s;
  const std::string tag = FormatNodeName(node.name());
  if (absl::StrContains(s.message(), tag)) return s;
  return absl::Status(s.code(), absl::StrCat(tag, ": ", s.message()));
}

class Lowering {
 public:
  Lowering(const GraphDef& in, const OpRegistry* ops)
      : ops_(ops),
        library_(in.library(), ops),
        functions_(FunctionNames(in.library())) {}

  // Appends `node`, lowered, to *out_.
  absl::Status Expand(NodeDef node, int depth) {
    const Kind kind = Classify(node, ops_, functions_);
    if (kind == Kind::kNone) {
      out_.push_back(std::move(node));
      return absl::OkStatus();
    }
    if (depth > kMaxDepth) {
      return AtNode(node, absl::InvalidArgumentError(absl::StrCat(
                              "function calls nest deeper than ", kMaxDepth)));
    }
    for (const std::string& f : library_.CalledFunctions(node)) {
      absl::Status s = library_.CheckCallable(f);
      if (!s.ok()) return AtNode(node, s);
    }
    if (kind != Kind::kCall) {
      const OpDef* op_def = ops_->LookUpOrNull(node.op());
      if (op_def != nullptr) AddDefaultsToNodeDef(*op_def, &node);
    }
    if (RunsAsKernel(node, kind)) {
      if (kind == Kind::kCall) {
        absl::Status s = ToPartitionedCall(&node);
        if (!s.ok()) return AtNode(node, s);
      }
      out_.push_back(std::move(node));
      return absl::OkStatus();
    }
    std::vector<NodeDef> expansion;
    absl::Status s;
    switch (kind) {
      case Kind::kCall:
        s = Inline(node, node.op(), node.attr(), &expansion);
        break;
      case Kind::kPartitionedCall: {
        const AttrValue* f = FindNodeAttr(node, "f");
        if (f == nullptr || !f->has_func()) {
          return AtNode(node, absl::InvalidArgumentError(
                                  "attr 'f' must name a function"));
        }
        s = Inline(node, f->func().name(), f->func().attr(), &expansion);
        break;
      }
      case Kind::kIf:
        s = LowerIf(node, &expansion);
        break;
      case Kind::kCase:
        s = LowerCase(node, &expansion);
        break;
      case Kind::kWhile:
        s = LowerWhile(node, &expansion);
        break;
      case Kind::kNone:
        break;
    }
    if (!s.ok()) return AtNode(node, s);
    for (NodeDef& n : expansion) {
      s = Expand(std::move(n), depth + 1);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::vector<NodeDef>& out() { return out_; }

 private:
  static constexpr int kMaxDepth = 1000;

  // The policy of the header: whether `node` stays a call kernel.
  bool RunsAsKernel(const NodeDef& node, Kind kind) const {
    bool keep = false;
    switch (kind) {
      case Kind::kIf:
      case Kind::kCase:
      case Kind::kWhile:
        keep = !BoolAttr(node, kLowerUsingSwitchMergeAttr);
        break;
      case Kind::kPartitionedCall: {
        const AttrValue* f = FindNodeAttr(node, "f");
        keep = !BoolAttr(node, kLowerAsMultiDeviceFunctionAttr) &&
               f != nullptr && f->has_func() && NoInline(f->func().name());
        break;
      }
      case Kind::kCall:
        keep = NoInline(node.op());
        break;
      case Kind::kNone:
        break;
    }
    return keep && BodiesStayOnCallerDevice(node);
  }

  static bool BoolAttr(const NodeDef& node, const char* name) {
    const AttrValue* v = FindNodeAttr(node, name);
    return v != nullptr && v->value_case() == AttrValue::kB && v->b();
  }

  bool NoInline(const std::string& function) const {
    const FunctionDef* f = library_.Find(function);
    if (f == nullptr) return false;
    auto it = f->attr().find(kNoInlineAttr);
    return it != f->attr().end() && it->second.value_case() == AttrValue::kB &&
           it->second.b();
  }

  // True when every node of every function `node` reaches requests no
  // device, or one the call's own request already specifies.
  bool BodiesStayOnCallerDevice(const NodeDef& node) const {
    DeviceNameUtils::ParsedName caller;
    if (!DeviceNameUtils::ParseFullName(node.device(), &caller)) return false;
    std::vector<std::string> pending = library_.CalledFunctions(node);
    absl::flat_hash_set<std::string> seen(pending.begin(), pending.end());
    while (!pending.empty()) {
      const FunctionDef* f = library_.Find(pending.back());
      pending.pop_back();
      if (f == nullptr) continue;
      for (const NodeDef& n : f->node_def()) {
        if (!n.device().empty()) {
          DeviceNameUtils::ParsedName requested;
          if (!DeviceNameUtils::ParseFullName(n.device(), &requested) ||
              !DeviceNameUtils::IsSpecification(requested, caller)) {
            return false;
          }
        }
        for (std::string& callee : library_.CalledFunctions(n)) {
          if (seen.insert(callee).second) pending.push_back(std::move(callee));
        }
      }
    }
    return true;
  }

  // Rewrites a call whose op names a library function into the equivalent
  // StatefulPartitionedCall (same name, inputs and outputs).
  absl::Status ToPartitionedCall(NodeDef* node) const {
    FunctionBody body;
    absl::Status s =
        InstantiateFunction(library_, node->op(), node->attr(), &body);
    if (!s.ok()) return s;
    NodeDef call;
    call.set_name(node->name());
    call.set_op("StatefulPartitionedCall");
    call.set_device(node->device());
    *call.mutable_input() = node->input();
    AttrValue f;
    f.mutable_func()->set_name(node->op());
    *f.mutable_func()->mutable_attr() = node->attr();
    AddNodeAttr("f", f, &call);
    AttrValue tin, tout;
    for (DataType t : body.arg_types) tin.mutable_list()->add_type(t);
    for (DataType t : body.ret_types) tout.mutable_list()->add_type(t);
    AddNodeAttr("Tin", tin, &call);
    AddNodeAttr("Tout", tout, &call);
    const OpDef* op_def = ops_->LookUpOrNull(call.op());
    if (op_def != nullptr) AddDefaultsToNodeDef(*op_def, &call);
    *node = std::move(call);
    return absl::OkStatus();
  }

  absl::Status Inline(const NodeDef& call, const std::string& function,
                      const CallAttrs& attrs, std::vector<NodeDef>* out) {
    FunctionBody body;
    absl::Status s = InstantiateFunction(library_, function, attrs, &body);
    if (!s.ok()) return s;
    return InlineFunctionCall(call, body, out);
  }

  const OpRegistry* const ops_;
  FunctionLibrary library_;
  const absl::flat_hash_set<std::string> functions_;
  std::vector<NodeDef> out_;
};

}  // namespace

bool HasFunctionalOps(const GraphDef& graph, const OpRegistry* ops) {
  const absl::flat_hash_set<std::string> functions =
      FunctionNames(graph.library());
  for (const NodeDef& node : graph.node()) {
    if (Classify(node, ops, functions) != Kind::kNone) return true;
  }
  return false;
}

absl::Status LowerFunctionalOps(const GraphDef& in, const OpRegistry* ops,
                                GraphDef* out) {
  if (!HasFunctionalOps(in, ops)) {
    *out = in;
    return absl::OkStatus();
  }
  Lowering lowering(in, ops);
  for (const NodeDef& node : in.node()) {
    absl::Status s = lowering.Expand(node, 0);
    if (!s.ok()) return s;
  }
  out->Clear();
  *out->mutable_versions() = in.versions();
  *out->mutable_library() = in.library();
  for (NodeDef& n : lowering.out()) *out->add_node() = std::move(n);
  return absl::OkStatus();
}

}  // namespace stepflow
