// Shape functions shared by many ops (TensorFlow's common_shape_fns): the
// ops' REGISTER_OP(...).SetShapeFn(...) name these. Each follows the
// contract of ShapeInferenceFn (op.h) and TensorFlow's function of the same
// name: the same output shapes and the same errors for the same inputs.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_COMMON_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_COMMON_SHAPE_FNS_H_

#include <string>

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// Every output of unknown shape.
absl::Status UnknownShape(InferenceContext* c);
// No outputs to set.
absl::Status NoOutputs(InferenceContext* c);
// Output 0 is a scalar.
absl::Status ScalarShape(InferenceContext* c);
// Output 0 is input 0 (with its resource handle data).
absl::Status UnchangedShape(InferenceContext* c);
// Output i is input i, for every output.
absl::Status UnchangedShapes(InferenceContext* c);
absl::Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank);
absl::Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int32_t rank);
absl::Status UnchangedShapeWithRankAtMost(InferenceContext* c, int32_t rank);
// Checks that input `index` has rank `rank` (WithRank's error).
absl::Status CheckInputRank(InferenceContext* c, int index, int64_t rank);
// Output 0 is inputs 0 and 1 merged (ReluGrad, Assign, ...).
absl::Status MergeBothInputsShapeFn(InferenceContext* c);
// Every input merged, last to first; a failure names the input
// ("From merging shape 0 with other shapes.").
absl::Status MergeAllInputs(InferenceContext* c, ShapeHandle* out);
// Output 0 is every input merged (AddN).
absl::Status MergeAllInputsShapeFn(InferenceContext* c);

// NumPy broadcasting of `shape_x` and `shape_y`. With
// `incompatible_shape_error` false, incompatible dims give an unknown
// shape instead of an error.
absl::Status BroadcastBinaryOpOutputShapeFnHelper(InferenceContext* c,
                                                  ShapeHandle shape_x,
                                                  ShapeHandle shape_y,
                                                  bool incompatible_shape_error,
                                                  ShapeHandle* out);
// Output `output_index` is inputs 0 and 1 broadcast.
absl::Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c,
                                            int output_index);
absl::Status BroadcastBinaryOpShapeFn(InferenceContext* c);

absl::Status MatMulShape(InferenceContext* c);
absl::Status BatchMatMulShape(InferenceContext* c);
absl::Status BatchMatMulV2Shape(InferenceContext* c);
// Input 0 reduced over the axes of input 1 (keep_dims attr).
absl::Status ReductionShape(InferenceContext* c);
// ArgMax/ArgMin: input 0 without the axis of input 1.
absl::Status ArgOpShape(InferenceContext* c);
// Concat (axis first) and ConcatV2 (axis last).
absl::Status ConcatShape(InferenceContext* c, int num_inputs_to_concat);
absl::Status ConcatV2Shape(InferenceContext* c);
absl::Status BiasAddShape(InferenceContext* c);
absl::Status BiasAddGradShape(InferenceContext* c);
absl::Status Conv2DShape(InferenceContext* c);
absl::Status DepthwiseConv2DNativeShape(InferenceContext* c);
absl::Status MaxPoolShape(InferenceContext* c);
absl::Status AvgPoolShape(InferenceContext* c);
absl::Status FusedBatchNormShape(InferenceContext* c);
absl::Status FusedBatchNormV3Shape(InferenceContext* c);
absl::Status FusedBatchNormGradShape(InferenceContext* c);
// Output 0 is the shape input 0 holds (random ops).
absl::Status RandomShape(InferenceContext* c);
absl::Status ReshapeShape(InferenceContext* c);
absl::Status SliceShape(InferenceContext* c);
absl::Status StridedSliceShape(InferenceContext* c);

// The windowed output size of a convolution or pooling along one
// dimension; `padding` is "VALID", "SAME" or "EXPLICIT".
absl::Status GetWindowedOutputSizeFromDims(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t dilation_rate, int64_t stride,
    const std::string& padding, int64_t padding_before, int64_t padding_after,
    DimensionHandle* output_size);
// A convolution's channel counts: the input's a multiple of the filter's
// (groups), the output's a multiple of the groups (checked where known).
absl::Status CheckConvDepths(InferenceContext* c, DimensionHandle in_depth,
                             DimensionHandle filter_in_depth,
                             DimensionHandle out_depth);
// The scalar input `idx` as an axis into a shape of `input_rank` (negative
// values count from the end); unknown when not constant.
absl::Status MakeDimForScalarInputWithNegativeIndexing(InferenceContext* c,
                                                       int idx,
                                                       int32_t input_rank,
                                                       DimensionHandle* out);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_COMMON_SHAPE_FNS_H_
