// Shape functions of individual ops (the ones TensorFlow writes inline in
// its REGISTER_OP calls), named after their op. Each follows
// ShapeInferenceFn's contract (op.h) and TensorFlow's function for that op.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_OP_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_OP_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// Tensors and variables.
absl::Status ConstShape(InferenceContext* c);     // "value" attr
absl::Status ExplicitShape(InferenceContext* c);  // "shape" attr
absl::Status PlaceholderWithDefaultShape(InferenceContext* c);
absl::Status VarHandleShape(InferenceContext* c);
// The variable resource handle input 0 refers to (unknown shape and
// DT_INVALID when it carries no handle data); InvalidArgument when it
// differs from the "dtype" attr.
absl::Status VariableHandleData(InferenceContext* c, ShapeAndType* out);
absl::Status ReadVariableShape(InferenceContext* c);
absl::Status AssignVariableShape(InferenceContext* c);
absl::Status AssignShape(InferenceContext* c);
// Training ops: output 0 (when there is one) is "var" merged with "grad"
// (or "delta"); scalar hyper-parameters are checked to be scalars.
absl::Status ApplyShape(InferenceContext* c);

// Shapes and layout.
absl::Status ShapeShape(InferenceContext* c);
absl::Status ShapeNShape(InferenceContext* c);
absl::Status PackShape(InferenceContext* c);
absl::Status UnpackShape(InferenceContext* c);
absl::Status SplitShape(InferenceContext* c);
absl::Status SplitVShape(InferenceContext* c);
absl::Status TransposeShape(InferenceContext* c);
absl::Status ExpandDimsShape(InferenceContext* c);
absl::Status SqueezeShape(InferenceContext* c);
absl::Status FillShape(InferenceContext* c);
absl::Status TileShape(InferenceContext* c);
absl::Status PadShape(InferenceContext* c);
absl::Status OneHotShape(InferenceContext* c);
absl::Status GatherShape(InferenceContext* c);
absl::Status GatherV2Shape(InferenceContext* c);
absl::Status BroadcastToShape(InferenceContext* c);
absl::Status RangeShape(InferenceContext* c);
absl::Status WhereShape(InferenceContext* c);
absl::Status UniqueShape(InferenceContext* c);
absl::Status TopKV2Shape(InferenceContext* c);

absl::Status ConcatOffsetShape(InferenceContext* c);
// Output 0 is the shape input `input` holds, of rank 4 (convolution and
// pooling gradients with respect to their input).
absl::Status ShapeFromInputTensorRank4(InferenceContext* c, int input);
absl::Status StridedSliceGradShape(InferenceContext* c);
// Image resizes: [batch, size[0], size[1], channels].
absl::Status ResizeShape(InferenceContext* c);

// Fused recurrent cells.
absl::Status LSTMBlockCellShape(InferenceContext* c);
absl::Status LSTMBlockCellGradShape(InferenceContext* c);
absl::Status BlockLSTMShape(InferenceContext* c);
absl::Status GRUBlockCellShape(InferenceContext* c);

// Control flow.
// Enter: unknown unless is_constant (then its input's shape).
absl::Status EnterShape(InferenceContext* c);
absl::Status SwitchShape(InferenceContext* c);
absl::Status MergeShape(InferenceContext* c);
// If/Case: the "output_shapes" attr, else unknown. While: the attr, else
// the inputs' shapes.
absl::Status IfShape(InferenceContext* c);
absl::Status WhileShape(InferenceContext* c);

// Math and nn.
absl::Status SelectShape(InferenceContext* c);
absl::Status SelectV2Shape(InferenceContext* c);
absl::Status EqualShape(InferenceContext* c);  // incompatible_shape_error
absl::Status SoftmaxShape(InferenceContext* c);
absl::Status SoftmaxCrossEntropyWithLogitsShape(InferenceContext* c);
absl::Status SparseSoftmaxCrossEntropyWithLogitsShape(InferenceContext* c);
absl::Status BroadcastGradientArgsShape(InferenceContext* c);
// Conv2DBackpropInput (shape from input 0), Conv2DBackpropFilter (input 1).
absl::Status Conv2DBackpropInputShape(InferenceContext* c);
absl::Status Conv2DBackpropFilterShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_OP_SHAPE_FNS_H_
