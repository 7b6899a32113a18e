// Neural-network ops: BiasAdd, Relu, Softmax. Signatures match TensorFlow's
// OpDefs.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"

namespace stepflow {

REGISTER_OP("BiasAdd")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Output("output: T")
    .SetShapeFn(shape_inference::BiasAddShape);

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64, qint8}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::SoftmaxShape);

}  // namespace stepflow
