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
  // For half and bfloat16 values, when the op needs more there than the
  // float tolerance above (0: use rtol/atol).
  double narrow_rtol = 0;
  double narrow_atol = 0;
};

// The convolutions. float: each output is a long dot product (window x
// channels) summed in another order than TensorFlow's (OpenBLAS blocks vs
// Eigen's contraction). half and bfloat16: TensorFlow rounds partial sums
// to the 16-bit type; stepflow rounds them in TensorFlow's order (Conv3D,
// the filter gradients, the depthwise forward op: exact bits, default
// tolerance; beyond one Eigen block see testing/tf_ops/known_differences.txt)
// except for the two input gradients below, whose order follows Eigen's
// packet widths.
constexpr const char* kConvReason =
    "convolution: long dot products summed in another order than "
    "TensorFlow's";
constexpr const char* kConvNarrowReason =
    "convolution input gradient: for half and bfloat16 TensorFlow rounds "
    "partial sums to the 16-bit type in an order set by Eigen's packet "
    "widths, which stepflow does not follow; the difference is a few ulps "
    "of the partial sums";

constexpr const char* kLstmNarrowReason =
    "LSTM cell in half: TensorFlow rounds the GEMM's output and every "
    "intermediate of the gate arithmetic to half, stepflow carries them in "
    "float and rounds each output once; they differ by a few half ulps";
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
    {"Conv2D", 1e-4, 1e-5, kConvReason},
    {"Conv2DBackpropInput", 1e-4, 1e-5, kConvNarrowReason, 1e-2, 5e-2},
    {"Conv2DBackpropFilter", 1e-4, 1e-5, kConvReason},
    {"DepthwiseConv2dNative", 1e-4, 1e-5, kConvReason},
    {"DepthwiseConv2dNativeBackpropInput", 1e-4, 1e-5, kConvNarrowReason, 1e-2,
     5e-2},
    {"DepthwiseConv2dNativeBackpropFilter", 1e-4, 1e-5, kConvReason},
    {"Conv3D", 1e-4, 1e-5, kConvReason},
    {"Conv3DBackpropInputV2", 1e-4, 1e-5, kConvReason},
    {"Conv3DBackpropFilterV2", 1e-4, 1e-5, kConvReason},
    {"LSTMBlockCell", 1e-5, 1e-6, kLstmNarrowReason, 5e-3, 5e-3},
    {"LSTMBlockCellGrad", 1e-5, 1e-6, kLstmNarrowReason, 5e-3, 5e-3},
    {"BlockLSTM", 1e-5, 1e-6, kLstmNarrowReason, 5e-3, 5e-3},
    {"BlockLSTMV2", 1e-5, 1e-6, kLstmNarrowReason, 5e-3, 5e-3},
    {"BlockLSTMGrad", 1e-5, 1e-6, kLstmNarrowReason, 5e-3, 5e-3},
    {"BlockLSTMGradV2", 1e-5, 1e-6, kLstmNarrowReason, 5e-3, 5e-3},
};

// How much wider than its half tolerance a bfloat16 value's is (3 fewer
// significand bits: 8x the ulp).
constexpr double kBfloat16Scale = 8.0;

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
    double rtol = e.rtol, atol = e.atol;
    if ((dtype == DT_HALF || dtype == DT_BFLOAT16) && e.narrow_rtol > 0) {
      const double scale = dtype == DT_BFLOAT16 ? kBfloat16Scale : 1.0;
      rtol = e.narrow_rtol * scale;
      atol = e.narrow_atol * scale;
    }
    if (rtol > t.rtol || atol > t.atol) {
      t.rtol = std::max(t.rtol, rtol);
      t.atol = std::max(t.atol, atol);
      if (reasons != nullptr)
        reasons->push_back(absl::StrCat(e.op, ": ", e.reason));
    }
  }
  return t;
}

}  // namespace oracle
}  // namespace stepflow
