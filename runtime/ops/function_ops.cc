// Internal ops through which a graph exchanges values with its caller:
// _Arg reads argument `index` of the call frame, _Retval writes result
// `index`. Sessions rewrite feeds/fetches into these.
#include "runtime/framework/op.h"

namespace stepflow {

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful();

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful();

}  // namespace stepflow
