// Internal ops through which a graph exchanges values with its caller:
// _Arg reads argument `index` of the call frame, _Retval writes result
// `index`. Sessions rewrite feeds/fetches into these.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/function_shape_fns.h"
#include "runtime/framework/op.h"

namespace stepflow {

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ArgShape);

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_inference::NoOutputs);

}  // namespace stepflow
