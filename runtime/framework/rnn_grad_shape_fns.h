// Shape functions of the fused recurrent cells' gradient ops
// (BlockLSTMGrad(V2), GRUBlockCellGrad), as TensorFlow's rnn_ops.cc and
// lstm_ops.cc give them. Each follows ShapeInferenceFn's contract (op.h).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_RNN_GRAD_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_RNN_GRAD_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// The gradients of x, cs_prev, h_prev, w, wci, wcf, wco and b: each the
// shape of that input (ranks checked).
absl::Status BlockLSTMGradShape(InferenceContext* c);
// d_x, d_h_prev, d_c_bar [batch, cell], d_r_bar_u_bar [batch, 2 * cell].
absl::Status GRUBlockCellGradShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_RNN_GRAD_SHAPE_FNS_H_
