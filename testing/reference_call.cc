#include "testing/reference_call.h"

#include <cstdlib>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proto/attr_value.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor.pb.h"

namespace stepflow::graph_testing {
namespace {

constexpr int kMaxDepth = 64;
constexpr int kMaxIterations = 100000;

bool IsCallOp(const std::string& op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}
bool IsIfOp(const std::string& op) { return op == "If" || op == "StatelessIf"; }
bool IsCaseOp(const std::string& op) {
  return op == "Case" || op == "StatelessCase";
}
bool IsWhileOp(const std::string& op) {
  return op == "While" || op == "StatelessWhile";
}

const FunctionDef* FindFunction(const FunctionDefLibrary& lib,
                                const std::string& name) {
  for (const FunctionDef& f : lib.function()) {
    if (f.signature().name() == name) return &f;
  }
  return nullptr;
}

std::string FuncAttr(const NodeDef& n, const char* attr) {
  auto it = n.attr().find(attr);
  return it == n.attr().end() ? "" : it->second.func().name();
}

absl::Status Call(const FunctionDefLibrary& lib, const NodeDef& call,
                  const std::vector<float>& inputs, int depth,
                  std::vector<float>* outputs);

absl::Status EvalNode(const FunctionDefLibrary& lib, const NodeDef& n,
                      const std::vector<float>& in, int depth,
                      std::vector<float>* out);

// One function body, interpreted node by node on demand.
class BodyEval {
 public:
  BodyEval(const FunctionDefLibrary& lib, const FunctionDef& f,
           const std::vector<float>& args, int depth)
      : lib_(lib), f_(f), depth_(depth) {
    for (int i = 0; i < f.signature().input_arg_size(); ++i) {
      args_[f.signature().input_arg(i).name()] =
          i < static_cast<int>(args.size()) ? args[i] : 0;
    }
    for (const NodeDef& n : f.node_def()) nodes_[n.name()] = &n;
  }

  absl::Status Run(std::vector<float>* results) {
    results->clear();
    for (const OpDef::ArgDef& out : f_.signature().output_arg()) {
      auto ret = f_.ret().find(out.name());
      if (ret == f_.ret().end()) return Bad("no ret for ", out.name());
      float v = 0;
      absl::Status s = Resolve(ret->second, &v);
      if (!s.ok()) return s;
      results->push_back(v);
    }
    return absl::OkStatus();
  }

 private:
  template <typename... Args>
  absl::Status Bad(const Args&... args) const {
    return absl::InvalidArgumentError(
        absl::StrCat("function ", f_.signature().name(), ": ", args...));
  }

  // Which output of `n` its output argument `arg` starts at.
  absl::Status OutputBase(const NodeDef& n, const std::string& arg,
                          int* base) const {
    *base = 0;
    const FunctionDef* callee = FindFunction(lib_, n.op());
    if (callee == nullptr) return absl::OkStatus();  // one output argument
    for (int i = 0; i < callee->signature().output_arg_size(); ++i) {
      if (callee->signature().output_arg(i).name() == arg) {
        *base = i;
        return absl::OkStatus();
      }
    }
    return Bad("node ", n.name(), " has no output ", arg);
  }

  absl::Status Resolve(const std::string& ref, float* v) {
    const std::vector<std::string> parts = absl::StrSplit(ref, ':');
    if (parts.size() == 1) {
      auto a = args_.find(ref);
      if (a == args_.end()) return Bad("unknown argument ", ref);
      *v = a->second;
      return absl::OkStatus();
    }
    if (parts.size() != 3) return Bad("malformed reference ", ref);
    auto it = nodes_.find(parts[0]);
    if (it == nodes_.end()) return Bad("unknown node ", parts[0]);
    int base = 0;
    absl::Status s = OutputBase(*it->second, parts[1], &base);
    if (!s.ok()) return s;
    const std::vector<float>* outs = nullptr;
    s = Outputs(*it->second, &outs);
    if (!s.ok()) return s;
    const int index = base + std::atoi(parts[2].c_str());
    if (index < 0 || index >= static_cast<int>(outs->size())) {
      return Bad("reference ", ref, " is out of range");
    }
    *v = (*outs)[index];
    return absl::OkStatus();
  }

  absl::Status Outputs(const NodeDef& n, const std::vector<float>** out) {
    auto memo = memo_.find(n.name());
    if (memo != memo_.end()) {
      *out = &memo->second;
      return absl::OkStatus();
    }
    std::vector<float> in;
    for (const std::string& input : n.input()) {
      if (!input.empty() && input[0] == '^') continue;
      float v = 0;
      absl::Status s = Resolve(input, &v);
      if (!s.ok()) return s;
      in.push_back(v);
    }
    std::vector<float> result;
    absl::Status s = EvalNode(lib_, n, in, depth_, &result);
    if (!s.ok()) return s;
    *out = &(memo_[n.name()] = std::move(result));
    return absl::OkStatus();
  }

