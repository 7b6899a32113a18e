// Shape functions of Betainc and BroadcastArgs (declared in
// elementwise_shape_fns.h).
#include "runtime/framework/elementwise_shape_fns.h"

#include <algorithm>

#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status BetaincShape(InferenceContext* c) {
  const int n = c->num_inputs();
  ShapeHandle out = c->UnknownShape(), non_scalar;
  int scalars = 0;
  for (int i = 0; i < n; ++i) {
    ShapeHandle in = c->input(i);
    if (!c->RankKnown(in)) {
      // Might be a scalar or not.
      non_scalar = in;
    } else if (c->Rank(in) == 0) {
      ++scalars;
    } else {
      SF_RETURN_IF_ERROR(c->Merge(out, in, &out));
      non_scalar = out;
    }
  }
  if (scalars == n - 1) {
    out = non_scalar;
  } else if (scalars == n) {
    out = c->input(0);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BroadcastArgsShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  DimensionHandle x = c->Dim(c->input(0), 0), y = c->Dim(c->input(1), 0);
  if (!c->ValueKnown(x) || !c->ValueKnown(y)) {
    c->set_output(0, c->Vector(kUnknownDim));
  } else {
    c->set_output(0, c->Vector(std::max(c->Value(x), c->Value(y))));
  }
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
