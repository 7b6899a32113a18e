// Logging ops: Assert. Signatures match TensorFlow's OpDefs.
#include "runtime/framework/op.h"

namespace stepflow {

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetIsStateful();

}  // namespace stepflow
