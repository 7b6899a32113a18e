#include "testing/tf_oracle/tolerance.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace oracle {
namespace {

// Ops whose float results legitimately differ between implementations
// beyond the default, with the tolerance they need (applied to every value
// of a graph holding them) and why. Add an entry only with a reason that
// holds for TensorFlow itself; a stepflow kernel that is simply less exact
// than it should be is a bug to fix, not an entry here.
struct InexactOp {
  const char* op;
  double rtol;
  double atol;
  const char* reason;
};

constexpr InexactOp kInexactOps[] = {
    {"Lgamma", 1e-4, 1e-5,
     "special function: TensorFlow's CPU kernel evaluates Eigen's lgamma, "
     "other libms round differently near its zeros"},
    {"Digamma", 1e-4, 1e-5,
     "special function: series/asymptotic expansions differ by a few ulps "
     "and more near the poles"},
    {"Svd", 1e-4, 1e-5,
     "singular vectors come from iterated plane rotations whose rounding "
     "differs between Eigen versions: float32 components agree to about "
     "1e-5 of the matrix's scale, not of each (possibly tiny) component"},
    {"Erfc", 1e-4, 1e-6,
     "special function: relative error grows in the tail where erfc "
     "underflows"},
};

}  // namespace

Tolerance DefaultTolerance(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_COMPLEX64:
      return {1e-5, 1e-6};
    case DT_DOUBLE:
    case DT_COMPLEX128:
      return {1e-10, 1e-12};
    case DT_HALF:
      return {1e-3, 1e-3};
    case DT_BFLOAT16:
      return {1e-2, 1e-2};
    default:
      return {0, 0};
  }
}

Tolerance ToleranceFor(const GraphDef& graph, DataType dtype,
                       std::vector<std::string>* reasons) {
  Tolerance t = DefaultTolerance(dtype);
  if (t.rtol == 0 && t.atol == 0) return t;
  std::set<std::string> ops;
  for (const NodeDef& n : graph.node()) ops.insert(n.op());
  for (const FunctionDef& f : graph.library().function()) {
    for (const NodeDef& n : f.node_def()) ops.insert(n.op());
  }
  for (const InexactOp& e : kInexactOps) {
    if (ops.count(e.op) == 0) continue;
    if (e.rtol > t.rtol || e.atol > t.atol) {
      t.rtol = std::max(t.rtol, e.rtol);
      t.atol = std::max(t.atol, e.atol);
      if (reasons != nullptr)
        reasons->push_back(absl::StrCat(e.op, ": ", e.reason));
    }
  }
  return t;
}

}  // namespace oracle
}  // namespace stepflow
