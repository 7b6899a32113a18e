#include "testing/reference_eval.h"

#include <cstdlib>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/tensor_id.h"
#include "testing/reference_call.h"
#include "testing/reference_prune.h"

namespace stepflow::graph_testing {
namespace {

// "x" / "x:0" -> ("x", 0); "^x" -> ("x", -1).
std::pair<std::string, int> Split(const std::string& s) {
  if (!s.empty() && s[0] == '^') return {s.substr(1), -1};
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos) return {s, 0};
  return {s.substr(0, colon), std::atoi(s.c_str() + colon + 1)};
}

}  // namespace

absl::Status ReferenceEvaluate(const GraphDef& graph,
                               const std::map<std::string, float>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets,
                               ReferenceOutcome* outcome) {
  *outcome = ReferenceOutcome();
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : graph.node()) by_name[n.name()] = &n;
  std::map<std::string, float> fed;  // canonical endpoint -> value
  std::vector<std::string> feed_names;
  for (const auto& [name, value] : feeds) {
    fed[CanonicalTensorName(name)] = value;
    feed_names.push_back(name);
  }
  for (const std::string& f : fetches) {
    if (by_name.count(Split(f).first) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("unknown fetch ", f));
    }
  }
  for (const std::string& t : targets) {
    if (by_name.count(t) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("unknown target ", t));
    }
  }

  // Which nodes run.
  const std::set<std::string> kept = ReferencePrunedNodeNames(
      graph, feed_names, fetches, targets, /*use_function_convention=*/true);
  for (const std::string& name : kept) {
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;  // _arg_ / _retval_
    const NodeDef& n = *it->second;
    if (n.op() == "Placeholder") {
      outcome->error_codes.insert(absl::StatusCode::kInvalidArgument);
    } else if (n.op() == "SimFail") {
      auto code = n.attr().find("code");
      outcome->error_codes.insert(static_cast<absl::StatusCode>(
          code == n.attr().end() ? 3 : code->second.i()));
    } else if (n.op() != "Const" && n.op() != "Identity" && n.op() != "Add" &&
               n.op() != "AddV2" && n.op() != "Mul" && n.op() != "NoOp" &&
               n.op() != "SimDelay" &&
               !IsReferenceCallSite(n, graph.library())) {
      return absl::UnimplementedError(
          absl::StrCat("reference interpreter: op ", n.op(), " of ", name));
    }
  }
  if (!outcome->error_codes.empty()) return absl::OkStatus();

  // Values, memoised per node (one per output).
  std::map<std::string, std::vector<float>> memo;
  absl::Status error;
  std::function<float(const std::string&, int, int)> value =
      [&](const std::string& node, int index, int depth) -> float {
    auto f = fed.find(absl::StrCat(node, ":", index));
    if (f != fed.end()) return f->second;
    auto m = memo.find(node);
    if (m == memo.end()) {
      auto it = by_name.find(node);
      if (it == by_name.end() || depth > 100000) {
        error =
            absl::InvalidArgumentError(absl::StrCat("cannot evaluate ", node));
        return 0;
      }
      const NodeDef& n = *it->second;
      std::vector<float> in;
      for (const std::string& input : n.input()) {
        auto [src, src_index] = Split(input);
        if (src_index < 0) continue;
        in.push_back(value(src, src_index, depth + 1));
        if (!error.ok()) return 0;
      }
      std::vector<float> out;
      if (n.op() == "SimDelay" && in.size() == 1) {
        out = in;
      } else {
        absl::Status s = EvalReferenceNode(graph.library(), n, in, &out);
        if (!s.ok()) {
          error = s;
          return 0;
        }
      }
      m = memo.emplace(node, std::move(out)).first;
    }
    if (index < 0 || index >= static_cast<int>(m->second.size())) {
      error = absl::InvalidArgumentError(
          absl::StrCat("no output ", index, " of ", node));
      return 0;
    }
    return m->second[index];
  };
  for (const std::string& f : fetches) {
    auto [node, index] = Split(f);
    outcome->values.push_back(value(node, index, 0));
    if (!error.ok()) return error;
  }
  return absl::OkStatus();
}

}  // namespace stepflow::graph_testing
