#include "runtime/kernels/einsum_equation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace stepflow {
namespace {

constexpr int kLetters = EinsumEquation::kNamedLabels;

absl::Status ParseSubscripts(const std::string& s, std::vector<int>* out) {
  bool ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s.compare(i, 3, "...") != 0 || ellipsis) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid Einsum subscripts '", s, "': a bad or repeated ellipsis"));
      }
      ellipsis = true;
      out->push_back(EinsumEquation::kEllipsis);
      i += 2;
      continue;
    }
    out->push_back(static_cast<unsigned char>(s[i]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseEinsumEquation(const std::string& equation,
                                 EinsumEquation* out) {
  const std::string& eq = equation;
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos ||
      eq.find("->", arrow + 1) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting exactly one '->' in einsum equation: ", equation));
  }
  const std::string lhs = eq.substr(0, arrow);
  const std::string rhs = eq.substr(arrow + 2);
  std::vector<std::string> parts = absl::StrSplit(lhs, ',');
  if (parts.size() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting 1 or 2 input subscripts in equation '",
                     equation, "' but got: ", parts.size()));
  }
  out->inputs.assign(parts.size(), {});
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::Status s = ParseSubscripts(parts[i], &out->inputs[i]);
    if (!s.ok()) return s;
  }
  out->output.clear();
  absl::Status s = ParseSubscripts(rhs, &out->output);
  if (!s.ok()) return s;
  for (int l : out->output) {
    if (l == EinsumEquation::kEllipsis) continue;
    bool found = false;
    for (const auto& in : out->inputs) {
      found = found || std::find(in.begin(), in.end(), l) != in.end();
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("Output subscripts contain the label ",
                       std::string(1, static_cast<char>(l)),
                       " not present in the input subscripts: ", equation));
    }
  }
  return absl::OkStatus();
}

absl::Status ResolveEinsum(const EinsumEquation& eq,
                           const std::vector<TensorShape>& shapes,
                           EinsumPlan* plan) {
  const size_t n = eq.inputs.size();
  if (shapes.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting ", n, " inputs to Einsum but got ", shapes.size()));
  }
  // Ellipsis ranks.
  std::vector<int> ell_rank(n, 0);
  int broadcast_rank = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& subs = eq.inputs[i];
    const bool has_ell = std::find(subs.begin(), subs.end(),
                                   EinsumEquation::kEllipsis) != subs.end();
    const int named = static_cast<int>(subs.size()) - (has_ell ? 1 : 0);
    const int rank = shapes[i].dims();
    if (has_ell ? rank < named : rank != named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input ", i, " to Einsum has rank ", rank,
                       " but its subscripts name ", named, " dimensions",
                       has_ell ? " (plus an ellipsis)" : ""));
    }
    ell_rank[i] = has_ell ? rank - named : 0;
    broadcast_rank = std::max(broadcast_rank, ell_rank[i]);
  }
  plan->labels.assign(kLetters + broadcast_rank, EinsumLabel());
  for (auto& l : plan->labels) {
    l.input_dim.assign(n, -1);
    l.input_stride.assign(n, 0);
  }
  for (size_t i = 0; i < n; ++i) {
    const TensorShape& shape = shapes[i];
    std::vector<int64_t> strides(shape.dims(), 1);
    for (int d = shape.dims() - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * shape.dim_size(d + 1);
    }
    int axis = 0;
    for (int sub : eq.inputs[i]) {
      std::vector<int> ids;
      if (sub == EinsumEquation::kEllipsis) {
        for (int t = 0; t < ell_rank[i]; ++t) {
          ids.push_back(kLetters + broadcast_rank - ell_rank[i] + t);
        }
      } else {
        ids.push_back(sub);
      }
      for (int id : ids) {
        EinsumLabel& l = plan->labels[id];
        const int64_t d = shape.dim_size(axis);
        if (l.input_dim[i] >= 0 && l.input_dim[i] != d) {
          return absl::InvalidArgumentError(
              absl::StrCat("Expected dimension ", l.input_dim[i], " at axis ",
                           axis, " of input ", i, " shaped ",
                           shape.DebugString(), " but got dimension ", d));
        }
        l.input_dim[i] = d;
        l.input_stride[i] += strides[axis];
        ++axis;
      }
    }
  }
  // Dimensions across inputs: named labels must agree; ellipsis dimensions
  // broadcast.
  for (size_t id = 0; id < plan->labels.size(); ++id) {
    EinsumLabel& l = plan->labels[id];
    int64_t dim = -1;
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = l.input_dim[i];
      if (d < 0) continue;
      if (dim < 0 || dim == d) {
        dim = d;
      } else if (id >= kLetters && (dim == 1 || d == 1)) {
        dim = std::max(dim, d);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            id >= kLetters ? "Ellipsis dimensions do not broadcast"
                           : "Expected matching dimensions for a label",
            ": ", shapes[0].DebugString(), " vs. ",
            shapes[n - 1].DebugString()));
      }
    }
    l.dim = dim < 0 ? 1 : dim;
  }
  plan->output.clear();
  plan->output_shape = TensorShape();
  const bool output_ellipsis =
      std::find(eq.output.begin(), eq.output.end(),
                EinsumEquation::kEllipsis) != eq.output.end();
  if (broadcast_rank > 0 && !output_ellipsis) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Output contains ", broadcast_rank,
        " broadcasting dimension(s) but no ellipsis (...) was found in the "
        "output subscripts."));
  }
  for (int sub : eq.output) {
    if (sub == EinsumEquation::kEllipsis) {
      for (int t = 0; t < broadcast_rank; ++t) {
        plan->output.push_back(kLetters + t);
      }
    } else {
      plan->output.push_back(sub);
    }
  }
  plan->unique_output.clear();
  for (int id : plan->output) {
    if (!plan->labels[id].in_output) plan->unique_output.push_back(id);
    plan->labels[id].in_output = true;
    plan->output_shape.AddDim(plan->labels[id].dim);
  }
  return absl::OkStatus();
}

}  // namespace stepflow
