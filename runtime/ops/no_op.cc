// NoOp: does nothing; used as a target grouping control dependencies.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"

namespace stepflow {

REGISTER_OP("NoOp").SetShapeFn(shape_inference::NoOutputs);

}  // namespace stepflow
