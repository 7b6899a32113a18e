// Shape functions of the recurrent cells' gradients (declared in
// rnn_grad_shape_fns.h).
#include "runtime/framework/rnn_grad_shape_fns.h"

#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

absl::Status BlockLSTMGradShape(InferenceContext* c) {
  // Inputs 1..8: x, cs_prev, h_prev, w, wci, wcf, wco, b.
  constexpr int kRanks[] = {3, 2, 2, 2, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) {
    ShapeHandle s;
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i + 1), kRanks[i], &s));
    c->set_output(i, s);
  }
  return absl::OkStatus();
}

absl::Status GRUBlockCellGradShape(InferenceContext* c) {
  ShapeHandle x, h_prev, w_ru;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &h_prev));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, &w_ru));
  DimensionHandle batch = c->Dim(x, 0);
  ShapeHandle batch_cell = c->Matrix(batch, c->Dim(h_prev, 1));
  c->set_output(0, x);
  c->set_output(1, batch_cell);
  c->set_output(2, batch_cell);
  c->set_output(3, c->Matrix(batch, c->Dim(w_ru, 1)));
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
