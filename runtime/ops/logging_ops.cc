// Logging ops: Assert, Print and PrintV2. Signatures match TensorFlow's
// OpDefs.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"
#include "runtime/framework/string_shape_fns.h"

namespace stepflow {

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("Print")
    .Input("input: T")
    .Input("data: U")
    .Output("output: T")
    .Attr("T: type")
    .Attr("U: list(type) >= 0")
    .Attr("message: string = ''")
    .Attr("first_n: int = -1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("PrintV2")
    .Input("input: string")
    .Attr("output_stream: string = 'stderr'")
    .Attr("end: string = '\\n'")
    .SetIsStateful()
    .SetShapeFn(shape_inference::PrintV2Shape);

}  // namespace stepflow
