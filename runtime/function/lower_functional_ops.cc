#include "runtime/function/lower_functional_ops.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/function_library.h"
#include "runtime/function/inline_function.h"
#include "runtime/function/instantiate.h"
#include "runtime/function/lower_cond.h"
#include "runtime/function/lower_while.h"

namespace stepflow {
namespace {

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