 private:
  const FunctionDefLibrary& lib_;
  const FunctionDef& f_;
  const int depth_;
  std::map<std::string, float> args_;
  std::map<std::string, const NodeDef*> nodes_;
  std::map<std::string, std::vector<float>> memo_;
};

// Evaluates one node of a body (or of the graph) on its data inputs.
absl::Status EvalNode(const FunctionDefLibrary& lib, const NodeDef& n,
                      const std::vector<float>& in, int depth,
                      std::vector<float>* out) {
  const std::string& op = n.op();
  if (op == "Const") {
    auto a = n.attr().find("value");
    if (a == n.attr().end()) {
      return absl::UnimplementedError(absl::StrCat("Const ", n.name()));
    }
    const TensorProto& t = a->second.tensor();
    if (t.float_val_size() == 1) {
      *out = {t.float_val(0)};
    } else if (t.int_val_size() == 1) {
      *out = {static_cast<float>(t.int_val(0))};
    } else {
      return absl::UnimplementedError(
          absl::StrCat("Const ", n.name(), " is not a scalar"));
    }
    return absl::OkStatus();
  }
  if (op == "Identity" && in.size() == 1) {
    *out = {in[0]};
  } else if ((op == "Add" || op == "AddV2") && in.size() == 2) {
    *out = {in[0] + in[1]};
  } else if (op == "Mul" && in.size() == 2) {
    *out = {in[0] * in[1]};
  } else if (op == "Less" && in.size() == 2) {
    *out = {in[0] < in[1] ? 1.0f : 0.0f};
  } else if (IsReferenceCallSite(n, lib)) {
    return Call(lib, n, in, depth + 1, out);
  } else {
    return absl::UnimplementedError(
        absl::StrCat("reference interpreter: op ", op, " of ", n.name()));
  }
  return absl::OkStatus();
}

absl::Status CallFunction(const FunctionDefLibrary& lib,
                          const std::string& name,
                          const std::vector<float>& args, int depth,
                          std::vector<float>* results) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("calls nested deeper than ", kMaxDepth, " at ", name));
  }
  const FunctionDef* f = FindFunction(lib, name);
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown function ", name));
  }
  if (f->signature().input_arg_size() != static_cast<int>(args.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function ", name, " takes ", f->signature().input_arg_size(),
        " arguments, got ", args.size()));
  }
  return BodyEval(lib, *f, args, depth).Run(results);
}

absl::Status Call(const FunctionDefLibrary& lib, const NodeDef& call,
                  const std::vector<float>& inputs, int depth,
                  std::vector<float>* outputs) {
  const std::string& op = call.op();
  if (IsCallOp(op)) {
    return CallFunction(lib, FuncAttr(call, "f"), inputs, depth, outputs);
  }
  const std::vector<float> rest =
      inputs.empty() ? inputs
                     : std::vector<float>(inputs.begin() + 1, inputs.end());
  if (IsIfOp(op) && !inputs.empty()) {
    const char* branch = inputs[0] != 0 ? "then_branch" : "else_branch";
    return CallFunction(lib, FuncAttr(call, branch), rest, depth, outputs);
  }
  if (IsCaseOp(op) && !inputs.empty()) {
    auto it = call.attr().find("branches");
    const int n = it == call.attr().end() ? 0 : it->second.list().func_size();
    if (n == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Case ", call.name(), " has no branches"));
    }
    int index = static_cast<int>(inputs[0]);
    if (index < 0 || index >= n) index = n - 1;
    return CallFunction(lib, it->second.list().func(index).name(), rest, depth,
                        outputs);
  }
  if (IsWhileOp(op)) {
    std::vector<float> vars = inputs;
    for (int i = 0;; ++i) {
      if (i > kMaxIterations) {
        return absl::InvalidArgumentError(
            absl::StrCat("While ", call.name(), " ran more than ",
                         kMaxIterations, " iterations"));
      }
      std::vector<float> keep_going;
      absl::Status s =
          CallFunction(lib, FuncAttr(call, "cond"), vars, depth, &keep_going);
      if (!s.ok()) return s;
      if (keep_going.size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("While ", call.name(), ": cond has no one result"));
      }
      if (keep_going[0] == 0) break;
      std::vector<float> next;
      s = CallFunction(lib, FuncAttr(call, "body"), vars, depth, &next);
      if (!s.ok()) return s;
      vars = std::move(next);
    }
    *outputs = std::move(vars);
    return absl::OkStatus();
  }
  // A library function named as the op.
  return CallFunction(lib, op, inputs, depth, outputs);
}

}  // namespace

bool IsReferenceCallSite(const NodeDef& call, const FunctionDefLibrary& lib) {
  const std::string& op = call.op();
  return IsCallOp(op) || IsIfOp(op) || IsCaseOp(op) || IsWhileOp(op) ||
         FindFunction(lib, op) != nullptr;
}

absl::Status EvalReferenceNode(const FunctionDefLibrary& lib,
                               const NodeDef& node,
                               const std::vector<float>& inputs,
                               std::vector<float>* outputs) {
  return EvalNode(lib, node, inputs, 0, outputs);
}

}  // namespace stepflow::graph_testing
